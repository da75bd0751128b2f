"""The vectors room's storage interface and the choice of backend.

``KGSITE_VECTOR_BACKEND`` names it:

- ``hnswlib`` (default): one hnswlib index per kind under ``KGSITE_VECTOR_DIR`` with
  a journal that other processes of the same host reload (``index.VectorIndex``);
- ``pgvector``: the vectors in PostgreSQL tables with an HNSW cosine index per kind
  (``pgvector.PgVectorIndex``): no files, so web and worker hosts share nothing but
  the database.

Both answer the same calls with the same semantics (search, filter, ``complete``,
reconcile, rebuild); ``service.py`` only talks to this interface.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from .index import Key, Progress, VectorKind

BACKENDS = ("hnswlib", "pgvector")


class VectorBackend(Protocol):
    """One kind's vectors in this process."""

    kind: VectorKind
    # True when a change is written on the spot (after the commit of the row it
    # describes) instead of through the task queue.
    writes_inline: bool

    @property
    def complete(self) -> bool: ...

    @property
    def live_count(self) -> int: ...

    @property
    def location(self) -> str: ...

    def __contains__(self, key: Key) -> bool: ...

    def refresh(self) -> None: ...

    def reconcile(self) -> dict[str, int]: ...

    def upsert(self, keys: Sequence[Key]) -> int: ...

    def delete(self, keys: Sequence[Key]) -> int: ...

    def rebuild(self, progress: Progress | None = None) -> int: ...

    def search(
        self, vector: np.ndarray, k: int, *, filter_keys: Iterable[Key] | None = None
    ) -> list[tuple[Key, float]]: ...

    def scores(self, vector: np.ndarray, keys: Iterable[Key]) -> dict[Key, float]: ...

    def hash_of(self, key: Key) -> str | None: ...

    def hashes(self, keys: Iterable[Key]) -> dict[Key, str]: ...

    def vectors(self) -> tuple[list[Key], np.ndarray]: ...

    def stats(self) -> dict[str, Any]: ...


def backend_name() -> str:
    """The configured backend (the settings refuse pgvector on anything but PostgreSQL)."""
    name = str(getattr(settings, "KGSITE_VECTOR_BACKEND", "hnswlib") or "hnswlib").lower()
    if name not in BACKENDS:
        raise ImproperlyConfigured(
            f"KGSITE_VECTOR_BACKEND={name!r} is unknown; use one of {', '.join(BACKENDS)}"
        )
    return name
