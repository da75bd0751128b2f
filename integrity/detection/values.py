"""Turn one short factual sentence into comparable parts: subject, attribute and values.

Pure Python on purpose (no Django, no models): the classifier must run offline, fast,
and the same way in a management command, a task or a test. All vocabulary comes from
:mod:`integrity.detection.lexicon`; this module only knows the shapes of things.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from . import lexicon as lx
from .normalize import canonical
from .numbers import _word_numbers, fold, parse_number

# --- small text helpers ---------------------------------------------------------------


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stem(word: str) -> str:
    """A crude, language-agnostic stem so "children"/"child" and "figli"/"figlio" meet."""
    w = strip_accents(fold(word))
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ren"):
        w = w[:-3]
    if len(w) > 4 and w[-1] in "aeio":
        w = w[:-1]
    return w


def concept(word: str) -> str:
    """The word's class when it has one ("comincia" -> "~start"), else its stem."""
    return lx.CONCEPT_CLASSES.get(fold(word)) or stem(word)


def stems_match(a: str, b: str) -> bool:
    """Two stems name the same thing: equal, a clear prefix ("data"/"database"), or a typo."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 4 and long_.startswith(short):
        return True
    return len(short) >= 5 and fuzz.ratio(a, b) >= 88


def fuzzy_jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard over stems where near-equal stems count as one element."""
    left, right = set(a), set(b)
    if not left and not right:
        return 1.0
    matched = 0
    unused = set(right)
    for x in left:
        hit = next((y for y in unused if stems_match(x, y)), None)
        if hit is not None:
            matched += 1
            unused.discard(hit)
    union = len(left) + len(right) - matched
    return matched / union if union else 1.0


def names_match(a: str, b: str) -> bool:
    """Two normalised names refer to the same thing ("rossi"/"mario rossi", "postgres"/...).

    Names of several words are compared word by word when they have as many words: an
    initial stands for any word it begins ("m rossi"/"mario rossi"), and two different
    initials are two people ("ada b bauer" is not "ada c bauer", though the strings
    differ by one letter).
    """
    if a == b:
        return True
    ta, tb = a.split(), b.split()
    sa, sb = set(ta), set(tb)
    if sa and sb and (sa <= sb or sb <= sa):
        return True
    if len(ta) == len(tb) > 1:
        return all(_name_words_match(x, y) for x, y in zip(ta, tb, strict=True))
    return stems_match(a.replace(" ", ""), b.replace(" ", ""))


def _name_words_match(x: str, y: str) -> bool:
    if len(x) == 1 or len(y) == 1:
        return x[0] == y[0]
    return stems_match(x, y)


# A run of letters: no digits, no underscores.
_WORDS = re.compile(r"[^\W\d_]+")

# --- language -------------------------------------------------------------------------

_LANG_HINTS = {
    "en": frozenset(
        lx.words("""the is are was of and has with user's user his her their does not at works lives
        likes prefers speaks""")
    ),
    "it": frozenset(
        lx.words("""il lo la gli è di del della dell che non sono ha nel alla utente anche ancora
        lavora abita parla preferisce vive mangia ama piace stato stata""")
    ),
    "pt": frozenset(
        lx.words("""o os é do da dos das em no na não um uma usuário fica também às ao trabalha mora
        fala prefere gosta nasceu tem está""")
    ),
}


def detect_language(text: str) -> str:
    """Guess en/it/pt from function words and telltale letters; English when unsure."""
    words = _WORDS.findall(fold(text))
    scores = {lang: sum(w in hints for w in words) for lang, hints in _LANG_HINTS.items()}
    folded = fold(text)
    scores["pt"] += 2 * sum(folded.count(c) for c in "ãõçê")
    scores["it"] += 2 * sum(folded.count(c) for c in "ìò") + folded.count("è")
    if re.search(r"\b(?:l|dell|nell|all|un|dall|sull)'", folded):
        scores["it"] += 2
    if re.search(r"\w's\b", folded):
        scores["en"] += 2
    best = max(scores.items(), key=lambda kv: (kv[1], kv[0] == "en"))
    return best[0] if best[1] > 0 else "en"


# --- values ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DateValue:
    """A possibly partial calendar date: any field may be unknown.

    ``ambiguous``: written as digits that read both ways ("07/12/1990" in English is
    7 December or July 12), so either reading may be the one meant.
    """

    year: int | None = None
    month: int | None = None
    day: int | None = None
    ambiguous: bool = False

    def readings(self) -> tuple[DateValue, ...]:
        if not self.ambiguous or self.day is None or self.month is None:
            return (self,)
        return (self, DateValue(self.year, self.day, self.month))

    def compatible(self, other: DateValue, *, both_readings: bool = True) -> bool:
        """Some reading of each agrees on every field both know."""
        if not both_readings:
            return self._agrees(other)
        return any(x._agrees(y) for x in self.readings() for y in other.readings())

    def _agrees(self, other: DateValue) -> bool:
        return all(
            x is None or y is None or x == y
            for x, y in ((self.year, other.year), (self.month, other.month), (self.day, other.day))
        )

    def within(self, other: DateValue) -> bool:
        """No field known here that ``other`` leaves open: this date adds no precision."""
        return all(
            x is None or y is not None
            for x, y in ((self.year, other.year), (self.month, other.month), (self.day, other.day))
        )

    def __str__(self) -> str:
        parts = []
        if self.day is not None:
            parts.append(str(self.day))
        if self.month is not None:
            parts.append(lx.MONTH_NAMES[self.month - 1])
        if self.year is not None:
            parts.append(str(self.year))
        return " ".join(parts)


@dataclass(frozen=True)
class Quantity:
    """A number in base units of its dimension ("length" in metres, "currency:EUR", ...)."""

    dimension: str
    amount: float
    raw: float

    def same_amount(self, other: Quantity, tolerance: float = 0.01) -> bool:
        scale = max(abs(self.amount), abs(other.amount), 1e-9)
        return abs(self.amount - other.amount) / scale <= tolerance


@dataclass(frozen=True)
class Value:
    """One typed value found in a sentence.

    ``kind``: date, weekday, time, quantity, name, colour, status, diet, food, preference.
    ``key`` groups values that can be compared (quantity dimension, colour target, ...).
    """

    kind: str
    payload: object
    text: str
    key: str | None = None
    start: int = 0
    end: int = 0


