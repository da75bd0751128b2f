"""Amounts: numbers in digits or words, with their unit converted to a base unit,
currencies, amounts per period (read per year), ranges, bounds and approximations."""

from __future__ import annotations

from dataclasses import replace

from . import tables as tb
from .number_words import word_run, word_value
from .shares import share_at
from .tokens import (
    _FUNCTION_ZIPF,
    _GLUED_UNIT,
    _RANGE,
    Reading,
    Value,
    fraction,
    free,
    has_digit,
    language,
    next_norm,
    parse_number,
    plain,
    take,
    zipf,
)

# --- numbers -----------------------------------------------------------------------------


def numbers(r: Reading) -> None:
    i = 0
    while i < len(r.tokens):
        if i in r.used:
            i += 1
            continue
        share = share_at(r, i, word_value)  # "half of", "due quarti d'ora"
        i = (_number_at(r, i) if share is None else share) + 1


def _number_at(r: Reading, i: int) -> int:
    """Read the amount starting at token i, if any; the index of its last token."""
    norm = r.tokens[i].norm
    shaped = _shaped_at(r, i, norm)
    if shaped is not None:
        return shaped
    number = parse_number(norm)
    last = i
    counted = norm in tb.ONCE_WORDS and next_norm(r, i) not in tb.TIMES_WORDS
    if number is None and counted and _times_per(r, i)[0] is not None:
        number = float(tb.ONCE_WORDS[norm])  # "once a day", "twice a week"
    elif number is None and not (norm in _FALSE_FRIENDS and language(r) != _FALSE_FRIENDS[norm]):
        number, last = word_run(r, i)
    elif norm.isdecimal() and (part := fraction(next_norm(r, last))) is not None:
        number, last = number + part, last + 1  # "1 ½ hours"
    elif len(next_norm(r, last)) > 1 and next_norm(r, last) in tb.MULTIPLIERS:
        number, last = number * tb.MULTIPLIERS[next_norm(r, last)], last + 1
        last = _of_unit(r, last)
    if number is None and norm in tb.ONE_WORDS and i + 1 < len(r.tokens):
        k = i + 2 if r.tokens[i + 1].norm == "'" else i + 1  # "un'ora"
        if k < len(r.tokens) and r.tokens[k].norm in tb.UNITS and len(r.tokens[k].norm) > 2:
            number, last = 1.0, k - 1  # "an hour", "uma hora"
            if i > 0 and r.tokens[i - 1].norm in tb.HALF_WORDS and free(r, i - 1):
                number, i = 0.5, i - 1  # "half a kilo", "half an hour"
    if number is None and norm in tb.ONE_WORDS and _times_per(r, i)[0] is not None:
        number = 1.0  # "una volta al giorno", "one time a week"
    if number is None:
        return i
    if i > 0 and r.tokens[i - 1].norm in ("-", "−") and r.tokens[i - 1].end == r.tokens[i].start:
        number = -number  # "-20 °C", "−3"
        i -= 1
    return _quantity(r, i, last, number, None)


# Between a multiplier word and its unit: "4,5 millones de euros", "3 millions of dollars".
_OF = frozenset(("de", "di", "of"))


def _of_unit(r: Reading, last: int) -> int:
    """After a multiplier word ending at ``last``, the index before its unit when "de",
    "di", "of" or an elided "d'" joins them ("2 milioni di litri", "3 millions d'euros")."""
    elided = next_norm(r, last) == "d" and next_norm(r, last + 1) == "'"
    gap = 2 if elided else 1
    if (elided or next_norm(r, last) in _OF) and unit_of(next_norm(r, last + gap)):
        return last + gap
    return last


# Number words that are common words of another language: "once" is eleven in Spanish
# only, "due" two in Italian only ("the rent is due"), "dos" two in Spanish only
# ("of the" in Portuguese: "50 % dos alunos").
_FALSE_FRIENDS = {"once": "es", "due": "it", "dos": "es"}


