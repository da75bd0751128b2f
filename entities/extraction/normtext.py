"""Text normalised for matching names, with an offset map back to the original.

The gazetteer matches on ``kgsite.text.normalize`` semantics (NFC, full case folding,
whitespace collapsed) but reports offsets into the caller's text: each stage records
where its output came from, and ``NormalizedText.span`` maps a match back.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from kgsite.text import I_WITH_DOT_ABOVE, drop_dot_above_i, turkish_i_plain

# --- Character classes ------------------------------------------------------------------


@dataclass(frozen=True)
class _Regexes:
    # A word (letters, digits, underscore, with any combining marks inside it), or one
    # other non-space character.
    token: re.Pattern[str]
    marks: frozenset[str]  # texts without any use the faster _PLAIN_TOKEN
    word_char: re.Pattern[str]
    expanding: re.Pattern[str]  # characters whose case folding is longer than one char
    non_ascii_segment: re.Pattern[str]  # where NFC can change anything
    cluster: re.Pattern[str]  # a starter with its combining marks (or a Hangul syllable)


def _class_of(chars: Iterable[str]) -> str:
    """A compact regex character class body (ranges) for a sorted set of characters."""
    codes = sorted({ord(c) for c in chars})
    parts: list[str] = []
    i = 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        lo, hi = codes[i], codes[j]
        parts.append(
            re.escape(chr(lo)) if lo == hi else f"{re.escape(chr(lo))}-{re.escape(chr(hi))}"
        )
        i = j + 1
    return "".join(parts)


@cache
def _regexes() -> _Regexes:
    """Built on first use (one scan of Unicode, ~0.3 s) rather than at import."""
    marks: list[str] = []
    expanding: list[str] = []
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char)[0] == "M":
            marks.append(char)
        if len(char.casefold()) > 1:
            expanding.append(char)
    # Combining marks continue a word, so NFD leftovers and Indic vowel signs stay inside
    # it. Marks are only tried after a run of \w: a class this big is slow to test.
    mark_class = _class_of(marks)
    jamo = "\u1160-\u11ff"  # Hangul vowels and final consonants compose with what precedes
    return _Regexes(
        token=re.compile(rf"\w+(?:[{mark_class}]+\w*)*|[^\s\w]"),
        marks=frozenset(marks),
        word_char=re.compile(rf"[\w{mark_class}]"),
        expanding=re.compile(rf"[{_class_of(expanding)}]"),
        non_ascii_segment=re.compile(r"(?s).?[^\x00-\x7f]+"),
        cluster=re.compile(rf"(?s).[{mark_class}{jamo}]*"),
    )


# --- Normalisation with an offset map ---------------------------------------------------


class _Stage:
    """One length-changing rewrite as sorted blocks: dst[q:q+k] came from src[p:p+l].

    Outside blocks the rewrite is one-to-one, so a bisect and an offset map a position.
    """

    __slots__ = ("qs", "ks", "ps", "ls")

    def __init__(self) -> None:
        self.qs: list[int] = []
        self.ks: list[int] = []
        self.ps: list[int] = []
        self.ls: list[int] = []

    def add(self, q: int, k: int, p: int, length: int) -> None:
        self.qs.append(q)
        self.ks.append(k)
        self.ps.append(p)
        self.ls.append(length)

    def start(self, x: int) -> int:
        i = bisect_right(self.qs, x) - 1
        if i < 0:
            return x
        q, k = self.qs[i], self.ks[i]
        if x < q + k:
            return self.ps[i]
        return x - q - k + self.ps[i] + self.ls[i]

    def end(self, x: int) -> int:
        """Map an exclusive end: the end of whatever source produced dst[x - 1]."""
        if x <= 0:
            return 0
        y = x - 1
        i = bisect_right(self.qs, y) - 1
        if i < 0:
            return x
        q, k = self.qs[i], self.ks[i]
        if y < q + k:
            return self.ps[i] + self.ls[i]
        return y - q - k + self.ps[i] + self.ls[i] + 1


def _nfc_stage(s: str, rx: _Regexes) -> tuple[str, _Stage | None]:
    if unicodedata.is_normalized("NFC", s):
        return s, None
    stage = _Stage()
    pieces: list[str] = []
    last = 0
    delta = 0  # len(output so far) - len(input consumed so far)
    # Composition never crosses an ASCII character that is not followed by a mark, so
    # only segments "one char + a run of non-ASCII" can change.
    for seg in rx.non_ascii_segment.finditer(s):
        text = seg.group()
        if unicodedata.is_normalized("NFC", text):
            continue
        base = seg.start()
        for cl in rx.cluster.finditer(text):
            src = cl.group()
            out = unicodedata.normalize("NFC", src)
            if out == src:
                continue
            p = base + cl.start()
            pieces.append(s[last:p])
            pieces.append(out)
            last = p + len(src)
            if len(out) != len(src):
                stage.add(p + delta, len(out), p, len(src))
                delta += len(out) - len(src)
    pieces.append(s[last:])
    return "".join(pieces), (stage if stage.qs else None)


def _casefold_stage(s: str, rx: _Regexes) -> tuple[str, _Stage | None]:
    folded = s.casefold()
    if len(folded) == len(s):
        return folded, None  # every character folded to exactly one
    stage = _Stage()
    delta = 0
    for m in rx.expanding.finditer(s):
        k = len(m.group().casefold())
        stage.add(m.start() + delta, k, m.start(), 1)
        delta += k - 1
    return folded, stage


def _dot_above_stage(s: str) -> tuple[str, _Stage | None]:
    """As ``kgsite.text.drop_dot_above_i``: each "i" + U+0307 becomes "i" (two for one)."""
    if I_WITH_DOT_ABOVE not in s:
        return s, None
    stage = _Stage()
    delta = 0
    start = s.find(I_WITH_DOT_ABOVE)
    while start != -1:
        stage.add(start + delta, 1, start, 2)
        delta -= 1
        start = s.find(I_WITH_DOT_ABOVE, start + 2)
    return drop_dot_above_i(s), stage


# Whitespace runs that are not already a single space.
_WS_RUN = re.compile(r"(?: \s|[^\S ])\s*")


def _space_stage(s: str) -> tuple[str, _Stage | None]:
    stage = _Stage()
    delta = 0
    for m in _WS_RUN.finditer(s):
        length = m.end() - m.start()
        if length > 1:
            stage.add(m.start() + delta, 1, m.start(), length)
            delta += 1 - length
    return _WS_RUN.sub(" ", s), (stage if stage.qs else None)


class NormalizedText:
    """``normalize(text)`` (without the final strip) plus a map back to ``text``."""

    __slots__ = ("original", "norm", "_stages")

    def __init__(self, text: str) -> None:
        rx = _regexes()
        stages: list[_Stage] = []
        s = text
        if not s.isascii():
            s, st = _nfc_stage(s, rx)
            stages += [st] if st else []
            s = turkish_i_plain(s)  # as normalize(): one character for one
            s, st = _casefold_stage(s, rx)
            stages += [st] if st else []
            s, st = _dot_above_stage(s)
            stages += [st] if st else []
            s, st = _nfc_stage(s, rx)
            stages += [st] if st else []
        else:
            s = s.lower()  # casefold is lower() on ASCII, one char for one
        s, st = _space_stage(s)
        stages += [st] if st else []
        self.original = text
        self.norm = s
        self._stages = stages[::-1]  # applied from the last rewrite back to the first

    def span(self, start: int, end: int) -> tuple[int, int]:
        for stage in self._stages:
            start, end = stage.start(start), stage.end(end)
        return start, end