@dataclass(frozen=True)
class Token:
    text: str
    norm: str
    start: int
    end: int

    @property
    def capitalised(self) -> bool:
        return self.text[:1].isupper() or any(c.isupper() for c in self.text[1:])


@dataclass(frozen=True)
class Subject:
    """Who or what a statement is about; ``relations`` turns Bob into Bob's sister."""

    head: str
    relations: frozenset[str] = frozenset()
    named: bool = True

    def __str__(self) -> str:
        rel = f" ({', '.join(sorted(self.relations))})" if self.relations else ""
        return f"{self.head}{rel}"


@dataclass(frozen=True)
class Statement:
    """Everything the classifier compares, extracted from one sentence."""

    text: str
    lang: str
    subject: Subject | None
    attribute: str | None
    values: tuple[Value, ...]
    names: tuple[str, ...]
    all_names: tuple[str, ...]
    negated: bool
    additive: bool
    past: bool
    content: frozenset[str]
    object_words: frozenset[str] = field(default_factory=frozenset)
    preference_context: frozenset[str] = field(default_factory=frozenset)
    # Stems of the words that named the attribute ("born", "birthday", "loves").
    attribute_words: frozenset[str] = frozenset()
    attribute_text: str = ""
    # The sentence with its values masked ("the fest starts on [V]"), for an embedding.
    frame: str = ""
    # Content words of the subject noun phrase ("return" in "the return flight").
    subject_words: frozenset[str] = frozenset()
    # Stem -> the word as written, so explanations quote the sentence, not its stems.
    surface: tuple[tuple[str, str], ...] = ()

    def of_kind(self, kind: str) -> list[Value]:
        return [v for v in self.values if v.kind == kind]

    def written(self, stems: Iterable[str]) -> list[str]:
        """The words behind ``stems`` as the sentence wrote them, in the order given
        (sets are sorted first, so explanations are stable)."""
        if isinstance(stems, set | frozenset):
            stems = sorted(stems)
        table = dict(self.surface)
        return list(dict.fromkeys(table.get(s, s) for s in stems))

    @property
    def spec(self) -> lx.AttributeSpec | None:
        if self.attribute is None:
            return None
        return lx.ATTRIBUTE_BY_NAME.get(self.attribute.split(":")[0])


# --- tokenising -----------------------------------------------------------------------

_TOKEN = re.compile(
    r"(?P<poss>(?<=[^\W_])'s\b)|(?P<neg>(?<=n)'t\b)|(?P<num>\d+(?:[.,:]\d+)*)"
    r"|(?P<word>[^\W\d_]+(?:-[^\W\d_]+)*)|(?P<sym>[€$£¥%])"
)


def tokenize(text: str) -> list[Token]:
    text = text.replace("’", "'")
    tokens = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        norm = "'t" if m.lastgroup == "neg" else fold(raw)
        tokens.append(Token(raw, norm, m.start(), m.end()))
    return tokens


# --- dates, weekdays and times ----------------------------------------------------------


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_MONTH_ALT = _alternation(list(lx.MONTHS) + list(lx.MONTH_ABBREVIATIONS))
_MONTH_FULL_ALT = _alternation(lx.MONTHS)
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th|º|°|ª)?"
_YEAR = r"(?P<y>(?:1[5-9]|20|21)\d\d)"
_DATE_PATTERNS = [
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(rf"\b(?P<a>\d{{1,2}})/(?P<b>\d{{1,2}})/{_YEAR}\b"),
    # Day and month without a year: only where a cue says it is a date (not "24/7").
    re.compile(r"(?<![\w/.,])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?![\w/%]|[.,]\d)"),
    re.compile(
        rf"\b{_DAY}(?:\s+(?:de|of|di))?\s+(?P<m>{_MONTH_ALT})\.?"
        rf"(?:,?\s+(?:de\s+|del\s+|of\s+)?{_YEAR})?\b",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\b(?P<m>{_MONTH_ALT})\.?\s+{_DAY}(?:,?\s+{_YEAR})?\b(?!\s*(?:%|[^\W\d_]))",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?P<m>{_MONTH_FULL_ALT}),?\s+(?:de\s+|del\s+|of\s+)?{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b(?P<m>{_MONTH_FULL_ALT})\b", re.IGNORECASE),
    re.compile(
        rf"\b(?:in|nel|em|since|dal|desde|of|del|de|from|until|fino al|até)\s+{_YEAR}\b",
        re.IGNORECASE,
    ),
]
_WEEKDAY_PATTERN = re.compile(rf"\b(?P<w>{_alternation(lx.WEEKDAYS)})\b", re.IGNORECASE)
_PT_WEEKDAY_PATTERN = re.compile(
    rf"\b(?:(?P<pre>nas?|às|as|aos|toda|todas\s+as|cada)\s+)?"
    rf"(?P<w>{_alternation(lx.PT_WEEKDAYS)})(?P<suffix>-feiras?|s)?\b",
    re.IGNORECASE,
)
_TIME_PATTERNS = [
    re.compile(
        r"\b(?P<h>[01]?\d|2[0-3])(?:[:.](?P<min>[0-5]\d))?\s*(?P<ampm>[ap])\.?m\b\.?",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?P<h>[01]?\d|2[0-3])[:h](?P<min>[0-5]\d)\b", re.IGNORECASE),
    re.compile(r"\b(?P<h>[01]?\d|2[0-3])h\b", re.IGNORECASE),
    re.compile(
        r"\b(?:at|alle|ore|às)\s+(?P<h>[01]?\d|2[0-3])(?:[:.](?P<min>[0-5]\d))?"
        r"(?=\s*(?:$|[.,;!?)]|o'clock|in\b|di\b|del\b|da\b|de\b|e\b|and\b|on\b))",
        re.IGNORECASE,
    ),
]


def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _month_number(word: str) -> int | None:
    w = fold(word).rstrip(".")
    return lx.MONTHS.get(w) or lx.MONTH_ABBREVIATIONS.get(w)


_SLASHED, _SLASHED_NO_YEAR, _MONTH_ALONE = 1, 2, 6


def _has_date_cue(text: str, start: int) -> bool:
    """A bare "05/05" is a date after "on", "il", "em"..., or in a sentence about a
    birthday, a deadline...; otherwise it may be a ratio or a score ("4/5 stars")."""
    before = _WORDS.findall(fold(text[:start]))
    if before and before[-1] in lx.DATE_CUES_BEFORE:
        return True
    return any(w in lx.DATE_CUE_WORDS for w in _WORDS.findall(fold(text)))