def _shaped_at(r: Reading, i: int, norm: str) -> int | None:
    """Amounts written as one token or a mark: "5-10", "5kg", "12.5k", "ten-day", 5'8"."""
    if m := _RANGE.fullmatch(norm):
        lo, hi = parse_number(m.group(1)), parse_number(m.group(2))
        if lo is not None and hi is not None and lo <= hi:
            return _quantity(r, i, i, lo, hi)
        return i
    if (m := _GLUED_UNIT.fullmatch(norm)) and fraction(norm[-1]) is None:  # "5kg", "8GB"
        number, suffix = parse_number(m.group(1)), m.group(2)
        text = r.tokens[i].text
        written = text[m.start(2) :] if len(text) == len(norm) else ""
        if number is not None and suffix in tb.MULTIPLIERS and len(suffix) == 1:
            return _quantity(r, i, i, number * tb.MULTIPLIERS[suffix], None)
        if number is not None and suffix in tb.MONEY_MULTIPLIERS and _money_around(r, i):
            # "$1.2m", "1.5M dollars", "€3bn": millions of money, not metres
            return _quantity(r, i, i, number * tb.MONEY_MULTIPLIERS[suffix], None)
        if number is not None and unit_of(suffix, written) is not None:
            return _quantity(r, i, i, number, None, glued=written or suffix)
        return i
    if "-" in norm and not has_digit(norm.split("-", 1)[1]):  # "ten-day", "5-minute"
        head, tail = norm.split("-", 1)
        number = parse_number(head) if head[:1].isdigit() else word_value(head)
        if number is not None and tail in tb.UNITS:
            return _quantity(r, i, i, number, None, glued=tail)
    feet = parse_number(norm)
    if feet is not None and _feet_mark(r, i):  # 5'8", 5′8″
        inches = parse_number(r.tokens[i + 2].norm) or 0.0
        closed = i + 3 < len(r.tokens) and r.tokens[i + 3].norm in ('"', "″", "''")
        last = i + 3 if closed else i + 2
        lo = feet * 0.3048 + inches * 0.0254
        take(r, Value("number", (lo,), "length", lo, lo, False, "ft in", i, last))
        return last
    return None


def _money_around(r: Reading, i: int) -> bool:
    """A currency sign or code right before token i, or a currency word right after."""
    after = next_norm(r, i).rstrip(".")
    return _currency_before(r, i) is not None or (after in tb.CURRENCIES and after not in tb.UNITS)


def _feet_mark(r: Reading, i: int) -> bool:
    return (
        i + 2 < len(r.tokens)
        and r.tokens[i + 1].norm in ("'", "′")
        and r.tokens[i + 1].start == r.tokens[i].end
        and r.tokens[i + 2].norm.isdigit()
        and len(r.tokens[i + 2].norm) <= 2
    )


def unit_of(word: str, text: str = "") -> tuple[str, float] | None:
    """The (dimension, factor) of a unit or currency word; ``text`` is the word as
    written, for symbols whose case decides ("mW", "MW")."""
    word = word.rstrip(".")
    if text.rstrip(".") in tb.CASED_UNITS:
        return tb.CASED_UNITS[text.rstrip(".")]
    if word in tb.UNITS:
        return tb.UNITS[word]
    if (powered := _powered(word)) is not None:
        return powered
    if word in tb.CURRENCIES:
        return f"currency:{tb.CURRENCIES[word]}", 1.0
    return None


