"""Markdown syntax the readers share: where a line's code spans are, where its HTML
comments end. Written as scans, not backtracking patterns, so any line reads in time
linear in its length (issue 21)."""

from __future__ import annotations

import re

_TICKS = re.compile(r"`+")


def code_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of the line's code spans, as CommonMark reads them: a run of
    backticks opens a span that the next run of the same length closes; a run nothing
    closes is text. A pattern with a back-reference (``(`+).*?\\1``) took time quadratic
    in a long run of backticks; this pairs the runs in one pass from the right."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    closer: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}  # run length -> the nearest later run of that length
    for i in range(len(runs) - 1, -1, -1):
        width = runs[i][1] - runs[i][0]
        closer[i] = last.get(width)
        last[width] = i
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        j = closer[i]
        if j is None:
            i += 1
            continue
        spans.append((runs[i][0], runs[j][1]))
        i = j + 1
    return spans


def comments_stripped(text: str) -> str:
    """``text`` without its HTML comments (``<!--`` to the first ``-->``); an opening
    nothing closes stays. One scan (``<!--.*?-->`` re-read the rest of the text from
    every unclosed opening)."""
    out: list[str] = []
    i = 0
    while (start := text.find("<!--", i)) != -1:
        end = text.find("-->", start + 4)
        if end == -1:
            break
        out.append(text[i:start])
        i = end + 3
    out.append(text[i:])
    return "".join(out)