def _day_month(a: int, b: int, lang: str) -> tuple[int, int, bool]:
    """Day, month and whether the order is a guess. Italian and Portuguese write the day
    first; English writes both, so "07/12" could be either unless one part exceeds 12."""
    if lang != "en":
        return a, b, False
    if a <= 12 < b:
        return b, a, False
    if b <= 12 < a:
        return a, b, False
    return a, b, a != b


def _extract_dates(text: str, lang: str) -> tuple[list[Value], str]:
    """Calendar dates, weekdays and clock times, each masked once read."""
    values, text = _calendar_dates(text, lang)
    weekdays, text = _weekdays(text)
    times, text = _clock_times(text)
    return values + weekdays + times, text


DateFields = tuple[int | None, int | None, int | None, bool]


def _date_fields(
    index: int, groups: dict[str, str | None], text: str, start: int, lang: str
) -> DateFields | None:
    """(year, month, day, ambiguous) of a match of ``_DATE_PATTERNS[index]``, or None."""
    year = int(groups["y"]) if groups.get("y") else None
    if index in (_SLASHED, _SLASHED_NO_YEAR):
        if index == _SLASHED_NO_YEAR and not _has_date_cue(text, start):
            return None
        day, month, ambiguous = _day_month(int(groups["a"] or 0), int(groups["b"] or 0), lang)
        return year, month, day, ambiguous
    if index == 0:
        month = int(groups["m"] or 0)
    else:
        month = _month_number(groups["m"]) if groups.get("m") else None
    day = int(groups["d"]) if groups.get("d") else None
    if index == _MONTH_ALONE:
        word = groups["m"] or ""
        if fold(word) in lx.AMBIGUOUS_MONTHS and not word[:1].isupper():
            return None
        if lang == "en" and fold(word) not in lx.MONTHS:
            return None
    return year, month, day, False


def _calendar_dates(text: str, lang: str) -> tuple[list[Value], str]:
    values: list[Value] = []
    for index, pattern in enumerate(_DATE_PATTERNS):
        for m in pattern.finditer(text):
            fields = _date_fields(index, m.groupdict(), text, m.start(), lang)
            if fields is None:
                continue
            year, month, day, ambiguous = fields
            if month is not None and not 1 <= month <= 12:
                continue
            if day is not None and not 1 <= day <= 31:
                continue
            values.append(
                Value(
                    "date",
                    DateValue(year, month, day, ambiguous),
                    m.group(0).strip(),
                    start=m.start(),
                    end=m.end(),
                )
            )
            text = _mask(text, m.start(), m.end())
    return values, text


def _weekdays(text: str) -> tuple[list[Value], str]:
    values: list[Value] = []
    for m in _WEEKDAY_PATTERN.finditer(text):
        day = lx.WEEKDAYS[fold(m.group("w"))]
        values.append(Value("weekday", day, m.group(0), start=m.start(), end=m.end()))
        text = _mask(text, m.start(), m.end())
    for m in _PT_WEEKDAY_PATTERN.finditer(text):
        if not (m.group("pre") or m.group("suffix")):
            continue
        day = lx.PT_WEEKDAYS[fold(m.group("w"))]
        values.append(Value("weekday", day, m.group(0), start=m.start("w"), end=m.end()))
        text = _mask(text, m.start("w"), m.end())
    return values, text


def _clock_times(text: str) -> tuple[list[Value], str]:
    """ "7:40", "19h", "7h30", "at 7pm", "alle 8": minutes after midnight.

    Every pattern's groups are read through ``groupdict``: "19h" has no minutes group,
    and ``m.group("min")`` on it raised IndexError (issue 14).
    """
    values: list[Value] = []
    for pattern in _TIME_PATTERNS:
        for m in pattern.finditer(text):
            groups = m.groupdict()
            hour = int(groups.get("h") or 0)
            minute = int(groups.get("min") or 0)
            ampm = (groups.get("ampm") or "").lower()
            if ampm == "p" and hour < 12:
                hour += 12
            elif ampm == "a" and hour == 12:
                hour = 0
            values.append(
                Value("time", hour * 60 + minute, m.group(0).strip(), start=m.start(), end=m.end())
            )
            text = _mask(text, m.start(), m.end())
    return values, text


# --- quantities -----------------------------------------------------------------------

_UNIT_ALT = _alternation(lx.UNITS)
_QUANTITY = re.compile(
    r"(?P<pre>(?:us\$|r\$|[€$£¥]))?\s?(?<![\w.,])(?P<num>\d+(?:[.,]\d+)*)(?![\w.,]*\d)"
    rf"(?:\s?(?P<unit>{_UNIT_ALT})(?![^\W\d_]))?",
    re.IGNORECASE,
)
_NEXT_WORD = re.compile(r"\s*(?P<w>[^\W\d_]+(?:-[^\W\d_]+)*)")
_RATE = re.compile(r"\s+(?P<per>[^\W\d_]+)\s+(?:(?:a|an|one|uma?|uno)\s+)?(?P<w>[^\W\d_]+)")


def _counted(text: str, end: int, lang: str) -> tuple[str | None, float, int]:
    """The noun a bare number counts ("3 children"), with a per-time rate if any."""
    m = _NEXT_WORD.match(text, end)
    if not m or fold(m.group("w")) in lx.ALL_STOPWORDS:
        return None, 1.0, end
    noun = concept(m.group("w"))
    stop = m.end()
    rate = _RATE.match(text, stop)
    if rate and fold(rate.group("per")) in lx.RATE_WORDS | ({"a", "an"} if lang == "en" else set()):
        per = fold(rate.group("w"))
        unit = lx.UNITS.get(per)
        if unit and unit[0] == "duration":
            return f"{noun}/s", 1.0 / unit[1], rate.end()
        return f"{noun}/{stem(per)}", 1.0, rate.end()
    return noun, 1.0, stop