def _quantity(
    r: Reading, first: int, last: int, lo: float, hi: float | None, *, glued: str = ""
) -> int:
    """Read the context of the amount at tokens first..last: currency before, unit and
    period after, approximation, range and bound words before. Returns the last index."""
    hi = lo if hi is None else hi
    raw = lo
    dim, factor = "", 1.0
    if currency := _currency_before(r, first):
        dim, first = currency
    if glued:
        dim, factor = unit_of(glued.casefold(), glued) or ("", 1.0)
    else:
        unit, factor, last = _unit_after(r, last, bool(dim))
        dim = unit or dim
    lo, hi, dim = _temperature(lo, hi, dim)
    lo, hi = lo * factor, hi * factor
    lo, hi, last = _half_after(r, last, lo, hi, factor)
    if dim and dim not in ("temperature", "duration"):
        per, last = _period_after(r, last)
        if per:
            lo, hi, dim = lo * 365.25 / per, hi * 365.25 / per, f"{dim}/year"
    elif dim == "duration" and lo > 0 and _every_before(r, first):
        lo, hi, dim = _YEAR_SECONDS / hi, _YEAR_SECONDS / lo, "times/year"  # a period
    elif not dim:
        seconds, last = _times_per(r, last)
        if seconds:
            lo, hi, dim = lo * _YEAR_SECONDS / seconds, hi * _YEAR_SECONDS / seconds, "times/year"
    approx = _approximate_before(r, first) or _either_way_before(r, first)
    upper, lower = (False, False) if approx else _bound_before(r, first)
    if _range_opened(r, first):
        lo, hi, dim, last = _range_end(r, last, lo, hi, dim, factor)
    tail = {t.norm for t in r.tokens[last + 2 : last + 5]}
    if last + 1 < len(r.tokens) and r.tokens[last + 1].norm in tb.BOUND_JOINERS:
        upper, lower = upper or bool(tail & tb.UPPER_AFTER), lower or bool(tail & tb.LOWER_AFTER)
    if upper:
        lo = float("-inf")
    if lower:
        hi = float("inf")
    unit = " ".join(t.norm for t in r.tokens[first : last + 1] if not has_digit(t.norm))
    take(r, Value("number", (raw,), dim, lo, hi, approx, unit, first, last))
    return last


def _range_end(r: Reading, last: int, lo: float, hi: float, dim: str, factor: float):
    """ "between 5 and 10": the second number after ``last`` closes the range."""
    word = r.tokens[last + 2].norm if last + 3 < len(r.tokens) else "0"  # "and $10", "e i 10"
    skip = parse_number(word) is None and (word in tb.RANGE_SKIPPED or word in tb.CURRENCIES)
    j, k = last + 1, last + 2 + skip
    other, end = (None, k) if k >= len(r.tokens) else _end_number(r, k)
    if other is None or r.tokens[j].norm not in tb.RANGE_JOINERS:
        return lo, hi, dim, last
    hi, last = max(hi, other * factor), end
    closing, closing_factor, last = _unit_after(r, last, False)
    if closing and not dim:  # "between 5 and 10 euros", "between 2 and 3 km"
        lo, hi, dim = _temperature(lo * closing_factor, hi * closing_factor, closing)
    if dim and dim not in ("temperature", "duration") and "/" not in dim:
        per, last = _period_after(r, last)  # "between $70 and $80 a year"
        if per:
            lo, hi, dim = lo * 365.25 / per, hi * 365.25 / per, f"{dim}/year"
    return lo, hi, dim, last


def _end_number(r: Reading, k: int) -> tuple[float | None, int]:
    """The number at token k closing a range, in digits or words ("e nove"), and its
    last token."""
    number = parse_number(r.tokens[k].norm)
    if number is not None or not free(r, k):
        return number, k
    return word_run(r, k)


def _range_opened(r: Reading, i: int) -> bool:
    """A range word before token i, through an article ("tra i 30")."""
    k = i - 2 if i > 1 and r.tokens[i - 1].norm in tb.RANGE_SKIPPED else i - 1
    return k >= 0 and r.tokens[k].norm in tb.RANGE_OPENERS


def _approximate_before(r: Reading, i: int) -> bool:
    """ "about 40", "circa 40", "cerca de 40": through "de", "di" or "of"."""
    k = i - 1
    if k > 0 and r.tokens[k].norm in ("de", "di", "of", "d'"):
        k -= 1
    return k >= 0 and i > 0 and r.tokens[k].norm in tb.APPROXIMATE


