"""More general ways a document marks or defines a term, as sources of the term pool
(``books.extraction.termhood``):

* words shaped as names (an acronym, a word with an inner capital);
* bold text (``**term**``, what Markdown and converted HTML write for <b>/<strong>);
* structured tokens no word tokenizer keeps whole: paths and media types
  (``inode/directory``), file names (``zlib.h``), dotted or sigil names (``.PHONY``,
  ``$HOME``, ``_POSIX_X``);
* definition sentences in the copular forms of other languages ("X è un ...",
  "X é uma ...", "X est un ...", "X es un ..."; ``termhood`` reads the English
  ones), a verb defined by an infinitive ("To X a work means ..."), a quoted term that
  "refers to", "denotes" or "stands for" something.

Every pattern is linear: each repeated group starts with a character its neighbour
cannot hold, so a text is read one way only.
"""

from __future__ import annotations

import re
from functools import lru_cache

# A name's shape: capitals throughout (an acronym: "IANA", "JFIF") or inside a word
# ("OpenSSL", "iPhone"). Runs of disjoint classes: linear.
_SHAPED = re.compile(r"(?<![\w.$/-])(?:[A-Z]{2,}[0-9]*|[A-Z]?[a-z]+[A-Z][A-Za-z0-9]*)(?![\w-])")
_BOLD = re.compile(r"\*\*(?P<b>[^*\n]{2,60})\*\*")
# A token joined by "/", "." or "_" (or opened by ".", "$" or "_"): every joined part
# starts after a separator, so the repetition cannot re-read its own characters.
_STRUCTURED = re.compile(
    r"(?<![\w./:@$-])(?P<tok>[.$_]?[A-Za-z][\w$+-]*(?:[./][\w$+-]*[\w$+])+|[.$_][A-Za-z][\w$]*)"
    r"(?![\w$/]|\.\w)"
)
# Copulas followed by an article in the Romance languages (Italian, Portuguese, Spanish,
# French; ``termhood`` reads the English ones): a closed set of function words.
_ARTICLE_COPULA = (
    r"(?:è|sono|é|são|es|son|est|sont|significa|indica)\s+"
    r"(?:un|una|uno|un'|il|lo|la|le|gli|i|um|uma|o|os|as|a|el|los|las|une|des)\b"
)
_SUBJECT = r"(?P<term>[\w$.+-]+(?:[ ][\w$.+-]+){0,3})"
_COPULAR = re.compile(
    r"(?:^|[.;:!?]\s+|\n)(?:(?:[Tt]he|[Aa]n?|[Uu]n[ao]?|[Uu]ma?|[Uu]ne|[Ii]l|[Ll][oae]|[Ll]os|[Ll]as|[Gg]li|[Oo]s?|[Aa]s|[Ee]l)\s+)?"
    rf"[\"“`*]*{_SUBJECT}[\"”`*]*\s+{_ARTICLE_COPULA}"
)
# "To “propagate” a work means ...", "To modify a file means ...".
_INFINITIVE = re.compile(
    r"\b[Tt]o\s+[\"“`*]*(?P<term>[a-z][\w-]*)[\"”`*]*\s+(?:(?:a|an|the)\s+)?[\w-]+\s+means\b"
)
# '"The Program" refers to', 'The term “X” is defined as', '“X” denotes'.
_QUOTED_DEFINED = re.compile(
    r"[\"“](?P<term>[^\"”\n]{2,60})[\"”],?\s+"
    r"(?:refers to|is defined as|denotes|stands for|means|is used to (?:mean|refer))\b"
)


def marked(text: str) -> list[tuple[str, str, int]]:
    """(term, source, offset) for bold text and structured tokens."""
    found: list[tuple[str, str, int]] = []
    for match in _BOLD.finditer(text):
        raw = match.group("b")
        bold = raw.strip()
        if len(bold.split()) <= 4:
            # The offset of the stripped term: "** means **" marks "means" at its "m".
            found.append((bold, "bold", match.start("b") + len(raw) - len(raw.lstrip())))
    for match in _STRUCTURED.finditer(text):
        token = match.group("tok")
        parts = [p for p in re.split(r"[./]", token) if p]
        if all(len(p) <= 2 for p in parts):
            continue  # e.g, i.e, a.m: abbreviations
        found.append((token, "token", match.start("tok")))
    for match in _SHAPED.finditer(text):
        found.append((match.group(), "shape", match.start()))
    return found


# Each definition pattern runs only on a text holding one of its verbs (a plain search):
# most texts, a novel's above all, hold none, and the full patterns cost far more.
_ROMANCE_VERB = re.compile(r"\s(?:è|sono|é|são|es|son|est|sont|significa|indica)\s")
_DEFINING_VERB = re.compile(r"\b(?:means|refers|denotes|stands for|defined as|is used to)\b")


