"""Synthetic training pairs made by code from real statements: a number changed
(contradiction), an amount written in another unit or a date in another format
(duplicate), a negation put before the copula (contradiction), an identifier changed
(compatible: another thing), the statement again with other case and punctuation
(duplicate). They join the training folds only; a scored fold is always human-written.

Deterministic: each statement's variants depend on its text alone.
"""

from __future__ import annotations

import hashlib
import re

from .evaluation import Pair
from .structure import read

# Units written as symbols (language-neutral) and a smaller unit of the same dimension.
_SMALLER = {
    "km": ("m", 1000),
    "kg": ("g", 1000),
    "m": ("cm", 100),
    "l": ("ml", 1000),
    "h": ("min", 60),
    "gb": ("MB", 1000),
    "tb": ("GB", 1000),
    "min": ("s", 60),
}
_MONTH_NUMBERS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip
_COPULA_NEGATION = {
    "en": (r"\b(is|are|was|were)\b", r"\1 not"),
    "it": (r"\b(è|sono|era|erano)\b", r"non \1"),
    "pt": (r"\b(é|são|era|eram|está|estão)\b", r"não \1"),
    "es": (r"\b(es|son|era|eran|está|están)\b", r"no \1"),
    "fr": (r"\b(est|sont|était)\b", r"n'\1 pas"),
}
_DATE = re.compile(
    r"\b(\d{1,2}) (January|February|March|April|May|June|July|August|September|October|"
    r"November|December) (\d{4})\b"
)
_NUMBER_UNIT = re.compile(r"\b(\d+)\s?(km|kg|m|l|h|gb|tb|min)\b", re.IGNORECASE)
_BARE_NUMBER = re.compile(r"(?<![\d.,:/-])\b(\d{1,4})\b(?![\d.,:/-])")
_CODE = re.compile(r"\b([A-Za-z]+[-_]?)(\d{2,})\b")


def pick(text: str, salt: str, n: int) -> int:
    """A choice among ``n`` fixed by the text and the salt: the same file gives the same
    synthetic pairs on every run (``rewrites`` uses it too)."""
    digest = hashlib.sha256(f"{salt}:{text}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % n


def synthetic_pairs(pairs: list[Pair]) -> list[Pair]:
    """Variants of the statements of ``pairs`` (each statement once, sorted)."""
    statements = sorted({(p.existing.strip(), p.lang or "") for p in pairs})
    made: list[Pair] = []
    for text, lang in statements:
        for label, variant in _variants(text, lang):
            if variant and variant != text:
                made.append(Pair(f"syn-{len(made)}", lang or None, text, variant, label))
    return made


def _variants(text: str, lang: str) -> list[tuple[str, str]]:
    out = [("duplicate", _restyled(text))]
    if m := _NUMBER_UNIT.search(text):
        smaller = _SMALLER.get(m.group(2).lower())
        if smaller:
            amount = int(m.group(1)) * smaller[1]
            out.append(
                ("duplicate", text[: m.start()] + f"{amount} {smaller[0]}" + text[m.end() :])
            )
    if m := _DATE.search(text):
        month = _MONTH_NUMBERS[m.group(2).lower()]
        iso = f"{m.group(3)}-{month:02d}-{int(m.group(1)):02d}"
        out.append(("duplicate", text[: m.start()] + iso + text[m.end() :]))
    if m := _BARE_NUMBER.search(text):
        step = 1 + pick(text, "number", 9)
        changed = str(int(m.group(1)) + step)
        out.append(("contradiction", text[: m.start()] + changed + text[m.end() :]))
    if m := _CODE.search(text):
        digits = m.group(2)
        i = pick(text, "code", len(digits))
        swapped = digits[:i] + str((int(digits[i]) + 1) % 10) + digits[i + 1 :]
        out.append(("compatible", text[: m.start(2)] + swapped + text[m.end(2) :]))
    negation = _COPULA_NEGATION.get(lang)
    if negation and read(text).negations == 0:
        pattern, replacement = negation
        negated = re.sub(pattern, replacement, text, count=1)
        if negated != text:
            out.append(("contradiction", negated))
    return out


def _restyled(text: str) -> str:
    """The same statement with its first letter's case flipped and no final stop."""
    stripped = text.rstrip(".!").rstrip()
    if not stripped:
        return text
    first = stripped[0].lower() if stripped[0].isupper() else stripped[0].upper()
    return first + stripped[1:]
