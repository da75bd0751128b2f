"""Strict matching for candidate entities (found by extraction, not yet confirmed): never
inside a URL or a path, and a name that is a common word or in capitals only as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from kgsite.text import normalize

# --- Candidate entities: strict matching ------------------------------------------------

# Zipf frequency (wordfreq) from which an English word is common: a candidate named by
# such a word ("Document", "NULL") matches only as written, never the ordinary word.
COMMON_ZIPF = 3.5


@cache
def word_zipf(word: str, lang: str) -> float:
    from wordfreq import zipf_frequency  # deferred: the word-frequency tables take seconds to load

    return zipf_frequency(word, lang)


def is_common_word(name: str, lang: str = "en") -> bool:
    """A single word common enough in ``lang`` never to be a name by itself.

    Only as prose writes the word (lower case, capitalised or in capitals): "cURL" and
    "GitHub" are not the words "curl" and "github".
    """
    word = name.strip()
    folded = word.casefold()
    if not word.isalpha() or word not in (folded, folded.capitalize(), folded.upper()):
        return False  # "--canvas-size", "x.y": wordfreq would score their parts
    return word_zipf(folded, lang) >= COMMON_ZIPF


def _in_url_or_path(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` sits inside a URL, a file path or an e-mail address."""
    if (start > 0 and text[start - 1] in "/\\@~") or text[end : end + 1] in ("/", "\\", "@"):
        return True
    left = start
    while left > 0 and not text[left - 1].isspace() and start - left < 200:
        left -= 1
    right = end
    while right < len(text) and not text[right].isspace() and right - end < 200:
        right += 1
    token = text[left:right]
    return "://" in token or token.startswith(("/", "~/", "./", "../"))


def _needs_exact_case(form: str) -> bool:
    letters = [c for c in form if c.isalpha()]
    return bool(letters) and (all(c.isupper() for c in letters) or is_common_word(form))


def strict_match_allows(text: str, start: int, end: int, forms: Iterable[str]) -> bool:
    """Whether a candidate entity written ``forms`` may be matched at ``text[start:end]``.

    Never inside a URL or a path; an all-capitals name or acronym ("DER", "NULL") and a
    name that is a common word ("Document") only in exactly that case; other names
    case-insensitively, as curated entities are.
    """
    if _in_url_or_path(text, start, end):
        return False
    surface = " ".join(text[start:end].split())
    norm = normalize(surface)
    for form in forms:
        written = " ".join(form.split())
        if normalize(written) != norm:
            continue
        if not _needs_exact_case(written) or surface == written:
            return True
    return False
