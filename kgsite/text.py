"""Text normalisation shared by every lookup, constraint and index in the project."""

from __future__ import annotations

import re
import unicodedata

_WS = re.compile(r"\s+")
# C0/C1 control characters other than ordinary whitespace.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Invisible characters that make two names look alike but compare different: zero-width
# space, bidi marks, embeddings, overrides and isolates, the word joiner family and the
# byte-order mark. The zero-width joiners U+200C/U+200D stay allowed: Persian, Indic
# scripts and emoji sequences need them.
_INVISIBLE = re.compile("[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")

# Turkish and Azeri write the dotted capital İ for i and the dotless ı for the capital I:
# "İZMIR KIŞLA" and "İzmir Kışla" are one name. str.casefold folds İ to "i" plus a
# combining dot and keeps ı, so both are folded to their plain Latin letters first (one
# character for one: offsets into the original text stay where they were).
DOTTED_CAPITAL_I, DOTLESS_I = "\u0130", "\u0131"

MAX_NAME_LENGTH = 512
# str.casefold lengthens a character to at most three ("ﬃ" -> "ffi"): the normalised
# columns hold a name of MAX_NAME_LENGTH characters however it folds.
MAX_NORM_LENGTH = 3 * MAX_NAME_LENGTH


def turkish_i_plain(text: str) -> str:
    """İ and ı as the plain I and i, one character for one.

    ``str.replace`` runs in C and returns the text itself when the letter is absent;
    ``str.translate`` with a table costs a lookup per character (35 ms for 320,000
    characters, a third of the time the gazetteer takes to match them)."""
    if DOTTED_CAPITAL_I in text:
        text = text.replace(DOTTED_CAPITAL_I, "I")
    if DOTLESS_I in text:
        text = text.replace(DOTLESS_I, "i")
    return text


def fold_case(text: str) -> str:
    """``str.casefold`` with the Turkish dotted and dotless i folded to i."""
    return turkish_i_plain(text).casefold()


# "i" followed by the combining dot above: what Python's and JavaScript's default lower()
# make of İ ("İzmir".lower() is "i\u0307zmir"). The dot on a lower-case i says nothing, so
# it folds away and the name is the one İ and I spell.
I_WITH_DOT_ABOVE = "i\u0307"


def drop_dot_above_i(text: str) -> str:
    """``i`` plus U+0307 as a plain ``i`` (two characters for one; C speed when absent)."""
    return text.replace(I_WITH_DOT_ABOVE, "i") if I_WITH_DOT_ABOVE in text else text


def normalize(text: str) -> str:
    """NFC, full case folding, trimmed and collapsed whitespace.

    Case folding is ``str.casefold`` (``"STRASSE"`` matches ``"Straße"``, final sigma is
    sigma, ligatures are their letters) plus the Turkish İ/ı (``fold_case``) and the i with
    a combining dot that a default lower() makes of İ (``drop_dot_above_i``); accents stay
    significant (``"Sao Paulo"`` is not ``"São Paulo"``). NFC is applied again after
    folding because folding can produce decomposed sequences.
    """
    folded = drop_dot_above_i(fold_case(unicodedata.normalize("NFC", text)))
    return _WS.sub(" ", unicodedata.normalize("NFC", folded)).strip()


def clean_display(text: str) -> str:
    """The display form of a name: NFC, trimmed, whitespace collapsed, case kept."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def type_tag(value: str) -> str:
    """A type as the case-free tag it is stored as: "ProgrammingLanguage" and
    "programming-language" are "programming_language" (no checks: see normalize_type)."""
    snake = _CAMEL.sub("_", clean_display(value))
    return normalize(snake).replace(" ", "_").replace("-", "_")


def shows_nothing(text: str) -> bool:
    """Whether ``text`` would show nothing: only whitespace and Unicode format characters
    (category Cf: zero-width spaces, word joiners, a byte-order mark, bidi marks)."""
    return all(c.isspace() or unicodedata.category(c) == "Cf" for c in text)


def has_control_chars(text: str) -> bool:
    return bool(_CONTROL.search(text))


def invisible_char(text: str) -> str | None:
    """The first invisible formatting character of a name ("U+200B"), or None.

    Only names are checked: running text (facts, books) may carry bidi marks legitimately.
    """
    found = _INVISIBLE.search(text)
    return f"U+{ord(found.group()):04X}" if found else None
