"""Kinds of indexed items and what every vector backend shares: where a kind's rows come
from, text hashes, the HNSW settings, and the errors an index reports."""

from __future__ import annotations

import base64
import hashlib
import inspect
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from django.conf import settings

from .embedder import Embedder, get_embedder

logger = logging.getLogger(__name__)

Key = int | str
# rows(ids): (id, text) pairs for those ids, or for every indexable row when ids is None.
RowSource = Callable[[Sequence[Key] | None], Iterable[tuple[Key, str]]]
# vectors(pairs): one row per (id, text) pair, for kinds whose vectors come from elsewhere.
VectorSource = Callable[[Sequence[tuple[Key, str]]], np.ndarray]
Progress = Callable[[int, int], None]


class IndexQueue(Protocol):
    """Where an index sends work too large to do in the calling request."""

    def upsert_later(self, kind: str, keys: list[Key]) -> None: ...

    def rebuild_later(self, kind: str) -> None: ...


@dataclass(frozen=True)
class VectorKind:
    """A kind of item with its own index: where its rows come from in the database.

    A text kind (the default) has its texts embedded by the embedder. A kind whose
    vectors are computed elsewhere (a trained model's entity vectors) gives ``vectors``
    and ``dim``; its ``rows`` then yield a version string per id instead of a text (the
    index re-asks for a vector whenever that string changes) and ``signature`` names
    the model, so an index built by another model is rebuilt.
    """

    name: str
    rows: RowSource
    # Every id currently in the database (cheap: ids only); defaults to rows(None).
    keys: Callable[[], Iterable[Key]] | None = None
    count: Callable[[], int] | None = None
    key_type: type = int
    vectors: VectorSource | None = None
    dim: int | None = None
    signature: str | None = None

    def all_keys(self) -> set[Key]:
        if self.keys is not None:
            return {self.key_type(k) for k in self.keys()}
        return {self.key_type(k) for k, _text in self.rows(None)}

    def total(self) -> int | None:
        return self.count() if self.count is not None else None

    def fetch(self, ids: Sequence[Key] | None) -> list[tuple[Key, str]]:
        return [(self.key_type(k), text) for k, text in self.rows(ids)]


KINDS: dict[str, VectorKind] = {}


def register_kind(
    name: str,
    rows: RowSource | Callable[[], Iterable[tuple[Key, str]]],
    *,
    keys: Callable[[], Iterable[Key]] | None = None,
    count: Callable[[], int] | None = None,
    key_type: type = int,
    vectors: VectorSource | None = None,
    dim: int | None = None,
    signature: str | None = None,
) -> VectorKind:
    """Add (or replace) a kind. ``rows`` may also take no argument: it is then filtered.

    Give ``vectors``, ``dim`` and ``signature`` for a kind whose vectors are computed
    elsewhere (see ``VectorKind``)."""
    if vectors is not None and (dim is None or not signature):
        raise ValueError(f"vector kind {name!r} needs dim and signature with vectors")
    if not _takes_argument(rows):
        every = rows

        def rows(ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:  # noqa: F811
            wanted = None if ids is None else {key_type(i) for i in ids}
            return ((k, t) for k, t in every() if wanted is None or key_type(k) in wanted)

    kind = VectorKind(
        name=name,
        rows=rows,
        keys=keys,
        count=count,
        key_type=key_type,
        vectors=vectors,
        dim=dim,
        signature=signature,
    )
    KINDS[name] = kind
    return kind


def register_model_kind(name: str, model: type, text_field: str = "text", **options) -> VectorKind:
    """Add a kind whose rows are one model's (primary key, ``text_field``), the common
    case (facts, chunks, episodes): rows read in primary-key order, keys without texts,
    the table's count. ``options`` are :func:`register_kind`'s."""

    def rows(ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:
        qs = model.objects.order_by("pk")
        if ids is not None:
            qs = qs.filter(pk__in=list(ids))
        return qs.values_list("pk", text_field).iterator(chunk_size=2000)

    def keys() -> Iterable[Key]:
        return model.objects.order_by().values_list("pk", flat=True).iterator(chunk_size=10_000)

    return register_kind(name, rows, keys=keys, count=model.objects.count, **options)


def _takes_argument(func: Callable) -> bool:
    try:
        return bool(inspect.signature(func).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return True


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _encode_vec(vec: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vec, dtype=np.float32).tobytes()).decode()


def _decode_vec(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def vector_source(kind: VectorKind, embedder: Embedder | None) -> tuple[Embedder | None, int, str]:
    """Where a kind's vectors come from, for every backend: the embedder (none for a
    kind that brings its own vectors), their dimension and the signature an index
    built from them carries."""
    if kind.vectors is not None:
        return None, int(kind.dim), str(kind.signature)
    embedder = embedder or get_embedder()
    return embedder, embedder.dim, embedder.signature


def hnsw_settings() -> tuple[int, int, int]:
    """HNSW's M, ef_construction and ef_search, as the settings have them now."""
    return (
        int(getattr(settings, "KGSITE_HNSW_M", 16)),
        int(getattr(settings, "KGSITE_HNSW_EF_CONSTRUCTION", 200)),
        int(getattr(settings, "KGSITE_HNSW_EF_SEARCH", 128)),
    )


class IndexUnavailable(Exception):
    """The snapshot on disk cannot be used (missing, corrupt or from another embedder)."""


class JournalDamaged(IndexUnavailable):
    """A complete journal line cannot be read back (torn append, garbage, bad vector)."""