_FEET_INCHES = re.compile(lx.FEET_INCHES_PATTERN, re.IGNORECASE)
_WORD_UNIT = re.compile(
    r"(?:\s+|\s*'\s*|-)(?P<unit>"
    + _alternation(u for u in lx.UNITS if len(u) > 1 and u not in lx.NUMBER_WORD_UNIT_EXCLUDED)
    + r")(?![^\W\d_])",
    re.IGNORECASE,
)
_ZERO_COUNT = {
    lang: [re.compile(p, re.IGNORECASE) for p in patterns]
    for lang, patterns in lx.ZERO_COUNT_PATTERNS.items()
}


def _measured(text: str, unit: str, end: int) -> tuple[str, float, int]:
    """Dimension and factor to base units of ``unit``, per second when a rate follows."""
    dimension, factor = lx.UNITS[unit]
    if dimension != "percent" and not dimension.startswith("currency"):
        rate = _RATE.match(text, end)
        if rate and fold(rate.group("per")) in lx.RATE_WORDS:
            per = lx.UNITS.get(fold(rate.group("w")))
            if per and per[0] == "duration":
                return f"{dimension}/s", factor / per[1], rate.end()
    return dimension, factor, end


def _quantity(dimension: str, amount: float, raw: float, text: str, start: int, end: int) -> Value:
    """A quantity value, comparable with others of its dimension (its key)."""
    return Value(
        "quantity", Quantity(dimension, amount, raw), text, key=dimension, start=start, end=end
    )


def _quantity_value(text: str, start: int, end: int, number: float, lang: str) -> Value | None:
    """The number at ``start:end`` with the unit or counted noun after it, if any."""
    unit = _WORD_UNIT.match(text, end)
    if unit:
        dimension, factor, end = _measured(text, fold(unit.group("unit")), unit.end())
    else:
        noun, factor, end = _counted(text, end, lang)
        if noun is None:
            return None
        dimension = f"count:{noun}"
    return _quantity(dimension, number * factor, number, text[start:end].strip(), start, end)


def _extract_quantities(text: str, lang: str) -> tuple[list[Value], str]:
    """Feet and inches, numbers in digits, numbers in words, and "no children"."""
    values, text = _feet_inches(text, lang)
    digits, text = _digit_quantities(text, lang)
    words, text = _word_quantities(text, lang)
    zeros, text = _zero_counts(text, lang)
    return values + digits + words + zeros, text


def _feet_inches(text: str, lang: str) -> tuple[list[Value], str]:
    values: list[Value] = []
    for m in _FEET_INCHES.finditer(text):
        feet = int(m.group("ft"))
        inches = parse_number(m.group("in"), lang)
        if inches is None or inches >= 12:
            continue
        raw = m.group(0).strip()
        metres = feet * lx.FOOT_METRES + inches * lx.INCH_METRES
        end = m.start() + len(m.group(0).rstrip())
        values.append(_quantity("length", metres, metres, raw, m.start(), end))
        text = _mask(text, m.start(), m.end())
    return values, text


def _digit_quantity(text: str, m: re.Match[str], lang: str) -> Value | None:
    number = parse_number(m.group("num"), lang)
    if number is None:
        return None
    pre = (m.group("pre") or "").lower()
    unit = (m.group("unit") or "").lower()
    end = m.end()
    if pre:
        dimension, factor = lx.CURRENCY_SYMBOLS[pre], 1.0
        if unit and lx.UNITS.get(unit, ("", 0))[0].startswith("currency"):
            dimension = lx.UNITS[unit][0]
    elif unit:
        dimension, factor, end = _measured(text, unit, end)
    else:
        noun, factor, end = _counted(text, end, lang)
        dimension = f"count:{noun}" if noun else "number"
    start = m.start("pre") if pre else m.start("num")
    return _quantity(dimension, number * factor, number, text[start:end].strip(), start, end)


def _digit_quantities(text: str, lang: str) -> tuple[list[Value], str]:
    digits = [v for m in _QUANTITY.finditer(text) if (v := _digit_quantity(text, m, lang))]
    for v in digits:
        text = _mask(text, v.start, v.end)
    return digits, text


def _word_quantities(text: str, lang: str) -> tuple[list[Value], str]:
    values: list[Value] = []
    for start, end, number in _word_numbers(text, lang):
        value = _quantity_value(text, start, end, float(number), lang)
        if value is not None:
            values.append(value)
            text = _mask(text, value.start, value.end)
    return values, text


def _zero_counts(text: str, lang: str) -> tuple[list[Value], str]:
    values: list[Value] = []
    for pattern in _ZERO_COUNT.get(lang, ()):
        for m in pattern.finditer(text):
            noun, _factor, end = _counted(text, m.end(), lang)
            if noun is None:
                continue
            dimension = f"count:{noun}"
            noun_start = m.end() + len(text[m.end() : end]) - len(text[m.end() : end].lstrip())
            surface = " ".join(text[m.start() : end].split())
            values.append(_quantity(dimension, 0.0, 0.0, surface, noun_start, end))
            text = _mask(text, noun_start, end)
    return values, text


# --- token-level lexicons ---------------------------------------------------------------


def _compile_phrases(phrases: Iterable[str]) -> list[list[re.Pattern[str]]]:
    return [[re.compile(p) for p in phrase.split()] for phrase in phrases]


_ATTRIBUTE_PHRASES: dict[str, list[tuple[str, list[re.Pattern[str]]]]] = {
    lang: [
        (spec.name, pattern)
        for spec in lx.ATTRIBUTES
        for pattern in _compile_phrases(spec.phrases.get(lang, ()))
    ]
    for lang in lx.LANGS
}
_STATUS_PHRASES: list[tuple[str, list[re.Pattern[str]]]] = [
    (status, pattern)
    for status, phrases in lx.STATUSES.items()
    for pattern in _compile_phrases(phrases)
]


def _phrase_at(tokens: list[Token], i: int, pattern: list[re.Pattern[str]]) -> bool:
    if i + len(pattern) > len(tokens):
        return False
    return all(p.fullmatch(tokens[i + k].norm) for k, p in enumerate(pattern))


_STARTS: dict[tuple[int, str], list[tuple[str, list[re.Pattern[str]]]]] = {}


def _starting_with(
    key: int, word: str, table: list[tuple[str, list[re.Pattern[str]]]]
) -> list[tuple[str, list[re.Pattern[str]]]]:
    """The phrases of ``table`` (a module-level table, ``key`` its id) starting with
    ``word``; remembered for the tables' lifetime (bounded, as the vocabulary is)."""
    found = _STARTS.get((key, word))
    if found is None:
        found = [(label, pattern) for label, pattern in table if pattern[0].fullmatch(word)]
        if len(_STARTS) < 200_000:
            _STARTS[(key, word)] = found
    return found


