"""Fractions named by a noun (a closed class: ``unit_tables.FRACTION_NOUNS``): a share
of a whole, "half the members" = "50 % of the members", "un quarto dei soci" = "il
25 %"; or a part of a unit, "three quarters of an hour" = "45 minutes", "due quarti
d'ora" = "30 minuti", "meio gigabyte" = "512 MiB". Hand-written: it is structure."""

from __future__ import annotations

from collections.abc import Callable

from . import tables as tb
from . import unit_tables as ut
from .tokens import Reading, Value, free, take

# A number word's value ("three" -> 3.0), or None: ``number_words.word_value``, passed in
# (``amounts`` reads fractions through this module).
CountOf = Callable[[str], "float | None"]

_FRACTIONS = {w: part for part, words in ut.FRACTION_NOUNS.items() for w in words.split()}
_ARTICLE_WORDS = "the il lo la l o a el le les los las die der das"
_ARTICLES = frozenset(_ARTICLE_WORDS.split())


def share_at(r: Reading, i: int, count_of: CountOf) -> int | None:
    """Read the fraction starting at token ``i`` ("half", "a quarter", "three
    quarters", "due quarti"); the index of its last token, or None when none starts
    there. A number word before the fraction counts it; an article is the number one."""
    n = len(r.tokens)
    norm, k, count = r.tokens[i].norm, i, 1.0
    if norm in tb.ONE_WORDS or (value := count_of(norm)) is None:
        k = i + 1 if norm in tb.ONE_WORDS else i
    else:
        count, k = value, i + 1
    if k >= n or not free(r, k):
        return None
    word = r.tokens[k].norm
    part = _FRACTIONS.get(word)
    adjective = part is None and k == i and word in tb.HALF_WORDS  # "meio tebibyte"
    if part is None and not adjective:
        return None
    j = k + 1
    partitive = j < n and r.tokens[j].norm in ut.PARTITIVES
    j += partitive
    j += j < n and r.tokens[j].norm == "'"  # "d'ora"
    if j < n and (
        r.tokens[j].norm in tb.ONE_WORDS or (partitive and r.tokens[j].norm in _ARTICLES)
    ):
        j += 1
    unit = tb.UNITS.get(r.tokens[j].norm) if j < n and len(r.tokens[j].norm) > 2 else None
    share = count * (part or 0.5)
    approx = i > 0 and r.tokens[i - 1].norm in tb.APPROXIMATE  # "about half"
    if unit is not None and free(r, j):
        dim, factor = unit
        amount = share * factor
        take(r, Value("number", (share,), dim, amount, amount, approx, r.tokens[j].norm, i, j))
        return j
    if partitive and not adjective and j < n and not r.tokens[j].norm[:1].isdigit():
        percent = 100 * share
        take(r, Value("number", (percent,), "percent", percent, percent, approx, "%", i, k + 1))
        return k + 1
    return None
