"""Background jobs of the entity graph (django-q2). They take ids and are idempotent."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

logger = logging.getLogger(__name__)

VECTOR_GROUP = "vectors"
# Ids per queued job when a batch is flushed.
BATCH_TASK_SIZE = 1000


def vector_upsert_task(kind: str, ids: list) -> int:
    """Bring the index of ``kind`` in line with these rows (added, edited or deleted)."""
    from entities.search.service import vector_upsert

    return vector_upsert(kind, ids)


def vector_delete_task(kind: str, ids: list) -> int:
    """Mark ids deleted. Nothing here queues it any more (an upsert drops vanished ids);
    it stays for jobs already waiting in a queue."""
    from entities.search.service import vector_delete

    return vector_delete(kind, ids)


def vector_rebuild_task(kind: str) -> int:
    from entities.search.service import vector_rebuild

    return vector_rebuild(kind)


def _enqueue(func: str, *args) -> None:
    """Queue a job; a broken queue must never undo or fail the save that triggered it
    (search re-checks rows, and ``rebuild_vectors`` restores the index)."""
    from django_q.tasks import async_task

    try:
        async_task(func, *args, group=VECTOR_GROUP)
    except Exception:
        logger.exception("could not enqueue %s%r", func, args)


def vector_upsert_enqueue(kind: str, ids: list) -> None:
    """Queue upserts of these ids (added, edited or deleted rows), ``BATCH_TASK_SIZE``
    ids per job."""
    ids = list(ids)
    for start in range(0, len(ids), BATCH_TASK_SIZE):
        _enqueue("entities.tasks.vector_upsert_task", kind, ids[start : start + BATCH_TASK_SIZE])


def vector_rebuild_enqueue(kind: str) -> None:
    """Queue a full rebuild of ``kind``'s index."""
    _enqueue("entities.tasks.vector_rebuild_task", kind)


# --- Batching -------------------------------------------------------------------------
# A command saving hundreds of rows (load_gazetteer, seed_demo) would queue one job per
# row. Inside ``vector_batch()`` the hooks collect ids instead, and one job per kind is
# queued when the block ends.

_state = threading.local()


@contextlib.contextmanager
def vector_batch() -> Iterator[None]:
    """Collect the index updates of the saves committed inside the block; queue them
    as one job per kind at the end. Nested blocks join the outermost one.

    Only saves whose transaction commits inside the block are collected: a save whose
    commit comes later queues its own job as usual (never lost, just not batched).
    """
    if getattr(_state, "pending", None) is not None:
        yield
        return
    _state.pending = pending = {}
    try:
        yield
    finally:
        _state.pending = None
    for kind, ids in pending.items():
        vector_upsert_enqueue(kind, list(dict.fromkeys(ids)))


def _index_changed(kind: str, key) -> None:
    """Queue the index update of one row: the upsert embeds it, or drops it if the row
    is gone."""
    pending = getattr(_state, "pending", None)
    if pending is not None:
        pending.setdefault(kind, []).append(key)
    else:
        vector_upsert_enqueue(kind, [key])


# --- Hooks (registered in apps.py; they run on commit) ----------------------------------


def fact_saved_enqueue(fact_id: int, action: str) -> None:
    """FACT_SAVED_HOOKS entry: index the fact as it now stands ("created", "updated")
    or drop it ("deleted"). A "confirmed" save leaves the text alone."""
    if action == "confirmed":
        return
    _index_changed("facts", fact_id)


def entity_saved_enqueue(entity_id: str) -> None:
    """ENTITY_SAVED_HOOKS entry: names, aliases or description changed, or the entity
    was deleted (then its vector is marked deleted)."""
    _index_changed("entities", entity_id)