def _find_phrases(
    tokens: list[Token], table: list[tuple[str, list[re.Pattern[str]]]]
) -> list[tuple[int, int, str]]:
    """Longest non-overlapping phrase matches as (start, end, label), in order.

    Only the phrases whose first word matches a token are tried there (cached per
    table and word): the tables hold hundreds of phrases, sentences a dozen words.
    """
    found = []
    for i, token in enumerate(tokens):
        for label, pattern in _starting_with(id(table), token.norm, table):
            if _phrase_at(tokens, i, pattern):
                found.append((i, i + len(pattern), label))
    found.sort(key=lambda f: (-(f[1] - f[0]), f[0]))
    chosen: list[tuple[int, int, str]] = []
    for f in found:
        if all(f[1] <= c[0] or f[0] >= c[1] for c in chosen):
            chosen.append(f)
    return sorted(chosen)


# --- the analyser ---------------------------------------------------------------------


_RUN_BREAK = re.compile(r"[,;:()\[\]!?\"]")


def _name_runs(
    tokens: list[Token], skip: set[int], lang: str, breaks: frozenset[int] = frozenset()
) -> list[tuple[int, int, str]]:
    """Runs of capitalised tokens, titles and inner connectors ("Dr. Rossi", "São Paulo").

    A run never crosses a comma or a bracket (``breaks``: "In Lyon, Bob ..." names two).
    """
    stop = lx.ALL_STOPWORDS | lx.USER_WORDS.get(lang, frozenset()) | lx.USER_NOUNS
    runs = []
    i = 0

    def plain_name(k: int) -> bool:
        t = tokens[k]
        if k in skip or not t.text.isalpha() or not t.capitalised:
            return False
        if t.text.isupper() and len(t.text) > 1:
            return True  # acronyms: API, NASA
        return not (
            t.norm in stop
            or t.norm in lx.KINSHIP
            or t.norm in lx.WEEKDAYS
            or t.norm in lx.MONTHS
            or t.norm in lx.TITLES
        )

    def is_name(k: int) -> bool:
        # A capitalised function word inside a sentence starts a name ("em São Paulo").
        t = tokens[k]
        if plain_name(k):
            return True
        return (
            k > 0
            and k not in skip
            and t.text[:1].isupper()
            and t.norm in lx.ALL_STOPWORDS
            and k + 1 < len(tokens)
            and plain_name(k + 1)
        )

    while i < len(tokens):
        if is_name(i) or (tokens[i].norm in lx.TITLES and i + 1 < len(tokens) and is_name(i + 1)):
            j = i + 1
            while j < len(tokens) and j not in breaks:
                if is_name(j):
                    j += 1
                elif (
                    tokens[j].norm in lx.NAME_CONNECTORS
                    and j + 1 < len(tokens)
                    and j + 1 not in breaks
                    and is_name(j + 1)
                    and j > i
                ):
                    j += 2
                else:
                    break
            words = [t.norm for t in tokens[i:j] if t.norm not in lx.TITLES]
            runs.append((i, j, strip_accents(" ".join(words))))
            i = j
        else:
            i += 1
    return runs


def _negation_positions(tokens: list[Token], lang: str) -> list[int]:
    negs = lx.NEGATIONS.get(lang, frozenset()) | {"'t"}
    return [i for i, t in enumerate(tokens) if t.norm in negs]


def _negation_before(negations: list[int], i: int, window: int) -> int | None:
    """The first negation at most ``window`` tokens before token ``i``, if any."""
    return next((n for n in negations if 0 < i - n <= window), None)


def _statuses(
    tokens: list[Token], negations: list[int], lang: str
) -> tuple[list[Value], set[int], set[int]]:
    """Status values; returns them with the token positions and negations they used."""
    values, used, used_negations = [], set(), set()
    for start, end, status in _find_phrases(tokens, _STATUS_PHRASES):
        negation = _negation_before(negations, start, 4)
        state: str | None = status
        if negation is not None:
            state = lx.NEGATED_STATUS[status]
            used_negations.add(negation)
        used.update(range(start, end))
        if state is None:
            continue
        surface = " ".join(t.text for t in tokens[start:end])
        if negation is not None:
            surface = f"{tokens[negation].text} {surface}"
        values.append(
            Value("status", state, surface, start=tokens[start].start, end=tokens[end - 1].end)
        )
    return values, used, used_negations


def _predicate_index(tokens: list[Token], lang: str, skip: set[int]) -> int:
    """Where the subject noun phrase ends: the first verb, auxiliary or negation."""
    own = lx.PREDICATE_MARKERS.get(lang, frozenset()) | lx.NEGATIONS.get(lang, frozenset())
    every = frozenset().union(*lx.PREDICATE_MARKERS.values(), *lx.NEGATIONS.values())
    for markers in (own, every):
        for i, t in enumerate(tokens):
            if i > 0 and i not in skip and (t.norm in markers or t.norm == "'t"):
                return i
    return len(tokens)


def _subject(
    tokens: list[Token],
    head_end: int,
    runs: list[tuple[int, int, str]],
    attribute_tokens: set[int],
    lang: str,
    breaks: frozenset[int] = frozenset(),
) -> Subject | None:
    users = lx.USER_WORDS.get(lang, frozenset()) | lx.USER_NOUNS
    relations = frozenset(lx.KINSHIP[t.norm] for t in tokens[:head_end] if t.norm in lx.KINSHIP)
    candidates: list[tuple[int, str]] = [
        (i, "user") for i in range(head_end) if tokens[i].norm in users
    ]
    candidates += [(start, name) for start, _end, name in runs if start < head_end]
    # A fronted phrase ("In Lyon, Bob bought ..."): the subject follows its comma.
    clause = max((j for j in breaks if j < head_end), default=0)
    if any(i >= clause for i, _ in candidates):
        candidates = [c for c in candidates if c[0] >= clause]
    if candidates:
        return Subject(min(candidates)[1], relations)
    words = [
        concept(t.norm)
        for i, t in enumerate(tokens[:head_end])
        if i not in attribute_tokens
        and t.norm not in lx.ALL_STOPWORDS
        and t.norm not in lx.KINSHIP
        and t.text.isalpha()
    ]
    if not words:
        return None
    return Subject(" ".join(words), relations, named=False)