def _either_way_before(r: Reading, i: int) -> bool:
    """ "more or less 40", "più o meno 40", "mais ou menos 40", "plus ou moins 40": a
    comparative of each direction joined by "or" before the number is an approximation,
    not a bound (each word alone bounds it: "40 or more", "pelo menos 40")."""
    if i < 3:
        return False
    first, joiner, second = (r.tokens[k].norm for k in range(i - 3, i))
    directions = {first in tb.LOWER_AFTER, second in tb.LOWER_AFTER}
    return (
        joiner in tb.BOUND_JOINERS
        and directions == {True, False}
        and (first in tb.UPPER_AFTER or second in tb.UPPER_AFTER)
    )


def _temperature(lo: float, hi: float, dim: str) -> tuple[float, float, str]:
    if dim == "temperature:F":
        return (lo - 32) * 5 / 9, (hi - 32) * 5 / 9, "temperature"
    if dim == "temperature:K":
        return lo - 273.15, hi - 273.15, "temperature"
    if dim == "temperature:C":
        return lo, hi, "temperature"
    return lo, hi, dim


def _half_after(
    r: Reading, last: int, lo: float, hi: float, factor: float
) -> tuple[float, float, int]:
    """ "two days and a half", "un'ora e venti", "1 hour and 10 minutes": the parts add up."""
    j = last + 1
    if factor == 1.0 or j + 1 >= len(r.tokens):
        return lo, hi, last
    number = parse_number(r.tokens[j].norm)
    unit = tb.UNITS.get(r.tokens[j + 1].norm.rstrip("."))
    smaller = unit is not None and unit[1] < factor and r.tokens[j + 1].norm != "in"
    after_feet = r.tokens[j - 1].norm in ("ft", "feet", "foot")
    if number is not None and unit is not None and unit[0] in _SUMMED and (smaller or after_feet):
        return lo + number * unit[1], hi + number * unit[1], j + 1  # "5 ft 8 in", "1 h 30 min"
    if r.tokens[j].norm not in tb.JOINERS:
        return lo, hi, last
    k = j + 1
    if r.tokens[k].norm in tb.ONE_WORDS and k + 1 < len(r.tokens):
        k += 1
    if r.tokens[k].norm in tb.HALF_WORDS:
        return lo + factor / 2, hi + factor / 2, k
    number = parse_number(r.tokens[j + 1].norm) or word_value(r.tokens[j + 1].norm)
    if number is not None and j + 2 < len(r.tokens):
        unit = tb.UNITS.get(r.tokens[j + 2].norm)
        if unit is not None and unit[1] < factor and _dimension_of(factor, unit):
            return lo + number * unit[1], hi + number * unit[1], j + 2
    return lo, hi, last


_SUMMED = ("length", "duration", "mass")


def glued_inch(r: Reading, i: int, j: int) -> bool:
    """ "in" is inches only glued to the number ("8in") or closing a length ("5 ft 8 in")."""
    if r.tokens[j].start == r.tokens[i].end:
        return True
    return i >= 2 and r.tokens[i - 1].norm in ("ft", "feet", "foot")


def _dimension_of(factor: float, unit: tuple[str, float]) -> bool:
    return unit[0] in ("duration", "length", "mass")


def _currency_before(r: Reading, i: int) -> tuple[str, int] | None:
    j = i - 1
    if j < 0 or r.tokens[j].norm not in tb.CURRENCIES or not free(r, j):
        return None
    sign = len(r.tokens[j].norm) == 1 and not r.tokens[j].norm.isalnum()  # "$", "€", "₩"
    if not sign and not r.tokens[j].text.isupper():
        return None
    if j >= 1 and r.tokens[j - 1].end == r.tokens[j].start:  # "R$", "US$"
        glued = r.tokens[j - 1].norm + r.tokens[j].norm
        if glued in tb.CURRENCIES:
            return f"currency:{tb.CURRENCIES[glued]}", j - 1
    return f"currency:{tb.CURRENCIES[r.tokens[j].norm]}", j


