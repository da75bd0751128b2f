"""Read the structure of one statement: the values it states and the names it uses.

Hand-written because it is structure, not judgement (CONVENTIONS.md): identifiers
(tokens mixing letters and digits, codes, paths, version strings), numbers with their
units converted to a base unit, currencies, amounts per period (read per year), ranges
and approximations as intervals, calendar dates, weekdays, clock times with their time
zone (read in UTC), proper names, and negation words. The pair model and the duplicate
guard both read statements through :func:`read`.

Linear time on any input: one tokenising pattern whose repetition is delimited by
characters outside the repeated class, then passes over the token list that each look
a bounded number of tokens around.
"""

from __future__ import annotations

from functools import lru_cache

from . import tables as tb
from .amounts import label_letter, numbers, sentence_period
from .dates import dates, times
from .tokens import (
    _COMMON_ZIPF,
    _FUNCTION_ZIPF,
    _SENTENCE_END,
    _VERSION,
    Reading,
    Token,
    Value,
    fold,
    free,
    french_thousands,
    has_alpha,
    has_digit,
    language,
    parse_number,
    plain,
    take,
    tokenize,
    zipf,
)

__all__ = ["Reading", "Token", "Value", "fold", "language", "parse_number", "plain", "read"]


# Texts whose reading is remembered: a background check reads the new statement once
# per candidate pair and the guard reads both again; a worker meets the same stored
# statements job after job. A short statement's reading holds about 30 KB, so a few
# hundred (a check needs a dozen).
READ_CACHE_SIZE = 256


@lru_cache(maxsize=READ_CACHE_SIZE)
def read(text: str) -> Reading:
    """Every value and name of ``text``; never raises on any string.

    Remembered per text, so the same ``Reading`` is handed to every caller (and
    thread): nothing may change one after this function returns."""
    r = Reading(text=text, tokens=tokenize(text))
    french_thousands(r)
    dates(r)
    times(r)
    numbers(r)
    _lettered_labels(r)
    sentence_period(r)
    _identifiers(r)
    _names(r)
    r.negations = _negations(r)
    return r


# --- identifiers, names and negation -------------------------------------------------------


def _identifiers(r: Reading) -> None:
    for i, token in enumerate(r.tokens):
        if i in r.used:
            continue
        text = token.text
        mixed = has_digit(text) and has_alpha(text)
        coded = any(c in text for c in "_/\\") or ("." in text.strip(".") and has_alpha(text))
        if (
            mixed
            or coded
            or _VERSION.fullmatch(token.norm)
            or (has_digit(text) and parse_number(token.norm) is None)
        ):
            take(r, Value("ident", (token.norm.strip(".:,"),), first=i, last=i))


def _lettered_labels(r: Reading) -> None:
    """ "Flat 12 A", "Gate 4 B": a plain number after a capitalised word and a capital
    letter after it are one identifier ("12 a"), so "Flat 12 A" and "Flat 12 B" differ
    and neither is an amount of current or data."""
    for at, v in enumerate(r.values):
        j = v.last + 1
        if v.kind != "number" or v.dim or v.first != v.last or not free(r, j):
            continue
        if label_letter(r, v.last, j):
            key = f"{r.tokens[v.first].norm} {r.tokens[j].norm}"
            r.values[at] = Value("ident", (key,), first=v.first, last=j)
            r.used.add(j)


def _names(r: Reading) -> None:
    """Capitalised words. One that opens a sentence and is also a common word
    ("Each", "Yesterday", "Alice") is a weak name: it counts when the other statement
    has a name it lacks (a name put in place of another)."""
    for i, token in enumerate(r.tokens):
        text = token.text
        if i in r.used or len(text) < 2 or not text[:1].isupper() or not text[:1].isalpha():
            continue
        if token.norm in tb.NEGATIONS or token.norm in tb.NE_PAIRED:
            continue
        weak = False
        if _sentence_start(r, i):
            frequency = zipf(token.norm)
            if frequency >= _FUNCTION_ZIPF:
                continue
            weak = frequency >= _COMMON_ZIPF
        take(r, Value("name", (plain(text), weak), first=i, last=i))


def _sentence_start(r: Reading, i: int) -> bool:
    if i == 0:
        return True
    between = r.text[r.tokens[i - 1].end : r.tokens[i].start]
    prev = r.tokens[i - 1].text
    return prev in _SENTENCE_END or "\n" in between or prev in ('"', "(", "-", "–", "—", "*", "'")


def _negations(r: Reading) -> int:
    """Negation words outside values; "isn't" is three tokens (isn ' t)."""
    count = 0
    portuguese = None
    for i, token in enumerate(r.tokens):
        if i in r.used:
            continue
        norm = token.norm
        if (
            norm == "t"
            and i >= 2
            and r.tokens[i - 1].norm == "'"
            and r.tokens[i - 2].norm.endswith("n")
        ):
            count += 1
        elif norm in tb.AMBIGUOUS_NEGATIONS:
            if portuguese is None:
                portuguese = language(r) == "pt"
            count += not portuguese
        elif (
            norm in tb.NEGATIONS
            or norm in tb.NE_PAIRED
            and any(
                r.tokens[k].norm in ("ne", "n")
                for k in range(max(0, i - 4), min(len(r.tokens), i + 2))
            )
        ):
            count += 1
    return count
