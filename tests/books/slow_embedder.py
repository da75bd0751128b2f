"""The hashing embedder, slowed down: a worker can be killed while it embeds."""

from __future__ import annotations

import time

from kgsite.vectors.embedder import HashingEmbedder


class SlowEmbedder(HashingEmbedder):
    seconds_per_text = 0.15

    def encode(self, texts, *, batch_size=None):
        time.sleep(self.seconds_per_text * len(texts))
        return super().encode(texts, batch_size=batch_size)
