"""Tokens, values and readings: the shared pieces of the structure reader
(``structure.read``), the number reader (``amounts``) and the date and time reader
(``dates``). See ``structure`` for what is read and why it is hand-written.

Linear time on any input: one tokenising pattern whose repetition is delimited by
characters outside the repeated class; the readers then look a bounded number of tokens
around each token.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from . import tables as tb

_TOKEN = re.compile(r"[^\W_]+(?:[-_./:,][^\W_]+)*|\S")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_THOUSANDS = re.compile(r"\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*")
_CLOCK = re.compile(r"([01]?\d|2[0-3])[:h.]([0-5]\d)(?::[0-5]\d)?")
_HOUR_H = re.compile(r"([01]?\d|2[0-3])h")
_AMPM = re.compile(r"(\d{1,2})(?:[:.](\d\d))?(am|pm)")
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:t.*)?|(\d{4})/(\d{1,2})/(\d{1,2})")
_SLASH_DATE = re.compile(r"(\d{1,2})([/.-])(\d{1,2})\2(\d{2}|\d{4})")
_RANGE = re.compile(r"(\d+(?:[.,]\d+)?)[-–](\d+(?:[.,]\d+)?)")
_GLUED_UNIT = re.compile(r"(\d+(?:[.,]\d+)?)([^\W\d_]+[²2]?)")
_VERSION = re.compile(r"v?\d+(?:\.\d+){2,}[a-z0-9-]*|v\d+(?:\.\d+)*")
_OFFSET = re.compile(r"(utc|gmt)?([+-])(\d{1,2})(?::?(\d{2}))?")
_SENTENCE_END = frozenset(".!?:;\n")
# A sentence-initial capitalised word this common in one of the six languages is a
# function word ("The", "La", "Il"), not a name (wordfreq's Zipf scale).
_FUNCTION_ZIPF = 6.0
# A sentence-initial capitalised word this common may be an ordinary word ("Each").
_COMMON_ZIPF = 3.0


@dataclass(frozen=True)
class Token:
    text: str
    norm: str  # case-folded, NFC, typographic apostrophes made plain
    start: int
    end: int


@dataclass(frozen=True)
class Value:
    """One value a statement states. ``kind`` is number, date, weekday, time, ident or
    name; numbers carry the interval [lo, hi] in the base unit of ``dim``."""

    kind: str
    key: tuple = ()
    dim: str = ""
    lo: float = 0.0
    hi: float = 0.0
    approx: bool = False
    unit: str = ""  # the unit as written (and its period), to compare like with like
    first: int = 0  # token index span
    last: int = 0


@dataclass
class Reading:
    """A statement read: its tokens, values, names and negation count."""

    text: str
    tokens: list[Token]
    values: list[Value] = field(default_factory=list)
    negations: int = 0
    used: set[int] = field(default_factory=set)  # token indices read as part of a value
    known: set[str] | None = None  # plain words, filled by the guard on first use

    def of(self, kind: str) -> list[Value]:
        return [v for v in self.values if v.kind == kind]

    def words(self) -> list[str]:
        """The statement's plain words (letters only), case-folded, values excluded."""
        return [
            t.norm
            for i, t in enumerate(self.tokens)
            if i not in self.used and t.norm[:1].isalpha() and not has_digit(t.norm)
        ]


def fold(text: str) -> str:
    return unicodedata.normalize("NFC", text.replace("’", "'")).casefold()


