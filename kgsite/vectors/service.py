"""The public face of the vectors room: other apps call these, never hnswlib directly.

This room knows no app. Apps register their kinds from ``ready()`` with
``register_kind(name, rows, ...)`` where ``rows(ids)`` yields (id, text) pairs (entities
registers "facts" and "entities", books registers "chunks"); a kind whose vectors are
computed elsewhere passes ``vectors=`` as well (see ``index.VectorKind``).

Work too large for a request goes to django-q2: the task functions are the write
functions below themselves (``vector_upsert``, ``vector_rebuild``), queued by
``vector_upsert_enqueue``/``vector_rebuild_enqueue``, and ``vector_batch()`` folds the
updates of a bulk command into one job per kind.

Every hit is re-checked against its database row before it is returned: ids whose row
is gone are dropped (and marked deleted in the index), and a hit whose text changed
since it was embedded is re-embedded and re-scored. So a deletion or edit that bypassed
the task queue can never surface stale results; deleting through ``vector_delete`` just
frees the slot sooner.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
from django.conf import settings
from django_q import tasks as queue

from kgsite.errors import InvalidInput
from kgsite.jobs import routine_job_options

from . import index as index_module
from .backend import VectorBackend, backend_name
from .embedder import get_embedder
from .index import KINDS, Key, Progress, VectorIndex, text_hash
from .pgvector import PgVectorIndex
from .shared_cache import shared

logger = logging.getLogger(__name__)

# --- Index instances --------------------------------------------------------------------


def _embedder_for(kind):
    """Text kinds share the configured embedder; vector kinds bring their own vectors."""
    return None if kind.vectors is not None else shared(get_embedder())


_lock = threading.Lock()
_indexes: dict[tuple[str, ...], VectorBackend] = {}


def _make_index(kind: str, backend: str) -> VectorBackend:
    if backend == "pgvector":
        return PgVectorIndex(KINDS[kind], _embedder_for(KINDS[kind]), queue=_QUEUE)
    directory = Path(settings.KGSITE_VECTOR_DIR)
    return VectorIndex(KINDS[kind], directory, _embedder_for(KINDS[kind]), queue=_QUEUE)


def vector_index(kind: str) -> VectorBackend:
    """This process's index of ``kind`` (one per kind, backend, place and embedder)."""
    if kind not in KINDS:
        raise InvalidInput(f"unknown vector kind '{kind}'", field="kind")
    backend = backend_name()
    place = settings.DATABASES["default"]["NAME"] if backend == "pgvector" else ""
    key = (kind, backend, str(place or settings.KGSITE_VECTOR_DIR), settings.KGSITE_EMBEDDER)
    index = _indexes.get(key)
    if index is None or index.kind is not KINDS[kind]:
        with _lock:
            index = _indexes.get(key)
            if index is None or index.kind is not KINDS[kind]:
                index = _indexes[key] = _make_index(kind, backend)
    return index


def vector_indexes_reset() -> None:
    """Forget every in-memory index (tests; the files stay)."""
    with _lock:
        _indexes.clear()


# --- Writes -----------------------------------------------------------------------------


def vector_upsert(kind: str, ids: Sequence[Key]) -> int:
    """Index these rows as the database has them now (new, edited or deleted)."""
    return vector_index(kind).upsert(list(ids))


def vector_delete(kind: str, ids: Sequence[Key]) -> int:
    """Mark ids deleted (call after deleting rows; search also drops vanished rows)."""
    return vector_index(kind).delete(list(ids))


def vector_rebuild(kind: str, progress: Progress | None = None) -> int:
    """Re-embed every row of ``kind`` into a fresh index; returns the number indexed."""
    return vector_index(kind).rebuild(progress)


# --- Reads ------------------------------------------------------------------------------

_QUERY_CACHE_SIZE = 256
_query_cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_query_lock = threading.Lock()


def embed_texts(texts: Sequence[str]) -> np.ndarray:
    """Unit-length float32 embeddings, one row per text (cosine = dot product)."""
    return shared(get_embedder()).encode(list(texts))


def embed_query(text: str) -> np.ndarray:
    """One text's embedding; repeated queries (agents re-ask) come from a small LRU."""
    embedder = get_embedder()
    key = (embedder.signature, text)
    with _query_lock:
        cached = _query_cache.get(key)
        if cached is not None:
            _query_cache.move_to_end(key)
            return cached
    vector = shared(embedder).encode([text])[0]
    with _query_lock:
        _query_cache[key] = vector
        while len(_query_cache) > _QUERY_CACHE_SIZE:
            _query_cache.popitem(last=False)
    return vector


def query_cache_clear() -> None:
    """Forget the cached query vectors (benchmarks time the embedding of every query)."""
    with _query_lock:
        _query_cache.clear()