def _preference(
    tokens: list[Token], skip: set[int], lang: str
) -> tuple[str | None, Value | None, set[int]]:
    """The preferred thing, from "prefers X" or "favourite N is X"; with its tokens."""
    verbs = re.compile("|".join(p for p in _preference_verbs(lang)))
    stop = lx.ALL_STOPWORDS | lx.NEGATIONS.get(lang, frozenset())
    for i, t in enumerate(tokens):
        if verbs.fullmatch(t.norm):
            j, words, used = i + 1, [], set()
            infinitive = j < len(tokens) and tokens[j].norm in {"to", "di", "de"}
            while j < len(tokens) and len(words) < (4 if infinitive else 3):
                tok = tokens[j]
                if j in skip or not tok.text.isalpha():
                    break
                if tok.norm in stop:
                    if words and not infinitive:
                        break
                else:
                    words.append(tok)
                    used.add(j)
                j += 1
            if words:
                text = " ".join(w.text for w in words)
                payload = frozenset(stem(w.norm) for w in words)
                return "preference", Value("preference", payload, text), used | {i}
    favourite = re.compile(lx.FAVOURITE_ADJECTIVES.get(lang, "$^"))
    markers = lx.PREDICATE_MARKERS.get(lang, frozenset())
    for i, t in enumerate(tokens):
        if not favourite.fullmatch(t.norm):
            continue
        neighbours = range(i + 1, len(tokens)) if lang == "en" else range(i - 1, -1, -1)
        noun = next(
            (
                tokens[k]
                for k in neighbours
                if tokens[k].norm not in stop and tokens[k].text.isalpha()
            ),
            None,
        )
        copula = next((k for k in range(i + 1, len(tokens)) if tokens[k].norm in markers), None)
        if noun is None or copula is None:
            continue
        words = [
            tokens[k]
            for k in range(copula + 1, len(tokens))
            if tokens[k].norm not in stop and tokens[k].text.isalpha() and k not in skip
        ][:3]
        if words:
            text = " ".join(w.text for w in words)
            payload = frozenset(stem(w.norm) for w in words)
            used = {i, copula} | {tokens.index(w) for w in words}
            return f"preference:{stem(noun.norm)}", Value("preference", payload, text), used
    return None, None, set()


def _preference_verbs(lang: str) -> list[str]:
    return list(lx.ATTRIBUTE_BY_NAME["preference"].phrases.get(lang, ())) or ["$^"]


@dataclass
class _Parse:
    """The state :func:`analyze` builds up, step by step, for one sentence."""

    text: str
    lang: str
    clean: str
    tokens: list[Token]
    values: list[Value]
    in_value: set[int]
    negations: list[int]
    used_negations: set[int] = field(default_factory=set)
    skip: set[int] = field(default_factory=set)
    status_tokens: set[int] = field(default_factory=set)
    attribute: str | None = None
    attribute_tokens: set[int] = field(default_factory=set)
    pref_value: Value | None = None
    pref_tokens: set[int] = field(default_factory=set)
    pred: int = 0
    runs: list[tuple[int, int, str]] = field(default_factory=list)
    subject: Subject | None = None
    name_tokens: set[int] = field(default_factory=set)

    @property
    def ignore(self) -> frozenset[str]:
        return _ignored_words(self.lang)


@functools.lru_cache(maxsize=8)
def _ignored_words(lang: str) -> frozenset[str]:
    """Words no comparison counts: function words, hedges, negations, the user."""
    return (
        lx.ALL_STOPWORDS
        | lx.LIGHT_VERBS
        | lx.FRAME_LIGHT_WORDS
        | lx.NEGATIONS.get(lang, frozenset())
        | lx.ADDITIVES.get(lang, frozenset())
        | lx.USER_WORDS.get(lang, frozenset())
        | lx.USER_NOUNS
    )


@functools.lru_cache(maxsize=4096)
def analyze(text: str, lang: str | None = None) -> Statement:
    """Extract subject, attribute and typed values from one sentence.

    Cached: a background check compares one new fact with many candidates, and the
    result is an immutable ``Statement``. The steps: values written in words become
    digits (:mod:`.normalize`), then typed values, the attribute, names and the
    subject, categorical values, and the word sets the classifier compares.
    """
    p = _parse_values(text, lang)
    _parse_attribute(p)
    _parse_names(p)
    _parse_categories(p)
    return _statement(p)


def _parse_values(text: str, lang: str | None) -> _Parse:
    """Dates, times, quantities, then statuses, marital states and open/closed."""
    lang = lang if lang in lx.LANGS else detect_language(text)
    clean = canonical(unicodedata.normalize("NFC", text).replace("’", "'"), lang)
    values, masked = _extract_dates(clean, lang)
    quantities, masked = _extract_quantities(masked, lang)
    values += quantities
    tokens = tokenize(clean)
    spans = [(v.start, v.end) for v in values]
    in_value = {
        i for i, t in enumerate(tokens) if any(s <= t.start and t.end <= e for s, e in spans)
    }
    p = _Parse(text, lang, clean, tokens, values, in_value, _negation_positions(tokens, lang))
    status_values, p.status_tokens, p.used_negations = _statuses(tokens, p.negations, lang)
    marital_values, marital_tokens, marital_negations = _marital(tokens, p.negations, lang)
    opening_values, opening_negations = _opening(tokens, p.negations)
    p.values += status_values + marital_values + opening_values
    p.used_negations |= marital_negations | opening_negations
    p.skip = in_value | p.status_tokens | marital_tokens
    return p


def _parse_attribute(p: _Parse) -> None:
    """The attribute a keyword, a place after a copula, a state or a preference names."""
    tokens, lang = p.tokens, p.lang
    p.attribute, p.attribute_tokens = _attribute(tokens, p.skip, lang)
    if p.attribute is None:
        p.attribute_tokens = _copula_location(tokens, p.skip, lang)
        p.attribute = "location" if p.attribute_tokens else None
    if p.attribute is None and any(v.kind == "marital" for v in p.values):
        p.attribute = "marital"
    p.pred = _predicate_index(tokens, lang, p.in_value)
    pref_attribute, p.pref_value, p.pref_tokens = _preference(tokens, p.skip, lang)
    if pref_attribute is not None and p.pref_value is not None:
        p.attribute = pref_attribute
        p.values.append(p.pref_value)
        p.skip |= p.pref_tokens
    if p.attribute is None and any(v.kind == "status" for v in p.values):
        p.attribute = "status"