@lru_cache(maxsize=65536)
def plain(text: str) -> str:
    """Case-folded without accents: "Perú" and "peru" compare equal."""
    decomposed = unicodedata.normalize("NFKD", fold(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def has_alpha(text: str) -> bool:
    return any(c.isalpha() for c in text)


def tokenize(text: str) -> list[Token]:
    tokens = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        if "," in raw and has_alpha(raw):  # "apples,pears" and "5,kg": two tokens
            offset = m.start()
            for part in raw.split(","):
                if part:
                    tokens.append(Token(part, fold(part), offset, offset + len(part)))
                offset += len(part) + 1
            continue
        tokens.append(Token(raw, fold(raw), m.start(), m.end()))
    return tokens


@lru_cache(maxsize=8192)
def zipf(word: str) -> float:
    return max(zipf_in(word, lang) for lang in LANGS)


def parse_number(raw: str) -> float | None:
    """ "1.72", "1,72", "1,000", "1.000", "1.200,50", "1,200.50": thousands are groups
    of exactly three digits after a separator; otherwise the last separator is the
    decimal point."""
    raw = raw.replace(" ", "").replace("\u00a0", "").replace("\u202f", "")
    if (part := fraction(raw[-1:])) is not None:  # "1½", "¾"
        whole = parse_number(raw[:-1]) if len(raw) > 1 else 0.0
        return None if whole is None else whole + part
    if not _NUMBER.fullmatch(raw):
        return None
    seps = [c for c in raw if c in ".,"]
    if not seps:
        return float(raw)
    if len(set(seps)) == 2:
        decimal = raw[max(raw.rfind("."), raw.rfind(","))]
        thousands = "," if decimal == "." else "."
        return _float(raw.replace(thousands, "").replace(decimal, "."))
    if len(seps) > 1 or _THOUSANDS.fullmatch(raw):
        if _THOUSANDS.fullmatch(raw):
            return _float(raw.replace(seps[0], ""))
        return None  # "1.2.3": a version, not a number
    return _float(raw.replace(",", "."))


def fraction(char: str) -> float | None:
    """The value of one vulgar-fraction character ("½", "¾", "⅜"): its Unicode numeric
    value when below one (superscripts such as "²" are whole numbers)."""
    if len(char) != 1 or unicodedata.category(char) != "No":
        return None
    value = unicodedata.numeric(char, None)
    return value if value is not None and 0 < value < 1 else None


def _float(raw: str) -> float | None:
    try:
        return float(raw)
    except ValueError:
        return None


# The last group of a space-grouped number, with its decimals: "1 200,50 €".
_LAST_GROUP = re.compile(r"\d{3}(?:[.,]\d{1,2})?")


def french_thousands(r: Reading) -> None:
    """ "1 200 €", "1 200,50 €": digit groups split by one (narrow) space become one
    token."""
    merged: list[Token] = []
    for token in r.tokens:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and _LAST_GROUP.fullmatch(token.norm)
            and len(prev.text) <= 11
            and re.fullmatch(r"\d{1,3}(?:[ \u00a0\u202f]\d{3})*", prev.text)
            and r.text[prev.end : token.start] in (" ", "\u00a0", "\u202f")
        ):
            text = r.text[prev.start : token.end]
            merged[-1] = Token(text, fold(text), prev.start, token.end)
            continue
        if _swiss_group(merged, token):  # "1'200 CHF", "1’250’000"
            merged.pop()  # the apostrophe
            head = merged.pop()
            text = r.text[head.start : token.end]
            merged.append(Token(text, head.norm + token.norm, head.start, token.end))
            continue
        merged.append(token)
    r.tokens = merged


def _swiss_group(merged: list[Token], token: Token) -> bool:
    """Three digits glued to an apostrophe glued to a number: a thousands group."""
    if len(merged) < 2 or not (token.norm.isdigit() and len(token.norm) == 3):
        return False
    mark, head = merged[-1], merged[-2]
    return (
        mark.norm == "'"
        and head.end == mark.start
        and mark.end == token.start
        and len(head.norm) <= 12
        and head.norm.isdigit()
        and (len(head.norm) <= 3 or "'" in head.text or "’" in head.text)
    )


def take(r: Reading, value: Value) -> None:
    r.values.append(value)
    r.used.update(range(value.first, value.last + 1))


def free(r: Reading, i: int) -> bool:
    return 0 <= i < len(r.tokens) and i not in r.used


def small_int(r: Reading, i: int, low: int, high: int) -> int | None:
    if not free(r, i):
        return None
    raw = r.tokens[i].norm.rstrip(".")
    for suffix in ("st", "nd", "rd", "th", "º", "°", "ª", "er", "o"):
        if raw.endswith(suffix) and raw[: -len(suffix)].isdecimal():
            raw = raw[: -len(suffix)]
    if not raw.isdecimal() or len(raw) > 4:
        return None
    number = int(raw)
    return number if low <= number <= high else None


def next_norm(r: Reading, i: int) -> str:
    return r.tokens[i + 1].norm.rstrip(".") if i + 1 < len(r.tokens) else ""


def ampm_after(r: Reading, i: int) -> bool:
    return i + 1 < len(r.tokens) and r.tokens[i + 1].norm.rstrip(".") in tb.AM_PM


LANGS = ("en", "it", "pt", "es", "fr", "de")


@lru_cache(maxsize=16384)
def zipf_in(word: str, lang: str) -> float:
    from wordfreq import zipf_frequency  # deferred: loads its word lists on first use

    # The "small" lists (the most common words) load in 0.25 s for six languages, the
    # "best" ones in about 9 s, and tell function and common words from names as well.
    return zipf_frequency(word, lang, wordlist="small")


def language(r: Reading) -> str:
    """The likeliest of the six languages, by how common the first words are in each
    (wordfreq); "" when nothing tells."""
    scores = dict.fromkeys(LANGS, 0.0)
    words = list(itertools.islice((t.norm for t in r.tokens if t.norm.isalpha()), 40))
    for word in words:
        for lang in LANGS:
            scores[lang] += zipf_in(word, lang)
    best = max(scores, key=scores.__getitem__)
    return best if scores[best] > 0 else ""
