"""Issue 16: ingest time against file size, which must grow linearly.

Builds plain-text books of 1, 5, 25 and 50 MB (``KGSITE_BENCH_INGEST_SIZES``, in MB;
``--quick`` 0.2 and 1) from the sentences of the three Gutenberg novels, shuffled with
a seed into paragraphs with no headings (the shape that once made chunking quadratic),
and ingests each through ``book_ingest`` into the same scratch database, deleting it
before the next. Reported per size: wall and CPU seconds, the phases, and CPU seconds
per MB, whose spread across sizes is the linearity check (goal: the largest size costs
at most 1.5 times the smallest per MB).

The offline extractor runs without spaCy's NER (``use_ner=False``) and nothing is
embedded: NER and embedding are linear by construction (per sentence, per chunk) and
would take an hour at 50 MB on two cores, while the steps this measures (parsing,
chunking, candidate and gazetteer extraction, the bulk write) are where super-linear
work hid.
"""

from __future__ import annotations

import os
import random
import re
import sys
import time

from benchmarks._django import setup
from benchmarks.shared import shared_path

SEED = 20261123
SPREAD_GOAL = 1.5
PHASES = ("parse", "extract", "write")


def _sentences() -> list[str]:
    novels = sorted(shared_path("corpus", "gutenberg").glob("*_pg*.txt"))
    text = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in novels)
    text = re.sub(r"\s+", " ", text)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])", text) if len(s) > 20]


def make_book(megabytes: float, sentences: list[str], rng: random.Random) -> str:
    """About ``megabytes`` MB of paragraphs of 3-8 shuffled sentences, no headings."""
    target = int(megabytes * 1_000_000)
    parts: list[str] = []
    size = 0
    while size < target:
        paragraph = " ".join(rng.choice(sentences) for _ in range(rng.randint(3, 8)))
        parts.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(parts)


def run(quick: bool = False) -> list[dict]:
    setup("ingest_sizes")
    # deferred: Django is configured by setup() first
    import books.services as book_services
    from books.extraction.offline import OfflineExtractor

    default = "0.2,1" if quick else "1,5,25,50"
    sizes = [float(s) for s in os.environ.get("KGSITE_BENCH_INGEST_SIZES", default).split(",")]
    # The offline extractor without NER (see the module docstring).
    book_services.get_extractor = lambda _name=None: OfflineExtractor(use_ner=False)
    sentences = _sentences()
    # Untimed warm-up: the first ingest in a process loads models and builds caches.
    warm = book_services.book_ingest(
        data=make_book(0.1, sentences, random.Random(SEED - 1)).encode(),
        filename="warm-up.txt",
        embed=False,
    )
    book_services.book_delete(book=warm.book)
    rows: list[dict] = []
    per_mb: list[float] = []
    for megabytes in sizes:
        text = make_book(megabytes, sentences, random.Random(SEED))
        data = text.encode("utf-8")
        started, cpu_started = time.perf_counter(), time.process_time()
        result = book_services.book_ingest(
            data=data, filename=f"size-{megabytes:g}mb.txt", title=f"{megabytes:g} MB", embed=False
        )
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        mb = len(data) / 1e6
        per_mb.append(cpu / mb)
        phases = ", ".join(f"{p} {result.timings.get(p, 0.0):.1f}" for p in PHASES)
        print(f"  {mb:.1f} MB: {wall:.1f} s wall, {cpu:.1f} s CPU ({phases})", file=sys.stderr)
        rows.append(
            {
                "benchmark": "ingest sizes",
                "metric": f"{mb:.1f} MB, wall / CPU",
                "value": f"{wall:.1f} / {cpu:.1f}",
                "unit": "s",
                "goal": "",
                "note": f"{cpu / mb:.2f} CPU s per MB; phases (s): {phases}; "
                f"{result.chunks:,} chunks, {result.mentions:,} mentions",
            }
        )
        book_services.book_delete(book=result.book)
    spread = max(per_mb) / min(per_mb)
    rows.append(
        {
            "benchmark": "ingest sizes",
            "metric": "CPU per MB, largest size / smallest",
            "value": round(per_mb[-1] / per_mb[0], 2),
            "unit": "x",
            "goal": f"<= {SPREAD_GOAL}",
            "ok": per_mb[-1] / per_mb[0] <= SPREAD_GOAL,
            "note": f"max/min over all sizes {spread:.2f}",
        }
    )
    return rows
