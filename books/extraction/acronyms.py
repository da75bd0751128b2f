"""Acronyms and their expansions: "Distinguished Encoding Rules (DER)", "DER (Distinguished
Encoding Rules)". The expansion's initials must spell the acronym; the expansion's head
noun types it ("... Rules" a standard, "... Protocol" a protocol)."""

from __future__ import annotations

import re

from books.extraction.types import type_from_noun

# The expansion starts a word and its words are read whole (possessive): tried from
# every letter of a run of capitals, the old form re-read the run each time (quadratic).
_ACRONYM_AFTER = re.compile(
    r"(?<![\w-])(?P<exp>(?:[A-Z][\w-]*+\s+(?:(?:of|for|and|the|on|in|to)\s+)?){1,7}[A-Z][\w-]*+)\s*"
    r"\((?P<acr>[A-Z][A-Za-z0-9.&/-]{1,11})(?:[,;][^)]{0,60})?\)"
)
_ACRONYM_BEFORE = re.compile(
    r"(?<![\w.-])(?P<acr>[A-Z][A-Z0-9.&/-]{1,11})\s*"
    r"\((?P<exp>[A-Z][\w-]*(?:\s+[\w-]+){1,7})\)"
)
_FUNCTION_WORDS = frozenset({"of", "for", "and", "the", "on", "in", "to", "a", "an"})


def _acronym_initials(expansion: str) -> str:
    return "".join(w[0].upper() for w in expansion.split() if w.casefold() not in _FUNCTION_WORDS)


def _acronym_letters(acronym: str) -> str:
    return "".join(c for c in acronym if c.isupper())


def _fit_expansion(acronym: str, expansion: str, *, from_end: bool) -> str | None:
    """The part of ``expansion`` whose initials spell ``acronym`` (None if none does)."""
    letters = _acronym_letters(acronym)
    if len(letters) < 2:
        return None
    words = expansion.split()
    spans = range(len(words)) if from_end else range(len(words), 0, -1)
    for cut in spans:
        piece = words[cut:] if from_end else words[:cut]
        if not piece or piece[0].casefold() in _FUNCTION_WORDS:
            continue
        initials = _acronym_initials(" ".join(piece))
        if initials == letters or (
            initials.startswith(letters) and len(initials) - len(letters) <= 1
        ):
            if piece[-1].casefold() in _FUNCTION_WORDS:
                continue
            return " ".join(piece)
    return None


def acronyms_find(text: str) -> list[tuple[str, str, int, int, str]]:
    """(acronym, expansion, start, end, type) for each acronym the text spells out."""
    found: list[tuple[str, str, int, int]] = []
    for match in _ACRONYM_AFTER.finditer(text):
        expansion = _fit_expansion(match.group("acr"), match.group("exp"), from_end=True)
        if expansion:
            found.append((match.group("acr"), expansion, match.start("acr"), match.end("acr")))
    for match in _ACRONYM_BEFORE.finditer(text):
        expansion = _fit_expansion(match.group("acr"), match.group("exp"), from_end=False)
        if expansion:
            found.append((match.group("acr"), expansion, match.start("acr"), match.end("acr")))
    result = []
    for acronym, expansion, start, end in found:
        expansion = " ".join(expansion.split())
        nouns = [type_from_noun(w) for w in reversed(expansion.split())]
        result.append((acronym, expansion, start, end, next((t for t in nouns if t), "concept")))
    return result
