"""Vectors of short batches shared between processes through Django's cache (Redis in
production), so a text is embedded once however many processes need it (issue 25).

A new fact is embedded by the web process (its near-duplicate search), then by a
worker (the index upsert) and by another (the background contradiction check): three
encodings of one sentence on the same CPUs that answer the requests. With the cache the
worker and the check read the vector the request computed. Keys are the embedder's
signature and the text's hash, so another model never reads these vectors. Large
batches (a rebuild, a book) bypass the cache: their texts are seen once. A cache that
fails is ignored: the texts are embedded as without it.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence

import numpy as np
from django.core.cache import cache

logger = logging.getLogger(__name__)

# Batches up to this many texts go through the cache (a request's, a task's).
CACHE_MAX_BATCH = 64
# A vector is kept an hour: long enough for the queued jobs of the write that made it.
CACHE_SECONDS = 3600
_PREFIX = "kgsite:emb:"


class SharedCacheEmbedder:
    """Wraps an embedder; every other attribute is the wrapped one's."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def _key(self, text: str) -> str:
        digest = hashlib.blake2b(
            f"{self.inner.signature}\0{text}".encode("utf-8", "surrogatepass"), digest_size=16
        )
        return _PREFIX + digest.hexdigest()

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        texts = list(texts)
        if not texts or len(texts) > CACHE_MAX_BATCH:
            return self.inner.encode(texts, batch_size=batch_size)
        keys = [self._key(t) for t in texts]
        try:
            found = cache.get_many(keys)
        except Exception:  # noqa: BLE001 - a cache outage costs time, never a write
            logger.warning("embedding cache unavailable", exc_info=True)
            found = {}
        rows: list[np.ndarray | None] = [None] * len(texts)
        dim = int(self.inner.dim)
        for i, key in enumerate(keys):
            raw = found.get(key)
            if isinstance(raw, bytes) and len(raw) == 4 * dim:
                rows[i] = np.frombuffer(raw, dtype=np.float32)
        missing = [i for i, row in enumerate(rows) if row is None]
        if missing:
            computed = self.inner.encode([texts[i] for i in missing], batch_size=batch_size)
            for i, row in zip(missing, computed, strict=True):
                rows[i] = np.asarray(row, dtype=np.float32)
            try:
                cache.set_many({keys[i]: rows[i].tobytes() for i in missing}, timeout=CACHE_SECONDS)
            except Exception:  # noqa: BLE001
                logger.warning("embedding cache unavailable", exc_info=True)
        return np.stack(rows).astype(np.float32, copy=False)


_wrapped: dict[int, SharedCacheEmbedder] = {}


def shared(embedder) -> SharedCacheEmbedder:
    """The caching wrapper of this embedder instance (one per instance)."""
    wrapper = _wrapped.get(id(embedder))
    if wrapper is None or wrapper.inner is not embedder:
        wrapper = _wrapped[id(embedder)] = SharedCacheEmbedder(embedder)
    return wrapper
