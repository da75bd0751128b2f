"""Issue 21: candidate extraction stays linear on pathological layouts.

A man page's keyword list (an unindented line followed by lines indented by many
spaces) made the C-declaration pattern backtrack exponentially: 19 s for six lines,
and a 52 KB page never finished. This times ``book_candidates`` (every pattern of the
candidate pass) on such pages of growing size; time per KB must stay flat.
"""

from __future__ import annotations

import time

from benchmarks._django import setup

SIZES = (13_000, 26_000, 52_000, 104_000)
# Per-KB time of the largest page over that of the smallest: linear code stays near 1.
SCALING_GOAL = 3.0


def man_page_like(size: int) -> str:
    parts = ["SYNOPSIS\n\nint tty_flush (int fd, const char *queue);\n\nDESCRIPTION\n\n"]
    n = 0
    total = len(parts[0])
    while total < size:
        part = (
            f"keywords{n}\n"
            + "".join(f"                          value{n}x{k}  other{k}\n" for k in range(8))
            + "\n"
        )
        parts.append(part)
        total += len(part)
        n += 1
    return "".join(parts)


def _row(metric: str, value: object, unit: str, goal: str = "", ok: bool | None = None) -> dict:
    row = {"benchmark": "extraction_regex", "metric": metric, "value": value, "unit": unit}
    return {**row, "goal": goal, **({} if ok is None else {"ok": ok})}


def run(quick: bool = False) -> list[dict]:
    setup("extraction_regex")
    from books.chunking import chunk_sections
    from books.extraction.candidates import book_candidates
    from books.parsing import parse_document

    rows: list[dict] = []
    per_kb: list[float] = []
    for size in SIZES[:3] if quick else SIZES:
        document = parse_document(man_page_like(size).encode(), fmt="text")
        chunks = chunk_sections(document.sections, max_chars=size)
        started = time.perf_counter()
        book_candidates(chunks)
        seconds = time.perf_counter() - started
        per_kb.append(seconds / (size / 1000))
        rows.append(_row(f"candidates of a {size // 1000} KB man-page-like text", seconds, "s"))
    scaling = per_kb[-1] / per_kb[0]
    rows.append(
        _row(
            "time per KB, largest over smallest",
            scaling,
            "ratio",
            f"< {SCALING_GOAL:g}",
            scaling < SCALING_GOAL,
        )
    )
    return rows
