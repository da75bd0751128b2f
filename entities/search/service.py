"""The public face of semantic search: other apps call these, never hnswlib directly.

Kinds "facts" and "entities" are registered here; the books app registers "chunks"
with ``register_kind("chunks", rows)`` where ``rows(ids)`` yields (id, text) pairs.

Every hit is re-checked against its database row before it is returned: ids whose row
is gone are dropped (and marked deleted in the index), and a hit whose text changed
since it was embedded is re-embedded and re-scored. So a deletion or edit that bypassed
the task queue can never surface stale results; deleting through ``vector_delete`` just
frees the slot sooner.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from django.conf import settings

from .embedder import get_embedder
from .index import KINDS, Key, Progress, VectorIndex, register_kind, text_hash

# --- Kinds ----------------------------------------------------------------------------


def _fact_rows(ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:
    from entities.models import Fact

    qs = Fact.objects.order_by("pk")
    if ids is not None:
        qs = qs.filter(pk__in=list(ids))
    return qs.values_list("pk", "text").iterator(chunk_size=2000)


def _fact_keys() -> Iterable[Key]:
    from entities.models import Fact

    return Fact.objects.order_by().values_list("pk", flat=True).iterator(chunk_size=10_000)


def _fact_count() -> int:
    from entities.models import Fact

    return Fact.objects.count()


def entity_text(name: str, entity_type: str, aliases: Iterable[str], description: str) -> str:
    """What an entity "says" for similarity: its names, type and description."""
    parts = [name]
    others = [a for a in aliases if a]
    if others:
        parts.append(f"({', '.join(others)})")
    if entity_type:
        parts.append(f"[{entity_type.replace('_', ' ')}]")
    text = " ".join(parts)
    return f"{text}: {description}" if description else text


def _entity_rows(ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:
    from entities.models import Alias, Entity

    qs = Entity.objects.order_by("pk")
    aliases = Alias.objects.order_by("alias_norm")
    if ids is not None:
        qs = qs.filter(pk__in=list(ids))
        aliases = aliases.filter(entity_id__in=list(ids))
    by_entity: dict[str, list[str]] = {}
    for entity_id, alias in aliases.values_list("entity_id", "alias"):
        by_entity.setdefault(entity_id, []).append(alias)
    for pk, name, entity_type, description in qs.values_list(
        "pk", "canonical_name", "type", "description"
    ):
        yield pk, entity_text(name, entity_type, by_entity.get(pk, ()), description)


def _entity_keys() -> Iterable[Key]:
    from entities.models import Entity

    return Entity.objects.order_by().values_list("pk", flat=True)


def _entity_count() -> int:
    from entities.models import Entity

    return Entity.objects.count()


register_kind("facts", _fact_rows, keys=_fact_keys, count=_fact_count, key_type=int)
register_kind("entities", _entity_rows, keys=_entity_keys, count=_entity_count, key_type=str)


# --- Index instances --------------------------------------------------------------------

_lock = threading.Lock()
_indexes: dict[tuple[str, str, str], VectorIndex] = {}


def vector_index(kind: str) -> VectorIndex:
    """This process's index of ``kind`` (one per kind, directory and embedder)."""
    if kind not in KINDS:
        from kgsite.errors import InvalidInput

        raise InvalidInput(f"unknown vector kind '{kind}'", field="kind")
    directory = Path(settings.KGSITE_VECTOR_DIR)
    key = (kind, str(directory), settings.KGSITE_EMBEDDER)
    index = _indexes.get(key)
    if index is None or index.kind is not KINDS[kind]:
        with _lock:
            index = _indexes.get(key)
            if index is None or index.kind is not KINDS[kind]:
                index = _indexes[key] = VectorIndex(KINDS[kind], directory, get_embedder())
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
    return get_embedder().encode(list(texts))


def embed_query(text: str) -> np.ndarray:
    """One text's embedding; repeated queries (agents re-ask) come from a small LRU."""
    embedder = get_embedder()
    key = (embedder.signature, text)
    with _query_lock:
        cached = _query_cache.get(key)
        if cached is not None:
            _query_cache.move_to_end(key)
            return cached
    vector = embedder.encode([text])[0]
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
    stale = [key for key in scored if key in texts and index.hash_of(key) != text_hash(texts[key])]
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
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1], str(kv[0])))
    return [(key, score) for key, score in ranked if score >= min_score][:k]


def similar_facts(text: str, k: int, min_score: float = 0.0) -> list[tuple[int, float]]:
    """Facts of any status closest in meaning to ``text`` (integrity's duplicate check)."""
    return [(int(key), score) for key, score in similar_items("facts", text, k, min_score)]