def _unit_after(r: Reading, i: int, money: bool) -> tuple[str, float, int]:
    """(dimension, factor to base, last token index) of the unit after token i,
    through one multiplier ("2,5 milioni di euro") and an elision ("quarant'anni")."""
    j = i + 1
    if j < len(r.tokens) and len(r.tokens[j].norm) > 1 and r.tokens[j].norm in tb.MULTIPLIERS:
        k = j + 1 if next_norm(r, j) in ("di", "de", "of") else j
        dim, factor, last = _unit_word(r, k, money)
        return dim, factor * tb.MULTIPLIERS[r.tokens[j].norm], max(last, j)
    if (
        j + 1 < len(r.tokens)
        and r.tokens[j].norm == "'"
        and r.tokens[j].start == r.tokens[i].end
        and r.tokens[j + 1].norm in tb.UNITS
        and len(r.tokens[j + 1].norm) > 2
    ):
        i = j  # "quarant'anni"
    return _unit_word(r, i, money)


def _unit_word(r: Reading, i: int, money: bool) -> tuple[str, float, int]:
    j = i + 1
    if j >= len(r.tokens) or not free(r, j):
        return "", 1.0, i
    word = r.tokens[j].norm.rstrip(".")
    if word == "in" and not glued_inch(r, i, j):
        return "", 1.0, i
    found = _temperature_unit(r, i, j, word) or _written_unit(r, i, j, word)
    if found is not None:
        return found
    if word in tb.MONEY_OVER_MASS and money:
        return "", 1.0, i
    if word in tb.CURRENCIES and (word not in tb.UNITS or money):
        return f"currency:{tb.CURRENCIES[word]}", 1.0, j
    if word in tb.SQUARE_BEFORE and (square := _square(next_norm(r, j))) is not None:
        return "area", square, j + 1  # "20 square metres", "215 sq ft"
    if word in tb.UNITS:
        # one-letter symbols only glued or right after the number: "5 m", not "5 a";
        # never a label's letter: "Gate 4 B" is no amount of bytes
        if len(word) == 1 and (r.tokens[j].start - r.tokens[i].end > 1 or label_letter(r, i, j)):
            return "", 1.0, i
        dimension, factor = tb.UNITS[word]
        if plain(next_norm(r, j)) in tb.SQUARE_AFTER and (square := _square(word)) is not None:
            return "area", square, j + 1  # "20 metri quadrati", "20 mètres carrés"
        return dimension, factor, j
    if "/" in word:
        head = word.split("/", 1)[0]
        if head in tb.UNITS:
            return tb.UNITS[head][0], tb.UNITS[head][1], j
    return "", 1.0, i


def _written_unit(r: Reading, i: int, j: int, word: str) -> tuple[str, float, int] | None:
    """Units read from their written case, a word before them or a power: "5 MW" /
    "5 mW", "13 A", "4 fl oz", "2 fl. oz.", "30 km²", "12 cm2"."""
    if (cased := tb.CASED_UNITS.get(r.tokens[j].text.rstrip("."))) is not None:
        if len(word) == 1 and r.tokens[j].start - r.tokens[i].end > 1:
            return "", 1.0, i  # "13 A", "230 V": only right after the number
        if label_letter(r, i, j):
            return "", 1.0, i  # "Flat 12 A": the letter is the label's, not amperes
        return cased[0], cased[1], j
    if word in tb.FLUID_BEFORE:
        k = j + 2 if j + 1 < len(r.tokens) and r.tokens[j + 1].norm == "." else j + 1
        if k < len(r.tokens) and r.tokens[k].norm in ("oz", "ounce", "ounces"):
            return tb.FLUID_OUNCE[0], tb.FLUID_OUNCE[1], k
    if (powered := _powered(word)) is not None and word not in tb.UNITS:
        return powered[0], powered[1], j
    return None


