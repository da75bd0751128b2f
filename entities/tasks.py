"""Background jobs of the entity graph (django-q2). They take ids and are idempotent."""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)

VECTOR_GROUP = "vectors"


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


def vector_upsert_enqueue(kind: str, ids: list) -> None:
    _enqueue("entities.tasks.vector_upsert_task", kind, list(ids))


def fact_saved_enqueue(fact_id: int, action: str) -> None:
    """FACT_SAVED_HOOKS entry (runs on commit): index the fact as it now stands.

    Any action works: the upsert reads the row, so an edit re-embeds the text, and a
    fact deleted meanwhile is marked deleted. A "confirmed" save leaves the text alone.
    """
    if action == "confirmed":
        return
    _enqueue("entities.tasks.vector_upsert_task", "facts", [fact_id])


def entity_saved_enqueue(entity_id: str) -> None:
    """ENTITY_SAVED_HOOKS entry: names, aliases or description changed."""
    _enqueue("entities.tasks.vector_upsert_task", "entities", [entity_id])