def defined(text: str) -> list[tuple[str, int]]:
    """(term, offset) of the terms definition sentences introduce."""
    patterns = []
    if _ROMANCE_VERB.search(text):
        patterns.append(_COPULAR)
    if _DEFINING_VERB.search(text):
        patterns += [_INFINITIVE, _QUOTED_DEFINED]
    found: list[tuple[str, int]] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            found.append((match.group("term"), match.start("term")))
    return found


_PROSE_WORDS = re.compile(r"(?:[A-Za-z][a-z'’]*+[ \t]++){4}[A-Za-z]")
_AFTER_NAME = re.compile(
    r"(?:\([^()\n]{0,80}\))?[\"”'`*]*+[ \t]*+(?:[-–—:][ \t]*+)?(?:\n[ \t]*+)?([A-Za-z]+)"
)


def described(text: str, display: str) -> list[float]:
    """Whether the chunk describes the term in prose: the share of its lines that are
    prose (a synopsis or a code block declares names without describing them), and
    whether an occurrence of the term is followed by a lower-case word opening prose
    ("name() transmits...", "-x  tells...", "term: a word...")."""
    prose = prose_share(text)
    name = display.removesuffix("()")
    subject = 0.0
    at = text.find(name) if name else -1
    seen = 0
    while at >= 0 and seen < 20:
        seen += 1
        line = text[text.rfind("\n", 0, at) + 1 : at]
        if not line.strip(" \t-*+•`'\"“("):
            follow = _AFTER_NAME.match(text, at + len(name))
            if follow and (follow.group(1).islower() or _entry_body(line, follow.group())):
                subject = 1.0
                break
        at = text.find(name, at + len(name))
    return [prose, subject]


def opens_entry(text: str, display: str) -> bool:
    """The term (or its plural in "s") opens a line of the chunk as a whole word and the
    line goes on to describe it: lower-case prose or a deeper indented description
    ("term: a word...", "-x  tells...", an entry over its description). Stricter than
    ``described``: "width" opening "widthwise ..." is another word, and a line holding a
    statement of code (a ';' after the name: ``alias int COUNT;``) declares, it does not
    describe."""
    name = display.removesuffix("()")
    at = text.find(name) if name else -1
    seen = 0
    while at >= 0 and seen < 20:
        seen += 1
        end = at + len(name)
        if name[-1:].isalpha() and text[end : end + 1] == "s":
            end += 1  # the plural: "widgets" over the entry of "widget"
        line = text[text.rfind("\n", 0, at) + 1 : at]
        whole = not (text[end : end + 1].isalnum() or text[end : end + 1] == "_")
        if whole and not line.strip(" \t-*+•`'\"“("):
            follow = _AFTER_NAME.match(text, end)
            eol = text.find("\n", end)
            rest = text[end : eol if eol >= 0 else len(text)]
            if (
                follow
                and (follow.group(1).islower() or _entry_body(line, follow.group()))
                and ";" not in rest
            ):
                return True
        at = text.find(name, at + len(name))
    return False


def _entry_body(line: str, follow: str) -> bool:
    """The words after the term start the next line, indented deeper than the term's
    own: a definition list's description, whatever its first word's case."""
    if "\n" not in follow:
        return False
    indent = len(line) - len(line.lstrip(" \t"))
    body = follow[follow.index("\n") + 1 :]
    return len(body) - len(body.lstrip(" \t")) > indent


@lru_cache(maxsize=4096)
def prose_share(text: str) -> float:
    """The share of a chunk's non-blank lines that are prose (five words or more)."""
    lines = [line for line in text.split("\n") if line.strip()]
    return sum(1 for line in lines if _PROSE_WORDS.search(line)) / (len(lines) or 1)


# Parts of a name that mark it as a stand-in (the metasyntactic words of examples).
_PLACEHOLDER_PARTS = frozenset({"foo", "bar", "baz", "qux", "quux", "xyzzy", "example"})
_PLACEHOLDER_HEADS = frozenset({"some", "my", "your", "example", "sample", "dummy", "fake"})
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def is_placeholder(name: str) -> bool:
    """A stand-in name of an example: a metasyntactic part (``libfoo``) or a joined name
    opening on "Some"/"My" (``SomeThing``)."""
    parts = [p.casefold() for p in _CAMEL_PART.findall(name)]
    if any(p in _PLACEHOLDER_PARTS for p in parts):
        return True
    if any(p.endswith("foo") or p.startswith("foo") and p[3:] in _PLACEHOLDER_PARTS for p in parts):
        return True
    joined = _CAMEL_PART.findall(name)
    return (
        len(joined) >= 2
        and " " not in name
        and parts[0] in _PLACEHOLDER_HEADS
        and joined[1][:1].isupper()
        and joined[1][1:].islower()
    )