def label_letter(r: Reading, i: int, j: int) -> bool:
    """Whether token j, one capital letter written apart from the number at token i, is
    part of a label: the number stands right after a capitalised word that is no
    function word ("Flat 12 A", "Gate 4 B"; not "A 13 A fuse", "draws 13 A")."""
    text = r.tokens[j].text
    if len(text) != 1 or not text.isupper() or r.tokens[j].start == r.tokens[i].end:
        return False
    if i == 0 or r.tokens[i].start - r.tokens[i - 1].end != 1:
        return False
    before = r.tokens[i - 1]
    return (
        before.text[:1].isupper() and before.text.isalpha() and zipf(before.norm) < _FUNCTION_ZIPF
    )


_POWERS = {"²": 2, "2": 2, "³": 3, "3": 3}


def _powered(word: str) -> tuple[str, float] | None:
    """ "km²", "cm2", "mm³": a length unit raised to a power is an area or a volume."""
    power = _POWERS.get(word[-1:])
    unit = tb.UNITS.get(word[:-1]) if power else None
    if unit is None or unit[0] != "length" or len(word) < 2:
        return None
    return ("area" if power == 2 else "volume"), unit[1] ** power


def _square(word: str) -> float | None:
    """The area factor of a length unit ("metres": 1, "feet": 0.0929...), else None."""
    unit = tb.UNITS.get(word.rstrip("."))
    return unit[1] ** 2 if unit is not None and unit[0] == "length" else None


def _temperature_unit(r: Reading, i: int, j: int, word: str) -> tuple[str, float, int] | None:
    """ "25 °C", "25 degrees Celsius", "77 ºF", "25°", "298 K"."""
    if word in tb.DEGREE_WORDS:
        nxt = r.tokens[j + 1].norm if j + 1 < len(r.tokens) else ""
        scale = tb.TEMPERATURE_UNITS.get(nxt)
        if scale and r.tokens[j + 1].start - r.tokens[j].end <= 1:
            return f"temperature:{scale}", 1.0, j + 1
        return "temperature:C", 1.0, j
    if word in ("°c", "ºc", "°f", "ºf", "celsius", "fahrenheit", "kelvin") or (
        r.tokens[j].text == "K" and r.tokens[j].start - r.tokens[i].end <= 1
    ):
        return f"temperature:{tb.TEMPERATURE_UNITS[word]}", 1.0, j
    return None


# Between a rate word and its period ("a month", "al mese"), and the endings of a period
# adjective ("monthly", "mensile", "anual"): read by amounts, frequencies and sentences.
_PERIOD_ARTICLES = frozenset(("a", "an", "one", "the", "il", "lo", "o", "el", "le", "'"))
_PERIOD_ADJECTIVE_ENDS = ("ly", "le", "al", "el", "ais", "uo")


def _period_after(r: Reading, i: int) -> tuple[float | None, int]:
    """Days per period of "a month", "per year", "/mo", "monthly" after token i."""
    j = i + 1
    if j < len(r.tokens) and free(r, j):
        word = r.tokens[j].norm
        if word == "/" and j + 1 < len(r.tokens) and r.tokens[j + 1].norm in tb.PERIOD_DAYS:
            return tb.PERIOD_DAYS[r.tokens[j + 1].norm], j + 1
        if "/" in word and word.split("/")[-1] in tb.PERIOD_DAYS:
            return tb.PERIOD_DAYS[word.split("/")[-1]], j
        if word in tb.RATE_WORDS and j + 1 < len(r.tokens):
            k = j + 1
            if r.tokens[k].norm in _PERIOD_ARTICLES:
                k += 1
            if (
                k < len(r.tokens)
                and r.tokens[k].norm in tb.PERIOD_DAYS
                and len(r.tokens[k].norm) > 2
            ):
                return tb.PERIOD_DAYS[r.tokens[k].norm], k
        adjective = word.endswith(_PERIOD_ADJECTIVE_ENDS) or word in tb.PERIOD_ADJECTIVE_FORMS
        if len(word) > 3 and word in tb.PERIOD_DAYS and adjective:
            return tb.PERIOD_DAYS[word], j
    return None, i


# Frequencies are read per year, like amounts per period: "three times an hour" and
# "every 20 minutes" are the same value.
_YEAR_SECONDS = 365.25 * 86400


