"""Calendar dates, weekdays and clock times (with their time zone, read in UTC)."""

from __future__ import annotations

from . import tables as tb
from .amounts import unit_of
from .number_words import word_value
from .tokens import (
    _AMPM,
    _CLOCK,
    _HOUR_H,
    _ISO_DATE,
    _OFFSET,
    _SLASH_DATE,
    Reading,
    Value,
    ampm_after,
    free,
    has_digit,
    language,
    next_norm,
    small_int,
    take,
)


def _month(r: Reading, i: int) -> int | None:
    if not free(r, i):
        return None
    return tb.MONTHS.get(r.tokens[i].norm.rstrip("."))


_DATE_FILLERS = frozenset({"de", "of", "di", "del", "the", ",", "."})


def _skip(r: Reading, i: int, step: int) -> int:
    """The next index from i in direction ``step``, over one filler word."""
    if 0 <= i < len(r.tokens) and r.tokens[i].norm in _DATE_FILLERS:
        return i + step
    return i


def dates(r: Reading) -> None:
    for i, token in enumerate(r.tokens):
        if i in r.used:
            continue
        if m := _ISO_DATE.fullmatch(token.norm):  # "2027-01-31", "2027/01/31"
            year, month, day = (g for g in m.groups() if g is not None)
            _date(r, i, i, int(year), int(month), int(day))
        elif m := _SLASH_DATE.fullmatch(token.norm):
            year = int(m.group(4))
            year += 2000 if year < 100 else 0
            a, b = int(m.group(1)), int(m.group(3))
            if a > 12 and b <= 12:
                _date(r, i, i, year, b, a)
            elif b > 12 and a <= 12:
                _date(r, i, i, year, a, b)
            else:  # "03/04/2027": either order; both readings are kept
                _date(r, i, i, year, b, a, other=(year, a, b))
        elif (month := _month(r, i)) is not None:
            _named_month(r, i, month)
        elif token.norm in tb.WEEKDAYS and _weekday_ok(r, i):
            take(r, Value("weekday", (tb.WEEKDAYS[token.norm],), first=i, last=i))


def _weekday_ok(r: Reading, i: int) -> bool:
    """Short forms ("mon", "sat", "sun") only when written capitalised, not after an
    article ("closest to the Sun") and not opening a name of several capitalised words
    ("Sun Microsystems"; a list of weekdays or months, "Mon Tue", stays one)."""
    norm = r.tokens[i].norm
    if len(norm) > 4:
        return True
    if not r.tokens[i].text[:1].isupper():
        return False
    if i > 0 and r.tokens[i - 1].norm in tb.ARTICLES:
        return False
    if i + 1 < len(r.tokens) and r.tokens[i + 1].start - r.tokens[i].end == 1:
        after = r.tokens[i + 1]
        if after.text[:1].isupper() and after.text[:1].isalpha():
            return after.norm.rstrip(".") in tb.WEEKDAYS or after.norm.rstrip(".") in tb.MONTHS
    return True


def _named_month(r: Reading, i: int, month: int) -> None:
    first = last = i
    day = year = None
    before = _skip(r, i - 1, -1)
    if (d := small_int(r, before, 1, 31)) is not None:
        day, first = d, before
    after = i + 1
    if day is None and (d := small_int(r, after, 1, 31)) is not None:
        day, last, after = d, after, after + 1
    after = _skip(r, after, 1)
    if (y := small_int(r, after, 1000, 2999)) is not None:
        year, last = y, after
    norm = r.tokens[i].norm.rstrip(".")
    if day is None and year is None:
        if norm in tb.AMBIGUOUS_MONTHS or len(norm) < 4:
            return
        if not r.tokens[i].text[:1].isupper() and norm in ("march", "august"):
            return
    _date(r, first, last, year, month, day)


def _date(
    r: Reading,
    first: int,
    last: int,
    year: int | None,
    month: int | None,
    day: int | None,
    other: tuple | None = None,
) -> None:
    if month is not None and not 1 <= month <= 12:
        return
    if day is not None and not 1 <= day <= 31:
        return
    key = (year, month, day) if other is None else (year, month, day, other)
    take(r, Value("date", key, first=first, last=last))


def _zone(r: Reading, i: int) -> tuple[int | None, int]:
    """(UTC offset in minutes or None, index of the zone's last token) within the three
    tokens after token i: "10:00 UTC", "03:00 (CEST)", "9am GMT+2"."""
    for j in range(i + 1, min(i + 4, len(r.tokens))):
        token = r.tokens[j]
        if not free(r, j):
            return None, i
        offset = tb.TIME_ZONES.get(token.norm)
        if offset is None or not token.text.isupper():
            if has_digit(token.norm):
                return None, i
            continue
        last = j
        if j + 2 < len(r.tokens) and r.tokens[j + 1].norm in ("+", "-", "−"):
            m = _OFFSET.fullmatch("+" + r.tokens[j + 2].norm)
            if m and r.tokens[j + 2].norm[:1].isdigit():
                minutes = int(m.group(3)) * 60 + int(m.group(4) or 0)
                offset += minutes if r.tokens[j + 1].norm == "+" else -minutes
                last = j + 2
        return offset, last
    return None, i


