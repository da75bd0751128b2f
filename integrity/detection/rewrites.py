"""Targeted synthetic pairs (issue 28, round 3): rewrites of one statement made through
the structure reader, for the error categories of the issue. The same amount in another
unit of its dimension, a date in another format, a small number written in words:
duplicates. An amount or a date changed: contradictions. A negation word taken out
(``not``/``non``/``não``/``nicht``, "isn't" -> "is"): a contradiction.

Each rewrite is read again and kept only when the reader sees what it was meant to say
(the same amount and date, or a changed one, or another negation count), so a rewrite
never teaches a pair the reader itself misreads. Units and number words come from the
reader's own tables (``tables.UNITS``, ``tables.NUMBER_WORDS``); the word for a number
and the month name are the ones commonest in the statement's language (wordfreq).

Deterministic: each statement's rewrites depend on its text alone.
"""

from __future__ import annotations

import math

from . import tables as tb
from .evaluation import Pair
from .structure import Reading, Value, language, read
from .synthetic import pick
from .tokens import zipf_in

# Negation words that can be taken out and leave a sentence ("without" cannot).
_PLAIN_NEGATIONS = frozenset({"not", "non", "não", "nao", "nicht"})
# Units written in symbols a dimension may be rewritten to (language-neutral).
_SYMBOLS = tb._words(
    "mm cm m km in ft mi mg g kg lb oz t ml l s min h ms kb mb gb tb b w kw hz khz mhz ghz"
)


def rewritten_pairs(pairs: list[Pair]) -> list[Pair]:
    """The checked rewrites of the stored statements of ``pairs`` (each once, sorted)."""
    statements = sorted({(p.existing.strip(), p.lang or "") for p in pairs})
    made: list[Pair] = []
    for text, lang in statements:
        for label, rewritten in dict.fromkeys(rewrites(text, lang)):
            made.append(Pair(f"rewrite-{len(made)}", lang or None, text, rewritten, label))
    return made


def rewrites(text: str, lang: str) -> list[tuple[str, str]]:
    """(label, rewritten statement) pairs of ``text``, each checked by reading it again."""
    r = read(text)
    lang = lang or language(r)
    out: list[tuple[str, str]] = []
    amounts = [v for v in r.of("number") if _plain_amount(v) and not _after_name(r, v)]
    if amounts:
        v = amounts[pick(text, "amount", len(amounts))]
        out += _checked(r, v, "duplicate", _converted(r, v))
        out += _checked(r, v, "duplicate", _in_words(r, v, lang))
        out += _checked(r, v, "contradiction", _changed(r, v))
    dated = [v for v in r.of("date") if len(v.key) == 3 and None not in v.key]
    if dated:
        v = dated[pick(text, "date", len(dated))]
        out += _checked(r, v, "duplicate", _redated(r, v, lang, shift=0))
        out += _checked(r, v, "contradiction", _redated(r, v, lang, shift=1))
    plain = _without_negation(r) if r.negations == 1 else None
    if plain is not None and read(plain).negations == 0:
        out.append(("contradiction", plain))
    return out


def _plain_amount(v: Value) -> bool:
    return not v.approx and v.lo == v.hi and math.isfinite(v.lo) and "/" not in v.dim


def _after_name(r: Reading, v: Value) -> bool:
    """A number right after a capitalised word ("Route 66", "Vexa 7"): a name's part."""
    before = r.tokens[v.first - 1].text if v.first > 0 else ""
    return before[:1].isupper()


def _span(r: Reading, v: Value) -> tuple[int, int]:
    return r.tokens[v.first].start, r.tokens[v.last].end


def _replaced(r: Reading, v: Value, written: str) -> str:
    start, end = _span(r, v)
    return r.text[:start] + written + r.text[end:]


def _number(x: float) -> str | None:
    """``x`` as a person would write it, or None when it would need many digits."""
    if not 1e-3 <= abs(x) < 1e7:
        return None
    rounded = round(x, 3)
    if abs(rounded - x) > 1e-9 * max(1.0, abs(x)):
        return None
    return f"{rounded:.3f}".rstrip("0").rstrip(".")


