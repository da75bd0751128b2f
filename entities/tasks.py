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
        _enqueue_current(kind, list(dict.fromkeys(ids)))


def _enqueue_current(kind: str, ids: list) -> None:
    """Queue the index update of rows that may have been edited or deleted: an upsert
    for those still in the database, a delete for the others."""
    from .models import Entity, Fact

    model = {"entities": Entity, "facts": Fact}[kind]
    present: set = set()
    for start in range(0, len(ids), BATCH_TASK_SIZE):
        chunk = ids[start : start + BATCH_TASK_SIZE]
        present.update(model.objects.filter(pk__in=chunk).values_list("pk", flat=True))
    upserts = [i for i in ids if i in present]
    deletes = [i for i in ids if i not in present]
    for start in range(0, len(upserts), BATCH_TASK_SIZE):
        _enqueue(
            "entities.tasks.vector_upsert_task", kind, upserts[start : start + BATCH_TASK_SIZE]
        )
    for start in range(0, len(deletes), BATCH_TASK_SIZE):
        _enqueue(
            "entities.tasks.vector_delete_task", kind, deletes[start : start + BATCH_TASK_SIZE]
        )


def _index_changed(kind: str, key, *, deleted: bool | None = None) -> None:
    """Queue the index update of one row (``deleted`` None: look it up)."""
    pending = getattr(_state, "pending", None)
    if pending is not None:
        pending.setdefault(kind, []).append(key)
    elif deleted is None:
        _enqueue_current(kind, [key])
    else:
        task = "vector_delete_task" if deleted else "vector_upsert_task"
        _enqueue(f"entities.tasks.{task}", kind, [key])


def vector_upsert_enqueue(kind: str, ids: list) -> None:
    _enqueue("entities.tasks.vector_upsert_task", kind, list(ids))


# --- Hooks (registered in apps.py; they run on commit) ----------------------------------


def fact_saved_enqueue(fact_id: int, action: str) -> None:
    """FACT_SAVED_HOOKS entry: index the fact as it now stands ("created", "updated")
    or drop it ("deleted"). A "confirmed" save leaves the text alone."""
    if action == "confirmed":
        return
    _index_changed("facts", fact_id, deleted=action == "deleted")


def entity_saved_enqueue(entity_id: str) -> None:
    """ENTITY_SAVED_HOOKS entry: names, aliases or description changed, or the entity
    was deleted (then its vector is marked deleted)."""
    _index_changed("entities", entity_id)