def _every_before(r: Reading, i: int) -> bool:
    """ "every 20 minutes", "ogni 20 minuti", "a cada 20 minutos", "toutes les 20 min"."""
    before = [r.tokens[k].norm for k in range(max(0, i - 2), i)]
    return bool(before) and (
        before[-1] in tb.EVERY_WORDS
        or (len(before) == 2 and before[0] in tb.EVERY_WORDS and before[1] in ("les", "the"))
    )


def _times_per(r: Reading, i: int) -> tuple[float | None, int]:
    """Seconds per period of "times a minute", "volte al giorno", "vezes por hora" after
    token i (the count), and the period's index."""
    once = r.tokens[i].norm in tb.ONCE_WORDS and next_norm(r, i) not in tb.TIMES_WORDS
    j = i if once else i + 1
    if j + 2 >= len(r.tokens) or not (once or r.tokens[j].norm in tb.TIMES_WORDS):
        return None, i
    k = j + 1
    if r.tokens[k].norm not in tb.RATE_WORDS:
        return None, i
    if r.tokens[k + 1].norm in _PERIOD_ARTICLES:
        k += 1
    word = r.tokens[k + 1].norm if k + 1 < len(r.tokens) else ""
    if word in tb.PERIOD_DAYS and len(word) > 2:
        return tb.PERIOD_DAYS[word] * 86400, k + 1
    unit = tb.UNITS.get(word)
    if unit is not None and unit[0] == "duration" and len(word) > 2:
        return unit[1], k + 1
    return None, i


def sentence_period(r: Reading) -> None:
    """The one sum of money of a statement takes the period the sentence gives elsewhere:
    "Across the whole year the club costs 960 euros", "Ogni anno Carla versa 4.800 euro",
    "The monthly pass costs 40 euros" (per year, like "€3,500 a month")."""
    money = [
        k
        for k, v in enumerate(r.values)
        if v.kind == "number" and v.dim.startswith("currency:") and "/" not in v.dim
    ]
    if len(money) != 1 or any("/" in v.dim for v in r.values):
        return
    period = _period_cue(r)
    if period is None:
        return
    cue, days = period
    v = r.values[money[0]]
    per = 365.25 / days
    r.values[money[0]] = replace(v, lo=v.lo * per, hi=v.hi * per, dim=f"{v.dim}/year")
    if cue is not None:  # "un anno" was read as a duration: it is the period now
        r.values.remove(cue)


def _period_cue(r: Reading) -> tuple[Value | None, float] | None:
    """Days of the one period the sentence names apart from any amount: a period
    adjective ("monthly", "anual"), a period noun after "per"/"over a"/"por", or "a
    year" read as one year."""
    found: dict[float, Value | None] = {}
    for i, token in enumerate(r.tokens):
        word = token.norm
        if word not in tb.PERIOD_DAYS or len(word) < 3:
            continue
        if i in r.used:
            duration = next((v for v in r.values if v.first <= i <= v.last), None)
            if (
                duration is not None
                and duration.dim == "duration"
                and duration.key == (1.0,)
                and duration.last > duration.first
                and r.tokens[duration.first].norm in tb.ONE_WORDS
            ):
                found[tb.PERIOD_DAYS[word]] = duration  # "a year", "un anno": one year
            continue
        leads = {r.tokens[k].norm for k in range(max(0, i - 3), i)}
        adjective = word.endswith(_PERIOD_ADJECTIVE_ENDS)
        if adjective or leads & tb.PERIOD_LEADS:
            found.setdefault(tb.PERIOD_DAYS[word], None)
    if len(found) != 1:
        return None
    [(days, cue)] = found.items()
    return cue, days


def _bound_before(r: Reading, i: int) -> tuple[bool, bool]:
    words = {r.tokens[k].norm for k in range(max(0, i - 2), i)}
    return bool(words & tb.UPPER_BOUND), bool(words & tb.LOWER_BOUND)
