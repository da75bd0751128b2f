"""What the classifier learns from the rest of the house: sentence embeddings (the pair
model's encoder, the vectors room's index) and known names (the entity table).
``integrity.detection`` stays pure Python and receives these as callables."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string

from entities.extraction import extract_entities
from kgsite.vectors.service import embed_texts

logger = logging.getLogger(__name__)

# The encoders a pair model head may be trained with, by the name settings use.
ENCODERS = {
    "use": "kgsite.vectors.embedder.MultilingualEmbedder",
    "minilm": "kgsite.vectors.embedder.SentenceTransformerEmbedder",
}
# Statements' vectors kept in memory: stored facts are compared again and again.
CACHE_SIZE = 4096


def pair_similarity(a: str, b: str) -> float | None:
    """Embedding cosine of two texts, as the index would see them; None without one."""
    try:
        vectors = embed_texts([a, b])
        return float(vectors[0] @ vectors[1])
    except Exception:  # the classifier works without a similarity
        return None


def entity_mentions(text: str) -> list[tuple[int, int, str]]:
    """Known names in ``text`` as (start, end, entity id), aliases included, so the
    classifier reads "k8s" and "Kubernetes" as one subject once a curator said so."""
    try:
        found = extract_entities(text)
    except Exception:  # the classifier works without the entity table
        return []
    return [(m.start, m.end, m.canonical_id) for m in found if m.canonical_id]


class PairEncoder:
    """The pair model's sentence encoder with a bounded cache of statement vectors.

    Loaded on first use; ``signature`` names the vectors it makes (the model file keeps
    the signature each head was trained with, so a changed encoder is noticed)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._embedder = None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._tokens: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def embedder(self):
        if self._embedder is None:
            self._embedder = import_string(ENCODERS[self.name])()
        return self._embedder

    @property
    def signature(self) -> str:
        return str(self.embedder.signature)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vectors = self.embedder.encode(missing)
            with self._lock:
                for text, vector in zip(missing, vectors, strict=True):
                    self._cache[text] = vector
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        with self._lock:
            found = [self._cache.get(t) for t in texts]
        if any(v is None for v in found):  # evicted meanwhile: encode them again
            return self.embedder.encode(list(texts))
        return np.vstack(found)

    def tokens(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """Each text's token vectors (word alignment), None where the encoder has none:
        the alignment columns then stay neutral."""
        reader = getattr(self.embedder, "token_vectors", None)
        if reader is None:
            return [None] * len(texts)
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._tokens]
        if missing:
            found = reader(missing)
            with self._lock:
                for text, rows in zip(missing, found, strict=True):
                    self._tokens[text] = rows
                while len(self._tokens) > CACHE_SIZE:
                    self._tokens.popitem(last=False)
        with self._lock:
            known = [self._tokens.get(t) for t in texts]
        if any(rows is None for rows in known):  # evicted meanwhile: read them again
            return list(reader(list(texts)))
        return known


_encoders: dict[str, PairEncoder] = {}


def pair_encoder() -> PairEncoder | None:
    """The encoder named by ``KGSITE_PAIR_ENCODER`` (``none``: the model's head trained
    without one), one per process."""
    name = getattr(settings, "KGSITE_PAIR_ENCODER", "use")
    if name not in ENCODERS:
        return None
    if name not in _encoders:
        _encoders[name] = PairEncoder(name)
    return _encoders[name]


def cached_encoder(name: str, cache_dir: Path | None = None):
    """For training: the named encoder with its vectors kept on disk (``var/``), so a
    second training run embeds nothing again. Has a ``signature``."""
    encoder = PairEncoder(name)
    folder = Path(cache_dir or Path(settings.DATA_DIR) / "pair-model")

    def encode(texts: Sequence[str]) -> np.ndarray:
        path = folder / f"{name}.npz"
        known: dict[str, np.ndarray] = {}
        if path.exists():
            data = np.load(path, allow_pickle=False)
            if str(data["signature"]) == encoder.signature:
                known = dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            known.update(zip(missing, encoder.embedder.encode(missing), strict=True))
            folder.mkdir(parents=True, exist_ok=True)
            keys = sorted(known)
            np.savez(
                path,
                texts=np.array(keys),
                vectors=np.vstack([known[k] for k in keys]),
                signature=np.array(encoder.signature),
            )
        return np.vstack([known[t] for t in texts])

    encode.signature = encoder.signature  # type: ignore[attr-defined]
    encode.tokens = encoder.tokens  # type: ignore[attr-defined]
    return encode
