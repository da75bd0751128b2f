"""Issue 4: book ingestion speed, offline extractor, real MiniLM embeddings.

Ingests the whole SRD (20 chapter files, 1.5 MB) and then three Gutenberg novels
(2.3 MB) into a scratch database through ``book_ingest``, exactly as ``ingest_book
--sync`` does, and reports per corpus: wall time, words per second, and the phases
(parse, extract, write, embed). Goal: the whole SRD in under 60 s. The time until
the books are queryable (everything but "embed") is reported separately, because
embedding runs after the write commits and could move to its own job.

It also runs ``eval_defines`` on the SRD dev set and reports recall and precision.
It also ingests the three technical documents of ``corpus/foreign`` (a PDF manual, a
Markdown API reference, plain-text release notes).
``--quick`` ingests three SRD chapters and one novel.

The shared corpus is found beside the checkout (``../shared``); set
``KGSITE_SHARED_DIR`` to point elsewhere.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

from benchmarks._django import setup
from benchmarks.shared import shared_path

SRD_GOAL_S = 60.0
PHASES = ("parse", "extract", "write", "embed")


def _ingest_all(paths: list[Path]) -> dict:
    from books.services import book_ingest

    totals = dict.fromkeys(PHASES, 0.0)
    words = chars = chunks = mentions = 0
    started = time.perf_counter()
    for path in paths:
        result = book_ingest(path=path, extractor="offline")
        for phase in PHASES:
            totals[phase] += result.timings.get(phase, 0.0)
        words += result.words
        chars += result.book.char_count
        chunks += result.chunks
        mentions += result.mentions
        print(
            f"  {path.name}: {result.chunks} chunks, "
            + ", ".join(f"{k} {v:.1f}s" for k, v in result.timings.items()),
            file=sys.stderr,
            flush=True,
        )
    wall = time.perf_counter() - started
    return {
        "wall": wall,
        "words": words,
        "chars": chars,
        "chunks": chunks,
        "mentions": mentions,
        **totals,
    }


def _rows(name: str, stats: dict, goal: float | None) -> list[dict]:
    bench = f"ingest {name}"
    ready = stats["wall"] - stats["embed"]
    rows = [
        {
            "benchmark": bench,
            "metric": "total (parse+extract+write+embed)",
            "value": round(stats["wall"], 1),
            "unit": "s",
            "goal": f"< {goal:.0f}" if goal else "",
            **({"ok": stats["wall"] < goal} if goal else {}),
        },
        {
            "benchmark": bench,
            "metric": "until queryable (without embed)",
            "value": round(ready, 1),
            "unit": "s",
            "goal": "",
        },
        {
            "benchmark": bench,
            "metric": "words per second (total)",
            "value": round(stats["words"] / stats["wall"]),
            "unit": "words/s",
            "goal": "",
        },
        {
            "benchmark": bench,
            "metric": "size",
            "value": f"{stats['chars'] / 1e6:.2f} MB, {stats['words']:,} words, "
            f"{stats['chunks']:,} chunks, {stats['mentions']:,} mentions",
            "unit": "",
            "goal": "",
        },
    ]
    for phase in PHASES:
        rows.append(
            {
                "benchmark": bench,
                "metric": f"phase {phase}",
                "value": round(stats[phase], 2),
                "unit": "s",
                "goal": "",
            }
        )
    return rows


def run(quick: bool = False) -> list[dict]:
    setup("ingest")
    from books.selectors import defines_evaluate
    from kgsite.vectors.embedder import get_embedder

    get_embedder().encode(["warm up"])  # model load is paid once per worker, not per book
    from entities.extraction import spacy_nlp

    spacy_nlp()

    srd = sorted(shared_path("corpus", "srd").glob("*.md"))
    novels = sorted(shared_path("corpus", "gutenberg").glob("*_pg*.txt"))  # not SOURCES.txt
    if quick:
        srd = [p for p in srd if p.name[:2] in {"11", "15", "16"}]
        novels = novels[:1]
    rows: list[dict] = []
    srd_stats = _ingest_all(srd)
    label = "SRD (3 chapters)" if quick else "SRD"
    rows += _rows(label, srd_stats, None if quick else SRD_GOAL_S)
    if not quick:
        with shared_path("eval", "srd_defines_dev.tsv").open(
            encoding="utf-8", newline=""
        ) as handle:
            result = defines_evaluate(rows=list(csv.DictReader(handle, delimiter="\t")))
        rows += [
            {
                "benchmark": "ingest SRD",
                "metric": "eval_defines recall",
                "value": round(result.recall, 3),
                "unit": "",
                "goal": ">= 0.95",
                "ok": result.recall >= 0.95,
            },
            {
                "benchmark": "ingest SRD",
                "metric": "eval_defines precision",
                "value": round(result.precision, 3),
                "unit": "",
                "goal": ">= 0.95",
                "ok": result.precision >= 0.95,
            },
        ]
    novel_stats = _ingest_all(novels)
    rows += _rows(f"{len(novels)} novels", novel_stats, None)
    technical = sorted(
        p for p in shared_path("corpus", "foreign").glob("*") if p.suffix in (".pdf", ".md", ".txt")
    )
    technical = [p for p in technical if p.name != "SOURCES.txt"]
    if technical and not quick:
        rows += _rows(f"{len(technical)} technical documents", _ingest_all(technical), None)
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(row)
