"""Make two statements name one thing the same way before they are compared.

Two sources, both categories rather than lists of names:

* the entity table: a caller-supplied ``Mentions`` function returns the known names a
  text mentions with their canonical entity ("k8s" and "Kubernetes" both name one
  entity once a curator made it an alias); when one entity is written two ways across
  the pair, the new statement takes the existing one's spelling;
* the shapes of abbreviations, for names no one has curated yet: an initialism of the
  other statement's words or camel-case humps ("BH" / "Belo Horizonte", "TS" /
  "TypeScript", "GH Actions" / "GitHub Actions", "CI" / "continuous integration") and
  a numeronym ("k8s" / "Kubernetes", "i18n" / "internationalisation"), and a name
  shortened from one capitalised word of the other: clipped to its start ("Prom" /
  "Prometheus", "St" / "Street") or contracted to some of its letters in order ("CH" /
  "ClickHouse", "GH" / "Github").

Pure Python: the Django side passes the entity table in as a function.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

# (start, end, canonical key) for each known name in a text.
Mentions = Callable[[str], "list[tuple[int, int, str]]"]

_ACRONYM = re.compile(r"\b[A-Z]{2,5}\b")
_NUMERONYM = re.compile(r"\b(?P<first>[a-zA-Z])(?P<count>\d{1,2})(?P<last>[a-zA-Z])\b")
_WORD = re.compile(r"[^\W\d_]+")
_HUMP = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+")
_FILLER = frozenset(
    {
        "of",
        "the",
        "and",
        "for",
        "de",
        "da",
        "do",
        "di",
        "del",
        "della",
        "dell",
        "e",
        "per",
        "para",
        "pour",
        "des",
        "du",
        "la",
        "für",
        "und",
        "y",
        "et",
        "der",
    }
)


def align(existing: str, new: str, mentions: Mentions | None = None) -> tuple[str, str]:
    """Both texts with a thing named two ways spelled one way (the existing one's)."""
    if mentions is not None:
        existing, new = _align_known(existing, new, mentions)
    existing, new = _expand(existing, new), _expand(new, existing)
    return existing, new


def _align_known(existing: str, new: str, mentions: Mentions) -> tuple[str, str]:
    spelled = {key: existing[s:e] for s, e, key in mentions(existing)}
    out, last = [], 0
    for start, end, key in sorted(mentions(new)):
        if key in spelled and new[start:end].casefold() != spelled[key].casefold():
            out += [new[last:start], spelled[key]]
            last = end
    out.append(new[last:])
    return existing, "".join(out)


def _expand(text: str, other: str) -> str:
    """Abbreviations in ``text`` written out as ``other`` writes them."""
    for m in list(_ACRONYM.finditer(text))[::-1]:
        if m.group(0) in other:
            continue
        expansion = _initialism_in(m.group(0), other)
        if expansion:
            text = text[: m.start()] + expansion + text[m.end() :]
    for m in list(_NUMERONYM.finditer(text))[::-1]:
        expansion = _numeronym_in(m, other)
        if expansion:
            text = text[: m.start()] + expansion + text[m.end() :]
    return text


def _initialism_in(acronym: str, other: str) -> str | None:
    """Consecutive words (or the humps of one camel-case word) of ``other`` whose
    initials spell ``acronym``."""
    letters = acronym.casefold()
    words = list(_WORD.finditer(other))
    for word in words:  # one camel-case word: "TypeScript", "GitHub"
        humps = _HUMP.findall(word.group(0))
        initials = "".join(h[0] for h in humps).casefold()
        if len(humps) == len(letters) > 1 and word.group(0)[:1].isupper() and initials == letters:
            return word.group(0)
    for i in range(len(words)):
        chosen, k = [], i
        while k < len(words) and len(chosen) < len(letters):
            w = words[k].group(0)
            if chosen and w.casefold() in _FILLER:
                k += 1
                continue
            chosen.append(words[k])
            k += 1
        if len(chosen) != len(letters) or not chosen[0].group(0)[:1].isupper():
            continue
        if "".join(w.group(0)[0] for w in chosen).casefold() == letters:
            return other[chosen[0].start() : chosen[-1].end()]
    return None


def _numeronym_in(m: re.Match[str], other: str) -> str | None:
    first, last, count = (
        m.group("first").casefold(),
        m.group("last").casefold(),
        int(m.group("count")),
    )
    for word in _WORD.finditer(other):
        w = word.group(0)
        if len(w) == count + 2 and w[0].casefold() == first and w[-1].casefold() == last:
            return w
    return None


@lru_cache(maxsize=4096)
def initialism_in(acronym: str, other: str) -> str | None:
    """The words of ``other`` whose initials spell ``acronym`` ("FDA" in "the Food and
    Drug Administration"), or None."""
    return _initialism_in(acronym, other)


def numeronym_in(word: str, other: str) -> str | None:
    """The word of ``other`` that ``word`` abbreviates as a numeronym ("k8s"), or None."""
    m = _NUMERONYM.fullmatch(word)
    return _numeronym_in(m, other) if m else None


# A shortened name keeps at least this many letters; clipped, it drops at least
# CLIPPED_MIN ("Petrov" / "Petrova", "Paul" / "Paula" are two names, not one shortened).
SHORT_MIN = 2
CLIPPED_MIN = 2


def shortened_in(word: str, other: str) -> str | None:
    """The capitalised word of ``other`` that ``word`` (a name of one word) shortens,
    or None: ``word`` is its start ("Prom" of "Prometheus", "St" of "Street"), or, written
    in capitals, its first letter and then further letters of it in order ("CH" of
    "ClickHouse"). A shape, not a list: it holds for names nobody has curated."""
    if len(word) < SHORT_MIN or not word[:1].isupper() or not word.isalpha():
        return None
    short = word.casefold()
    capitals = word.isupper()
    for match in _WORD.finditer(other):
        w = match.group(0)
        long = w.casefold()
        if not w[:1].isupper() or len(long) <= len(short) or long[0] != short[0]:
            continue
        clipped = long.startswith(short) and len(long) - len(short) >= CLIPPED_MIN
        if clipped or (capitals and _in_order(short[1:], long[1:])):
            return w
    return None


def _in_order(letters: str, word: str) -> bool:
    rest = iter(word)
    return all(c in rest for c in letters)
