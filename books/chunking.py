"""Split sections into retrieval-sized chunks without losing where each came from.

A chunk never crosses a heading: in reference books a heading is an entity's
definition, and the mention index marks the chunk carrying it as the one that
``defines`` the entity. Nor does a chunk cut a sentence unless one sentence alone is
longer than the limit.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from books.parsing import Section


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    """A chunk before it is stored: ``text == document.text[start:end]``.

    ``part`` counts the chunks of one section (0 for the one starting with the
    heading), so only the first can claim the section's definition.
    """

    ordinal: int
    heading_path: tuple[str, ...]
    text: str
    start: int
    end: int
    part: int = 0


# Candidate cut points inside a section, from most to least preferred.
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_SENTENCE = re.compile(r"""[.!?…][)\]"'’”»_*]*(?=\s)""")
_LINE = re.compile(r"\n")
_SPACE = re.compile(r"\s+")
_LEADING_SPACE = re.compile(r"\s*")
# "Mr. Holmes", "e.g. a", "5 ft. of": a full stop that does not end the sentence.
_ABBREVIATIONS = frozenset(
    {
        *("mr", "mrs", "ms", "dr", "st", "jr", "sr", "mt", "rev", "hon", "prof"),
        *("capt", "col", "gen", "lt", "sgt", "vs", "etc", "e.g", "i.e", "cf"),
        *("vol", "ch", "pp", "fig", "approx", "ft", "lb", "lbs", "oz"),
    }
)
_WORD_BEFORE = re.compile(r"([\w.]+)$")


def chunk_sections(sections: Iterable[Section], *, max_chars: int) -> list[ChunkDraft]:
    """Chunks of at most ``max_chars`` characters, numbered across the whole document.

    A heading with no body of its own ("# Druid" right before "### Class Features")
    still gets its chunk: it is where the thing it names is defined.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    chunks: list[ChunkDraft] = []
    for section in sections:
        for part, (lo, hi) in enumerate(_split(section.text, max_chars)):
            chunks.append(
                ChunkDraft(
                    ordinal=len(chunks),
                    heading_path=section.heading_path,
                    text=section.text[lo:hi],
                    start=section.start + lo,
                    end=section.start + hi,
                    part=part,
                )
            )
    return chunks


def _split(text: str, max_chars: int) -> list[tuple[int, int]]:
    """(start, end) spans of ``text``, trimmed of surrounding whitespace."""
    end = len(text.rstrip())
    pos = len(text) - len(text.lstrip())
    if end - pos <= max_chars:
        return [(pos, end)] if end > pos else []
    paragraphs = [m.start() for m in _PARAGRAPH.finditer(text, 0, end)]
    sentences = _sentence_ends(text, end)
    lines = [m.start() for m in _LINE.finditer(text, 0, end)]
    spaces = [m.start() for m in _SPACE.finditer(text, 0, end)]
    spans: list[tuple[int, int]] = []
    while end - pos > max_chars:
        limit = pos + max_chars
        cut = (
            _last_between(paragraphs, pos + max_chars // 2, limit)
            or _last_between(sentences, pos, limit)
            or _last_between(paragraphs, pos, limit)
            or _last_between(lines, pos, limit)
            or _last_between(spaces, pos, limit)
            or limit  # one "word" longer than the limit: nothing better exists
        )
        piece_end = pos + len(text[pos:cut].rstrip())
        spans.append((pos, piece_end))
        # Skip the whitespace after the cut without copying the rest of the section
        # (one huge section, a book without headings, made this quadratic).
        pos = _LEADING_SPACE.match(text, cut, end).end()
    if end > pos:
        spans.append((pos, end))
    return spans


def _sentence_ends(text: str, end: int) -> list[int]:
    """Offsets just after sentence-final punctuation, skipping abbreviations and
    table rows (a full stop inside a table cell does not end a row)."""
    ends: list[int] = []
    row = None  # whether the current line is a table row, read once per line
    searched = 0  # the line start is tracked forward: text without line breaks stays linear
    for match in _SENTENCE.finditer(text, 0, end):
        newline = text.rfind("\n", searched, match.start())
        if newline >= 0 or row is None:
            # The line's first non-blank character (before this punctuation mark, which
            # is not blank): one look per line, not a copy of the line per full stop.
            first = _LEADING_SPACE.match(text, newline + 1, match.start()).end()
            row = text.startswith("|", first)
        searched = match.start()
        if row:
            continue
        if text[match.start()] == ".":
            word = _WORD_BEFORE.search(text, max(0, match.start() - 12), match.start())
            if word and (
                word.group(1).lower().rstrip(".") in _ABBREVIATIONS
                or len(word.group(1)) == 1
                and word.group(1).isupper()  # an initial: "J. Watson"
            ):
                continue
        ends.append(match.end())
    return ends


# Lines that stand alone whatever their punctuation: headings and table rows end at
# the line's end; a list item or quote starts a new sentence.
_LINE_BLOCK = re.compile(
    r"^[ \t]*(?:(?P<whole>#{1,6}(?=[ \t\n])|\|)|[-*+][ \t]|\d+[.)][ \t]|>)", re.M
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, trimmed of surrounding whitespace.

    Sentences end at their final punctuation (not after "Mr." or an initial), at a
    paragraph break, and at the end of the text; a heading line or a table row is a
    sentence of its own, and a list item starts a new one.
    """
    cuts = set(_sentence_ends(text, len(text)))
    cuts.update(m.end() for m in _PARAGRAPH.finditer(text))
    for match in _LINE_BLOCK.finditer(text):
        cuts.add(match.start())
        if match.group("whole"):
            line_end = text.find("\n", match.start())
            cuts.add(len(text) if line_end < 0 else line_end)
    cuts.add(len(text))
    spans: list[tuple[int, int]] = []
    previous = 0
    for cut in sorted(cuts):
        piece = text[previous:cut]
        stripped = piece.strip()
        if stripped:
            lo = previous + len(piece) - len(piece.lstrip())
            spans.append((lo, lo + len(stripped)))
        previous = cut
    return spans


def _last_between(points: list[int], low: int, high: int) -> int | None:
    """The largest point p with low < p <= high, or None."""
    index = bisect.bisect_right(points, high) - 1
    if index >= 0 and points[index] > low:
        return points[index]
    return None
