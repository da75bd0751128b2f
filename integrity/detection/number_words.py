"""Numbers written in words, in the six languages: one word ("seven", "ventitré",
"thirty-five") or a run of them ("three hundred", "cento e vinte", "sei mil e duzentos",
"dix mille"). Split from ``amounts`` (issue 28, round 14)."""

from __future__ import annotations

from functools import lru_cache

from . import tables as tb
from .tokens import Reading, free


@lru_cache(maxsize=65536)
def word_value(norm: str) -> float | None:
    if norm in tb.ONE_WORDS:  # an article more often than the number one
        return None
    if norm in tb.NUMBER_WORDS:
        return float(tb.NUMBER_WORDS[norm])
    if "-" in norm:  # "thirty-five"
        parts = norm.split("-")
        if len(parts) == 2 and all(p in tb.NUMBER_WORDS for p in parts):
            tens, unit = tb.NUMBER_WORDS[parts[0]], tb.NUMBER_WORDS[parts[1]]
            if tens % 10 == 0 and 20 <= tens < 100 and unit < 10:
                return float(tens + unit)
    return _italian(norm)


def _italian(word: str) -> float | None:
    """ "ventitré", "trentotto", "duecentocinquanta": Italian numbers in one word."""
    if len(word) > 40:
        return None
    if "mila" in word:  # "duemila", "tremilacinquecento"
        head, _, rest = word.partition("mila")
        thousands = _italian(head) if head else None
        tail = _italian(rest) if rest else 0.0
        if thousands is None or tail is None:
            return None
        return thousands * 1000 + tail
    if "cento" in word:
        head, _, rest = word.partition("cento")
        hundreds = 1 if not head else tb.ITALIAN_UNIT_WORDS.get(head)
        tail = _italian(rest) if rest else 0.0
        if hundreds is None or tail is None:
            return None
        return hundreds * 100 + tail
    if word in tb.ITALIAN_UNIT_WORDS:
        return float(tb.ITALIAN_UNIT_WORDS[word])
    for tens_word, tens in tb.ITALIAN_TENS.items():
        if word in (tens_word, tens_word[:-1]):  # "quarant'anni": elided before a vowel
            return float(tens)
        for prefix in (tens_word, tens_word[:-1]):
            rest = word[len(prefix) :] if word.startswith(prefix) else ""
            if rest in tb.ITALIAN_UNIT_WORDS:
                return float(tens + tb.ITALIAN_UNIT_WORDS[rest])
    return None


def word_run(r: Reading, i: int) -> tuple[float | None, int]:
    """A number written in words over one or more tokens: "three hundred", "cento e
    vinte", "sei mil e duzentos", "dix mille". A joiner joins only a smaller part to a
    round one ("trinta e cinco", "vingt et un"): "seven and nine" are two numbers (the
    ends of a range, "between seven and nine weeks"), not sixteen."""
    total = current = 0.0
    last, found = i, False
    j = i
    while j < len(r.tokens) and j - i < 12 and free(r, j):
        value = word_value(r.tokens[j].norm)
        if value is None:
            joined = found and r.tokens[j].norm in tb.JOINERS
            after = word_value(r.tokens[j + 1].norm) if joined and j + 1 < len(r.tokens) else None
            if after is not None and after < _place(total + current):
                j += 1
                continue
            break
        if value == 100:
            current = (current or 1) * 100
        elif value >= 1000:
            total += (current or 1) * value
            current = 0
        else:
            current += value
        found, last = True, j
        j += 1
    if not found:
        return None, i
    return total + current, last


def _place(amount: float) -> float:
    """The lowest non-zero place of a whole amount: 30 -> 10, 1200 -> 100, 7 -> 1."""
    if amount <= 0 or not float(amount).is_integer():
        return 0.0
    place, whole = 1, int(amount)
    while whole % (place * 10) == 0:
        place *= 10
    return float(place)
