"""Markdown syntax the readers share: where a line's code spans are, where its HTML
comments end. Written as scans, not backtracking patterns, so any line reads in time
linear in its length (issue 21)."""

from __future__ import annotations

import bisect
import re

_TICKS = re.compile(r"`+")
# Python's special names (``__init__``, ``__enter__``): a lowercase identifier between
# double underscores, which CommonMark would read as strong emphasis.
_SPECIAL_NAME = re.compile(r"[a-z][a-z0-9_]*")


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


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # what ``\w`` matches


def emphasis_stripped(text: str) -> str:
    """``text`` with each emphasis span (``*a*``, ``**a**``, ``_a_``, ``__a__``, up to
    three marks) replaced by what it holds, read left to right as the first closing run
    of the same marks after a non-blank; underscores only at a word's edge, as CommonMark
    reads them (``OPT_SORT_KEYS`` stays). A span stays on its line.

    The pattern it replaces (``(\\*{1,3})(\\S(?:.*?\\S)?)\\1``) re-read the rest of the
    line from every mark nothing closed: quadratic, 30 s on a 120 KB heading of
    ``_a _a …``. Here each mark run's closers are listed once and found by bisection."""
    if "*" not in text and "_" not in text:
        return text
    n = len(text)
    closers: dict[tuple[str, int], list[int]] = {}
    for mark in "*_":
        for width in (1, 2, 3):
            run = mark * width
            closers[mark, width] = [
                e
                for e in _find_all(text, run)
                if e > 0
                and not text[e - 1].isspace()
                and not _escaped(text, e)
                and (mark == "*" or e + width == n or not _is_word(text[e + width]))
            ]
    line_end = [n] * (n + 1)
    for i in range(n - 1, -1, -1):
        line_end[i] = i if text[i] == "\n" else line_end[i + 1]
    out: list[str] = []
    i = last = 0
    while i < n:
        span = _span_at(text, i, closers, line_end) if text[i] in "*_" else None
        if span is None:
            i += 1
            continue
        begin, close, end = span
        out += [text[last:i], text[begin:close]]
        i = last = end
    out.append(text[last:])
    return "".join(out)


def _span_at(
    text: str, i: int, closers: dict[tuple[str, int], list[int]], line_end: list[int]
) -> tuple[int, int, int] | None:
    """(held text's start, closing run's start, span's end) of the emphasis opened by the
    marks at ``i``, or None: the longest opening run (up to three) that a run of as many
    marks closes, at its first closing run: "*n* and *k*" holds "n", then "k"."""
    mark, n = text[i], len(text)
    if mark == "_" and i and _is_word(text[i - 1]) or _escaped(text, i):
        return None
    width = 1
    while width < 3 and i + width < n and text[i + width] == mark:
        width += 1
    for k in range(width, 0, -1):
        begin = i + k  # the held text starts here, with a non-blank
        if begin >= n or text[begin].isspace():
            continue
        found = closers[mark, k]
        at = bisect.bisect_left(found, begin + 1)
        if at < len(found) and found[at] <= line_end[begin]:
            if k == 2 and mark == "_" and _SPECIAL_NAME.fullmatch(text, begin, found[at]):
                return None  # ``__enter__`` names Python's method, it stresses nothing
            return begin, found[at], found[at] + k
    return None


def _escaped(text: str, i: int) -> bool:
    """Whether ``text[i]`` follows an odd run of backslashes: a literal character
    (``\\_\\_init\\_\\_``, as an HTML heading's underscores come), never a mark."""
    j = i
    while j and text[j - 1] == "\\":
        j -= 1
    return (i - j) % 2 == 1


def _find_all(text: str, run: str) -> list[int]:
    """Every start of ``run`` in ``text``, overlapping ones included, ascending."""
    starts, i = [], text.find(run)
    while i != -1:
        starts.append(i)
        i = text.find(run, i + 1)
    return starts