def times(r: Reading) -> None:
    for i in range(len(r.tokens)):
        if i in r.used:
            continue
        minutes, last = _clock_at(r, i)
        if minutes is None:
            continue
        offset, zone_last = _zone(r, last)
        utc = None if offset is None else (minutes - offset) % 1440
        take(r, Value("time", (minutes, utc), first=i, last=max(last, zone_last)))


def _clock_at(r: Reading, i: int) -> tuple[int | None, int]:
    """(minutes after midnight, last token) of a clock time starting at token i."""
    norm = r.tokens[i].norm
    digital = _digital(r, i, norm)
    if digital is not None:
        return digital
    if i == 0 or not _clock_cue(r, r.tokens[i - 1].norm):
        return None, i
    hour = int(norm) if norm.isdecimal() and len(norm) <= 2 else word_value(norm)
    after = next_norm(r, i)
    if hour is None or not 0 <= hour <= 24 or (unit_of(after) is not None and after != "in"):
        return None, i
    minutes, last = int(hour) * 60, i
    # "alle otto e mezza", "às nove e dez", "à huit heures et quart"
    if next_norm(r, last) in tb.UNITS and tb.UNITS[next_norm(r, last)][1] == 3600.0:
        last += 1
    if next_norm(r, last) in tb.JOINERS and last + 2 < len(r.tokens):
        if r.tokens[last + 2].norm in tb.ONE_WORDS and last + 3 < len(r.tokens):
            last += 1  # "e un quarto", "and a half"
        part = r.tokens[last + 2].norm
        extra = 30 if part in tb.HALF_WORDS else word_value(part)
        if part in ("quarter", "quarto", "cuarto", "quart", "viertel"):
            extra = 15
        if extra is not None and 0 < extra < 60:
            minutes, last = minutes + int(extra), last + 2
    return _evening(r, last, minutes)


def _digital(r: Reading, i: int, norm: str) -> tuple[int, int] | None:
    """ "14:30", "19h", "7pm", "7 pm", "noon"."""
    if norm in tb.CLOCK_WORDS:
        return tb.CLOCK_WORDS[norm], i
    if (m := _CLOCK.fullmatch(norm)) and ("." not in norm or _dotted_clock(r, i)):
        return _evening(r, i, int(m.group(1)) * 60 + int(m.group(2)))
    if m := _HOUR_H.fullmatch(norm):
        return _evening(r, i, int(m.group(1)) * 60)
    if (g := _AMPM.fullmatch(norm)) and int(g.group(1)) <= 12:
        minutes = int(g.group(1)) % 12 * 60 + int(g.group(2) or 0)
        return minutes + (720 if g.group(3) == "pm" else 0), i
    if norm.isdecimal() and len(norm) <= 2 and int(norm) <= 12 and ampm_after(r, i):
        return _evening(r, i, int(norm) % 12 * 60)
    return None


def _clock_cue(r: Reading, word: str) -> bool:
    """A word before an hour ("at", "alle", "às", "a las"). "a" and "as" are also an
    English article and conjunction ("a dozen eggs", "works as two teams"): cues only in
    a statement that is not English."""
    if word not in tb.CLOCK_CUES:
        return False
    return word not in tb.ENGLISH_LOOKALIKE_CUES or language(r) != "en"


def _dotted_clock(r: Reading, i: int) -> bool:
    """Whether "12.45" is a clock time: after a clock cue ("at 12.45", "alle 9.30") or
    before am/pm, an evening word or a time zone, and not before a unit or a currency.
    Else a decimal: "$12.45", "1.25 m", "0.04 mg", "2.35 %" (read as times before)."""
    after = next_norm(r, i).rstrip(".")
    if unit_of(after) is not None and after not in tb.TIME_ZONES:
        return False
    cue = i > 0 and _clock_cue(r, r.tokens[i - 1].norm)
    return cue or after in tb.AM_PM or after in tb.EVENING_WORDS or after in tb.TIME_ZONES


def _evening(r: Reading, last: int, minutes: int) -> tuple[int, int]:
    """ "7 pm", "sette di sera", "sete da noite": afternoon and evening add 12 hours."""
    for j in range(last + 1, min(last + 4, len(r.tokens))):
        word = r.tokens[j].norm.rstrip(".")
        if word in tb.AM_PM:
            if tb.AM_PM[word] and minutes < 720:
                minutes += 720
            elif not tb.AM_PM[word] and minutes >= 720:
                minutes -= 720
            return minutes, j
        if word in tb.EVENING_WORDS:
            return (minutes + 720 if 60 <= minutes < 720 else minutes), j
        if word not in ("in", "the", "di", "da", "de", "la", "du", "del", "of", "a"):
            break
    return minutes, last