def _parse_names(p: _Parse) -> None:
    """Runs of names, the subject, and the names after the verb as values."""
    tokens = p.tokens
    breaks = frozenset(
        j
        for j in range(1, len(tokens))
        if _RUN_BREAK.search(p.clean, tokens[j - 1].end, tokens[j].start)
    )
    p.runs = _name_runs(tokens, p.skip, p.lang, breaks)
    # A status phrase ends the subject too ("o bug continua acontecendo").
    subject_end = min([p.pred, *p.status_tokens])
    p.subject = _subject(tokens, subject_end, p.runs, p.attribute_tokens, p.lang, breaks)
    p.name_tokens = {k for s, e, _n in p.runs for k in range(s, e)}
    for start, end, name in p.runs:
        if start >= p.pred:
            p.values.append(Value("name", name, " ".join(t.text for t in tokens[start:end])))


def _parse_categories(p: _Parse) -> None:
    """Colours, diets and foods, and the object of an opinion."""
    p.values += _colours(p.tokens, p.skip, p.runs)
    p.values += _diets(p.tokens, p.negations, p.skip, p.lang)
    if p.attribute in ("likes", "dislikes") and not _negated(p):
        opinion = _opinion(p.tokens, p.attribute, p.attribute_tokens, p.lang)
        if opinion is not None:
            p.values.append(opinion)


def _negated(p: _Parse) -> bool:
    """A negation no status, marital state or open/closed value used up."""
    return any(n not in p.used_negations for n in p.negations)


def _categorical(p: _Parse) -> set[int]:
    """Offsets of words that are values of a category, not content ("red", "vegan")."""
    return {
        v.start
        for v in p.values
        if v.kind in ("colour", "diet") or (v.kind == "opening" and v.key == "stated")
    }


def _word_set(p: _Parse, indices: Iterable[int], *, by: str = "concept") -> frozenset[str]:
    """The compared form of the alphabetic, non-ignored words at ``indices``."""
    ignore, tokens = p.ignore, p.tokens
    form = concept if by == "concept" else stem
    return frozenset(
        form(tokens[i].norm)
        for i in indices
        if tokens[i].text.isalpha() and tokens[i].norm not in ignore
    )


def _word_sets(p: _Parse) -> dict[str, frozenset[str]]:
    """Content, subject, object, preference-context and attribute words."""
    n, categorical = len(p.tokens), _categorical(p)
    free = [
        i
        for i in range(n)
        if i not in p.skip and i not in p.name_tokens and p.tokens[i].start not in categorical
    ]
    markers = lx.PREDICATE_MARKERS.get(p.lang, frozenset())
    last_attribute = max(p.attribute_tokens, default=p.pred)
    # Subject words only when a verb was found: else the whole sentence is "subject".
    # With no verb found, the subject ends at the first value or at a name after the
    # first word ("the return flight from Rome ..."); a sentence opening on its subject's
    # name ("Jonas bought ...") has no subject words then.
    ends = [s for s, _e, _n in p.runs if s > 0] + list(p.in_value)
    end = min(ends, default=0)
    opens_on_name = any(s == 0 for s, _e, _n in p.runs)
    # Only a noun phrase with a preposition in it ("flight from", "volo di andata di").
    phrase = any(p.tokens[i].norm in _NP_PREPOSITIONS for i in range(end))
    fallback = range(end) if phrase and not opens_on_name else range(0)
    subject_span = range(p.pred) if p.pred < n else fallback
    sets = {
        "content": _word_set(p, (i for i in free if i not in p.attribute_tokens)),
        "subject_words": _word_set(
            p,
            (
                i
                for i in free
                if i in subject_span
                and i not in p.attribute_tokens
                and len(p.tokens[i].text) > 1
                and p.tokens[i].norm not in lx.KINSHIP
            ),
        ),
        "object_words": _word_set(
            p,
            (
                i
                for i in range(n)
                if i > last_attribute
                and i >= p.pred
                and i not in p.skip
                and i not in p.name_tokens
                and p.tokens[i].norm not in markers
            ),
            by="stem",
        ),
        "attribute_words": _word_set(p, p.attribute_tokens),
        "preference_context": frozenset(),
    }
    if p.pref_value is not None:
        sets["preference_context"] = _word_set(
            p,
            (
                i
                for i in range(n)
                if i not in p.pref_tokens
                and i not in p.attribute_tokens
                and i >= p.pred
                and i not in p.in_value
            ),
        )
    return sets


_NP_PREPOSITIONS = frozenset({"of", "from", "to", "di", "da", "del", "della", "de", "do", "dos"})


def _statement(p: _Parse) -> Statement:
    words = {t.norm for t in p.tokens}
    head_names = {name for start, _e, name in p.runs if start < p.pred}
    value_names = tuple(name for start, _e, name in p.runs if start >= p.pred)
    surface: dict[str, str] = {}
    for start, end, name in p.runs:
        surface.setdefault(name, " ".join(t.text for t in p.tokens[start:end]))
    for t in p.tokens:
        if t.text.isalpha():
            surface.setdefault(stem(t.norm), t.text)
    return Statement(
        text=p.text,
        lang=p.lang,
        subject=p.subject,
        attribute=p.attribute,
        values=tuple(p.values),
        names=value_names,
        all_names=tuple(sorted(head_names | set(value_names))),
        negated=_negated(p),
        additive=bool(words & lx.ADDITIVES.get(p.lang, frozenset())),
        past=bool(words & lx.PAST_MARKERS.get(p.lang, frozenset())),
        attribute_text=" ".join(p.tokens[i].text for i in sorted(p.attribute_tokens)),
        frame=_masked(p.clean, p.values),
        surface=tuple(surface.items()),
        **_word_sets(p),
    )


def _masked(text: str, values: list[Value]) -> str:
    """``text`` with each date, time and quantity replaced by one placeholder."""
    spans = sorted(
        (v.start, v.end) for v in values if v.kind in ("date", "time", "quantity") and v.end
    )
    out, last = [], 0
    for start, end in spans:
        if start < last:
            continue
        out += [text[last:start], "[V]"]
        last = end
    out.append(text[last:])
    return " ".join("".join(out).split())


