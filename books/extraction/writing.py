"""How a document writes its terms: the case its sentences give a name (a heading in
capitals says nothing of it), the name without a leading article, and whether a number
precedes an occurrence (the unit of a quantity). ``termhood.doc_stats`` counts, these
helpers read one occurrence at a time."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter

from kgsite.text import normalize

_ARTICLE = re.compile(r"^[Tt]he\s+(?=\S)")
# A number a unit may follow (``4 KiB``, ``20ms``).
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_LINE = re.compile(r"[^\n]+")


def _opens_line(text: str, at: int) -> bool:
    """Only blanks before ``at`` on its line (a section's number, a list's); a few
    dozen characters are read back at most."""
    before = text[max(at - 80, 0) : at]
    return not before[before.rfind("\n") + 1 :].strip() and ("\n" in before or at <= 80)


def capitals_lines(text: str) -> list[int]:
    """(start, end) offsets, flattened, of the lines with no small letter (a heading or a
    notice in capitals), in order."""
    spans: list[int] = []
    for line in _LINE.finditer(text):
        if line.group() == line.group().upper():
            spans += [line.start(), line.end()]
    return spans


def _on_capitals_line(spans: list[int], at: int) -> bool:
    return bisect_right(spans, at) % 2 == 1


def how_written(
    written: dict[str, Counter],
    after_number: Counter,
    capitals: list[int],
    key: str,
    text: str,
    tokens: list[tuple[str, int]],
    previous: tuple[str, int] | bool,
    opens: bool,
) -> None:
    """Count how one occurrence (its ``tokens``) is written where its case is the
    writer's choice (not opening a sentence or a line, ``opens``; not on a line with no
    small letter, a heading or a notice in capitals), and whether a number precedes it
    inside a line (a unit: ``4 KiB``; not a section's number)."""
    start = tokens[0][1]
    if not opens and not _on_capitals_line(capitals, start):
        surface = " ".join(t.removesuffix("()") for t, _s in tokens)
        written.setdefault(key, Counter())[surface] += 1
    if previous and _NUMBER.fullmatch(previous[0]) and not _opens_line(text, previous[1]):
        gap = text[previous[1] + len(previous[0]) : start]
        if gap in ("", " ", "\u00a0"):
            after_number[key] += 1


def canonical_display(display: str, written: Counter | None) -> str:
    """The name as the document writes it: without a leading "The", and a name first met
    in capitals (a heading, a notice, a reference to a heading) in the case its
    occurrences inside sentences use most, if that is not capitals
    (``Content-Length``, not ``CONTENT-LENGTH``)."""
    call = display.endswith("()")
    name = display.removesuffix("()")
    if _ARTICLE.match(name) and len(name) > 4:
        name = _ARTICLE.sub("", name)
    if written and name.isupper():
        best, n = written.most_common(1)[0]
        if not best.isupper() and normalize(best) == normalize(name) and n > written[name]:
            name = best
    return name + "()" if call else name