def verify_hits(
    kind: str, vector: np.ndarray, scored: dict[Key, float], texts: dict[Key, str]
) -> dict[Key, float]:
    """Keep hits whose row exists and whose text is what was embedded; fix the others.

    ``texts`` holds the current text of every hit that still exists.
    """
    index = vector_index(kind)
    gone = [key for key in scored if key not in texts]
    known = index.hashes([key for key in scored if key in texts])
    stale = [key for key in scored if key in texts and known.get(key) != text_hash(texts[key])]
    if gone:
        index.delete(gone)
    if stale:
        index.upsert(stale)
    result = {key: score for key, score in scored.items() if key in texts}
    if stale:
        result.update(index.scores(vector, stale))
    return result


def search_vector(
    kind: str,
    vector: np.ndarray,
    k: int,
    *,
    filter_ids: Iterable[Key] | None = None,
) -> list[tuple[Key, float]]:
    """Raw nearest neighbours from the index (not re-checked against the database)."""
    index = vector_index(kind)
    if filter_ids is not None:
        filter_ids = [index.kind.key_type(i) for i in filter_ids]
    return index.search(vector, k, filter_keys=filter_ids)


def similar_items(
    kind: str,
    text: str,
    k: int,
    min_score: float = 0.0,
    filter_ids: Iterable[Key] | None = None,
) -> list[tuple[Key, float]]:
    """The ``k`` items most similar to ``text`` as (id, cosine), best first."""
    if k <= 0 or not text or not text.strip():
        return []
    vector = embed_query(text)
    hits = search_vector(kind, vector, k, filter_ids=filter_ids)
    if not hits:
        return []
    scored = dict(hits)
    texts = dict(vector_index(kind).kind.fetch(list(scored)))
    scored = verify_hits(kind, vector, scored, texts)
    # Ties (two items saying the same) by id in its own order: fact 2 before fact 10.
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(key, score) for key, score in ranked if score >= min_score][:k]


# --- The queue (django-q2) ------------------------------------------------------------------

VECTOR_GROUP = "vectors"
# Ids per queued job when a batch is flushed.
BATCH_TASK_SIZE = 1000


def _enqueue(func: Callable, *args) -> None:
    """Queue a job; a broken queue must never undo or fail the save that triggered it
    (search re-checks rows, and ``rebuild_vectors`` restores the index)."""
    try:
        queue.async_task(func, *args, group=VECTOR_GROUP, **routine_job_options())
    except Exception:
        logger.exception("could not enqueue %s%r", getattr(func, "__name__", func), args)


def vector_upsert_enqueue(kind: str, ids: Iterable[Key]) -> None:
    """Queue upserts of these ids (added, edited or deleted rows), ``BATCH_TASK_SIZE``
    ids per job."""
    ids = list(ids)
    for start in range(0, len(ids), BATCH_TASK_SIZE):
        _enqueue(vector_upsert, kind, ids[start : start + BATCH_TASK_SIZE])


def vector_rebuild_enqueue(kind: str) -> None:
    """Queue a full rebuild of ``kind``'s index."""
    _enqueue(vector_rebuild, kind)


class _Queue:
    """What an index hands to the queue (see ``index.IndexQueue``)."""

    def upsert_later(self, kind: str, keys: list[Key]) -> None:
        vector_upsert_enqueue(kind, keys)

    def rebuild_later(self, kind: str) -> None:
        vector_rebuild_enqueue(kind)


_QUEUE = _Queue()

# A command saving hundreds of rows (load_gazetteer, seed_demo) would queue one job per
# row. Inside ``vector_batch()`` changes are collected instead, and one job per kind is
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
        _vector_update(kind, list(dict.fromkeys(ids)))


def vector_changed(kind: str, keys: Iterable[Key]) -> None:
    """Update the index for these rows (call on commit): the upsert embeds them, or
    drops them if they are gone. Inside ``vector_batch()`` they join the batch.

    hnswlib: always through the task queue. pgvector: written here, by the process
    that committed the rows (no queue, no window in which another host misses them),
    unless there are more than ``index.RECONCILE_INLINE`` of them; a failure falls back
    to the queue and never fails the save.
    """
    pending = getattr(_state, "pending", None)
    if pending is not None:
        pending.setdefault(kind, []).extend(keys)
    else:
        _vector_update(kind, list(keys))


# Set by a process that must read its own writes with no worker running (mcp_serve):
# its saves write their vectors themselves (under the index's cross-process lock).
_inline = threading.Event()


def vector_writes_inline(enabled: bool = True) -> None:
    """Write this process's index updates on commit instead of queueing them."""
    if enabled:
        _inline.set()
    else:
        _inline.clear()


def _vector_update(kind: str, keys: list[Key]) -> None:
    if not keys:
        return
    inline = vector_index(kind).writes_inline or _inline.is_set()
    if len(keys) <= index_module.RECONCILE_INLINE and inline:
        try:
            vector_upsert(kind, keys)
            return
        except Exception:
            logger.exception("could not store vectors of %s %r; queueing them", kind, keys[:5])
    vector_upsert_enqueue(kind, keys)
