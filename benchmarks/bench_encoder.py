"""The text encoders side by side: sentences/s in batches and one query's latency.

Encoders: all-MiniLM-L6-v2 through sentence-transformers (today's default, bfloat16
where the CPU has it), the same model through ONNX Runtime (float32 and int8,
``kgsite.vectors.onnx``) and the Universal Sentence Encoder multilingual v3
(``MultilingualEmbedder``). Texts: sentences of the three novels in ``../shared``
(batches of 64, two threads) and single queries (one thread). Each MiniLM variant's
vectors are compared with sentence-transformers' float32 vectors (cosine, minimum and
mean): >= 0.99 keeps an index valid, less needs re-embedding under a new signature.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks._django import setup
from benchmarks.shared import shared_path

NOVELS = (
    "adventures-of-sherlock-holmes_pg1661.txt",
    "little-women_pg514.txt",
    "pride-and-prejudice_pg1342.txt",
)
GOAL_BATCH = 2.5  # times today's sentences/s
GOAL_SINGLE = 2.0  # times faster for one query


def _sentences(n: int) -> list[str]:
    out: list[str] = []
    for name in NOVELS:
        text = shared_path("corpus", "gutenberg", name).read_text(encoding="utf-8")
        for paragraph in text.split("\n\n"):
            line = " ".join(paragraph.split())
            if 40 <= len(line) <= 400:
                out.append(line)
    rng = np.random.default_rng(0)
    return [out[i] for i in rng.choice(len(out), size=min(n, len(out)), replace=False)]


def _timed(encoder, texts: list[str], queries: list[str]) -> tuple[float, float, np.ndarray]:
    encoder.encode(texts[:64])  # load and warm up
    started = time.perf_counter()
    vectors = encoder.encode(texts)
    rate = len(texts) / (time.perf_counter() - started)
    latencies = []
    for query in queries:
        started = time.perf_counter()
        encoder.encode([query])
        latencies.append(time.perf_counter() - started)
    return rate, 1000 * float(np.median(latencies)), vectors


def run(quick: bool = False) -> list[dict]:
    setup("encoder")
    from django.conf import settings

    from kgsite.vectors.embedder import MultilingualEmbedder, SentenceTransformerEmbedder
    from kgsite.vectors.onnx import OnnxEmbedder, OnnxInt8Embedder

    texts = _sentences(512 if quick else 2048)
    queries = texts[:50] if quick else texts[:200]
    settings.KGSITE_EMBED_BF16 = False
    reference = SentenceTransformerEmbedder().encode(texts)
    settings.KGSITE_EMBED_BF16 = None  # today's default: bfloat16 where the CPU has it
    encoders = {
        "sentence-transformers (today)": SentenceTransformerEmbedder(),
        "onnx float32": OnnxEmbedder(),
        "onnx int8": OnnxInt8Embedder(),
        "USE multilingual v3": MultilingualEmbedder(),
    }
    rows: list[dict] = []
    base: tuple[float, float] | None = None
    for name, encoder in encoders.items():
        rate, single, vectors = _timed(encoder, texts, queries)
        base = base or (rate, single)
        rows += [
            _row(f"{name}: batch", rate, "sentences/s", base[0], GOAL_BATCH, name),
            _row(f"{name}: one query p50", single, "ms", base[1], GOAL_SINGLE, name, lower=True),
        ]
        if vectors.shape[1] == reference.shape[1]:
            cos = (vectors * reference).sum(axis=1)
            rows.append(
                {
                    "metric": f"{name}: cosine to float32 min / mean",
                    "unit": "",
                    "value": f"{cos.min():.4f} / {cos.mean():.4f}",
                    "goal": ">= 0.99 keeps the index",
                }
            )
    return rows


def _row(metric, value, unit, base, goal, name, lower=False) -> dict:
    speedup = (base / value) if lower else (value / base)
    row = {
        "metric": metric,
        "value": round(value, 2),
        "unit": unit,
        "note": f"{speedup:.2f}x today",
    }
    if not name.startswith("sentence-transformers"):
        row["goal"] = f">= {goal}x today"
        row["ok"] = speedup >= goal
    return row