def _after_copula(tokens: list[Token], i: int) -> bool:
    """Token ``i`` follows a copula, perhaps through "not", "still"... ("is still single")."""
    k = i - 1
    while k >= 0 and tokens[k].norm in lx.COPULA_FILLERS:
        k -= 1
    return k >= 0 and tokens[k].norm in lx.COPULAS and i - k <= 3


def _marital(
    tokens: list[Token], negations: list[int], lang: str
) -> tuple[list[Value], set[int], set[int]]:
    """Marital status after a copula; "not married" is its own state."""
    values, used, used_negations = [], set(), set()
    for i, t in enumerate(tokens):
        state = lx.MARITAL.get(t.norm)
        if state is None or not _after_copula(tokens, i):
            continue
        if i + 1 < len(tokens) and tokens[i + 1].norm in {"on", "il", "em", "in"}:
            continue  # "was married on 3 May": the wedding, an anniversary
        negation = _negation_before(negations, i, 3)
        text = t.text
        if negation is not None:
            state = f"not_{state}"
            used_negations.add(negation)
            text = f"{tokens[negation].text} {t.text}"
        used.add(i)
        values.append(Value("marital", state, text, start=t.start, end=t.end))
    return values, used, used_negations


def _opening(tokens: list[Token], negations: list[int]) -> tuple[list[Value], set[int]]:
    """Open or closed, said of the subject ("is open", "opens"), not of a noun ("open
    source", "a closed door"); "not open" is closed and "not closed" open. Returns the
    values and the negations they used (so "non apre" is not also a denial)."""
    values, used = [], set()
    for i, t in enumerate(tokens):
        state = lx.OPENING.get(t.norm)
        if state is None:
            continue
        if t.norm not in lx.OPENING_VERBS and not _after_copula(tokens, i):
            continue
        text = t.text
        negation = _negation_before(negations, i, 3)
        if negation is not None:
            state = "closed" if state == "open" else "open"
            text = " ".join(x.text for x in tokens[negation : i + 1])
            used.add(negation)
        # "stated": a state ("is closed", "non apre"), not an event verb ("apre alle 9").
        stated = negation is not None or t.norm not in lx.OPENING_VERBS
        key = "stated" if stated else None
        values.append(Value("opening", state, text, key=key, start=t.start, end=t.end))
    return values, used


def _copula_location(tokens: list[Token], skip: set[int], lang: str) -> set[int]:
    """ "Il server è a Milano": a copula and a place preposition before a name."""
    copulas, prepositions = lx.COPULA_LOCATION.get(lang, (frozenset(), frozenset()))
    for i in range(1, len(tokens) - 2):
        place = tokens[i + 2]
        if (
            tokens[i].norm in copulas
            and tokens[i + 1].norm in prepositions
            and i + 2 not in skip
            and place.text.isalpha()
            and place.text[:1].isupper()
            and place.norm not in lx.ALL_STOPWORDS
        ):
            return {i, i + 1}
    return set()


def _opinion(
    tokens: list[Token], attribute: str, attribute_tokens: set[int], lang: str
) -> Value | None:
    """What a "likes"/"dislikes" statement is about, with its polarity."""
    if not attribute_tokens:
        return None
    polarity = "like"
    if attribute == "dislikes":
        fear = any(tokens[i].norm in lx.FEAR_WORDS for i in attribute_tokens)
        polarity = "fear" if fear else "dislike"
    stop = lx.ALL_STOPWORDS | lx.NEGATIONS.get(lang, frozenset())
    words: list[Token] = []
    for j in range(max(attribute_tokens) + 1, len(tokens)):
        tok = tokens[j]
        if not tok.text.isalpha() or len(words) == 3:
            break
        if tok.norm in stop:
            if words:
                break
            continue
        words.append(tok)
    if not words:
        return None
    payload = (polarity, frozenset(stem(w.norm) for w in words))
    return Value(
        "opinion",
        payload,
        " ".join(w.text for w in words),
        start=words[0].start,
        end=words[-1].end,
    )


def _attribute(tokens: list[Token], skip: set[int], lang: str) -> tuple[str | None, set[int]]:
    """The attribute named by the longest keyword phrase; other languages as a fallback."""
    for table in (
        _ATTRIBUTE_PHRASES.get(lang, []),
        *(_ATTRIBUTE_PHRASES[other] for other in lx.LANGS if other != lang),
    ):
        found = [f for f in _find_phrases(tokens, table) if not set(range(f[0], f[1])) & skip]
        if found:
            best = max(found, key=lambda f: (f[1] - f[0], -f[0]))
            return best[2], set(range(best[0], best[1]))
    return None, set()


def _colours(tokens: list[Token], skip: set[int], runs: list[tuple[int, int, str]]) -> list[Value]:
    """Colour adjectives, keyed by the nearest name they describe ("red Fiat Panda")."""
    values = []
    in_names = {k for s, e, _n in runs for k in range(s, e)}
    for i, t in enumerate(tokens):
        colour = lx.COLOURS.get(t.norm)
        if colour is None or i in skip or i in in_names:
            continue
        near = [(min(abs(s - i), abs(e - 1 - i)), name) for s, e, name in runs]
        near = [n for n in near if n[0] <= 3]
        target = min(near)[1] if near else None
        values.append(Value("colour", colour, t.text, key=target, start=t.start, end=t.end))
    return values


def _diets(tokens: list[Token], negations: list[int], skip: set[int], lang: str) -> list[Value]:
    """Diet claims ("is vegetarian") and food eaten ("had a steak"), with polarity."""
    values = []
    for i, t in enumerate(tokens):
        negated = _negation_before(negations, i, 4) is not None
        diet = lx.DIETS.get(t.norm)
        if diet is not None:
            values.append(Value("diet", (diet, not negated), t.text, start=t.start, end=t.end))
            continue
        word = t.norm
        singular = word[:-1] if word.endswith("s") else word
        if (word in lx.MEAT_WORDS or singular in lx.MEAT_WORDS) and not negated:
            values.append(Value("food", "meat", t.text, start=t.start, end=t.end))
        elif (word in lx.ANIMAL_PRODUCT_WORDS or singular in lx.ANIMAL_PRODUCT_WORDS) and (
            not negated
        ):
            values.append(Value("food", "animal_product", t.text, start=t.start, end=t.end))
    return values
