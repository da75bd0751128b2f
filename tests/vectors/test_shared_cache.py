"""One embedding per text across processes (issue 25): short batches go through Django's
cache (Redis in production), keyed by the embedder's signature and the text."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.cache import cache

from kgsite.vectors.embedder import HashingEmbedder
from kgsite.vectors.shared_cache import CACHE_MAX_BATCH, SharedCacheEmbedder


class Counting(HashingEmbedder):
    def __init__(self, signature: str = "counting:1") -> None:
        super().__init__()
        self._signature = signature
        self.seen: list[str] = []

    @property
    def signature(self) -> str:
        return self._signature

    def encode(self, texts, *, batch_size=None):
        self.seen.extend(texts)
        return super().encode(texts, batch_size=batch_size)


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def test_a_text_is_embedded_once_and_read_back_the_same():
    inner = Counting()
    first = SharedCacheEmbedder(inner).encode(["the harbour", "the ledger"])
    # Another process (another wrapper, another instance of the same model).
    other = Counting()
    again = SharedCacheEmbedder(other).encode(["the ledger", "the orbit"])
    assert inner.seen == ["the harbour", "the ledger"]
    assert other.seen == ["the orbit"]
    np.testing.assert_allclose(again[0], first[1])
    np.testing.assert_allclose(again, HashingEmbedder().encode(["the ledger", "the orbit"]))


def test_another_model_never_reads_these_vectors():
    SharedCacheEmbedder(Counting("model-a")).encode(["the harbour"])
    other = Counting("model-b")
    SharedCacheEmbedder(other).encode(["the harbour"])
    assert other.seen == ["the harbour"]


def test_large_batches_bypass_the_cache():
    inner = Counting()
    texts = [f"chunk {i}" for i in range(CACHE_MAX_BATCH + 1)]
    SharedCacheEmbedder(inner).encode(texts)
    SharedCacheEmbedder(inner).encode(texts[:1])
    assert inner.seen == [*texts, texts[0]]


def test_a_broken_cache_costs_time_not_the_vectors(monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(cache, "get_many", broken)
    monkeypatch.setattr(cache, "set_many", broken)
    vectors = SharedCacheEmbedder(Counting()).encode(["the harbour"])
    np.testing.assert_allclose(vectors, HashingEmbedder().encode(["the harbour"]))