def _converted(r: Reading, v: Value) -> str | None:
    """An amount written in digits, in another unit of its dimension (from the reader's
    unit table) where it reads between 0.01 and 10,000 with at most three decimals."""
    start, end = _span(r, v)
    if not any(c.isdigit() for c in r.text[start:end]):
        return None
    units = []
    for unit in _SYMBOLS:
        dim, factor = tb.UNITS.get(unit, ("", 0.0))
        written = _number(v.lo / factor) if dim == v.dim and unit != v.unit else None
        if written is not None and 0.01 <= v.lo / factor < 1e4:
            units.append(f"{written} {unit}")
    return _replaced(r, v, units[pick(r.text, "unit", len(units))]) if units else None


def _in_words(r: Reading, v: Value, lang: str) -> str | None:
    """A small whole number without a unit written as the word commonest in ``lang``."""
    if v.dim or v.unit or v.lo != int(v.lo) or not 2 <= v.lo <= 20:
        return None
    words = [w for w, n in tb.NUMBER_WORDS.items() if n == int(v.lo) and w.isalpha()]
    if not words or not lang:
        return None
    word = max(sorted(words), key=lambda w: zipf_in(w, lang))
    return _replaced(r, v, word) if zipf_in(word, lang) > 0 else None


def _changed(r: Reading, v: Value) -> str | None:
    """The amount as written with its number moved: a whole number by 1-9, any other
    by 20-90 %, its unit as written."""
    start, end = _span(r, v)
    written = r.text[start:end]
    value = float(v.key[0]) if v.key else math.nan
    raw = _number(value)
    if raw is None or raw not in written:
        return None
    step = 1 + pick(r.text, "change", 9)
    new = value + step if value == int(value) else value * (1 + step / 10)
    if (changed := _number(round(new, 2))) is None:
        return None
    return r.text[:start] + written.replace(raw, changed, 1) + r.text[end:]


def _redated(r: Reading, v: Value, lang: str, *, shift: int) -> str | None:
    """The date in ISO form or with its month named in ``lang`` (by the statement's
    hash), moved by ``shift`` * 1-9 days when ``shift``."""
    year, month, day = v.key
    if shift:
        day = day + 1 + pick(r.text, "day", 9)
        if day > 28:
            day -= 20
    if pick(r.text, "format", 2) or not lang:
        return _replaced(r, v, f"{year:04d}-{month:02d}-{day:02d}")
    names = sorted(w for w, n in tb.MONTHS.items() if n == month and len(w) > 3)
    name = max(names, key=lambda w: zipf_in(w, lang))
    written = f"{name.capitalize()} {day}, {year}" if lang == "en" else f"{day} {name} {year}"
    return _replaced(r, v, written)


def _checked(r: Reading, v: Value, label: str, rewritten: str | None) -> list[tuple[str, str]]:
    """The rewrite if reading it finds the value unchanged (duplicate) or changed
    (contradiction), the rest of the statement as before."""
    if not rewritten or rewritten == r.text:
        return []
    again = read(rewritten)
    same = [x for x in again.values if x.kind == v.kind and _same(x, v)]
    if label == "duplicate" and same and len(again.values) == len(r.values):
        return [(label, rewritten)]
    if label == "contradiction" and not same and len(again.values) == len(r.values):
        return [(label, rewritten)]
    return []


def _same(x: Value, v: Value) -> bool:
    if v.kind == "date":
        return x.key[:3] == v.key[:3]
    return x.dim == v.dim and math.isclose(x.lo, v.lo, rel_tol=1e-6) and x.hi == x.lo


def _without_negation(r: Reading) -> str | None:
    """The statement with its one plain negation word taken out ("isn't" -> "is")."""
    for i, token in enumerate(r.tokens):
        if i in r.used:
            continue
        if token.norm == "t" and i >= 2 and r.tokens[i - 1].norm == "'":
            stem = r.tokens[i - 2]
            if stem.norm.endswith("n") and stem.norm not in ("can", "won"):
                return r.text[: stem.end - 1] + r.text[token.end :]
        if token.norm in _PLAIN_NEGATIONS:
            end = token.end
            while end < len(r.text) and r.text[end] == " ":
                end += 1
            return r.text[: token.start] + r.text[end:]
    return None
