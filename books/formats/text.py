"""Headings of technical plain text: underlines, numbering, capitals, manual pages.

Manuals, READMEs, licences and release notes written as plain text mark their sections
the way AsciiDoc and reStructuredText do (a title underlined, or over- and underlined,
with ``===`` or ``---``), or number them ("4.3 DER functions", "0. Definitions.",
"3.1 - How it works", "A.  Options", " 7. Why does it fail?"), or write them in
capitals ("SYNOPSIS"), or decorate them ("*** Data formats ***"), or repeat one shape
("Version 2.1 (3 May 2001)", one per release). A rendered manual page has its own
layout: section names flush left, subsections indented by a few spaces, the body by
more (``man_headings``). Novels do none of that, so ``technical_headings`` returns
nothing for them and the chapter rules apply.
"""

from __future__ import annotations

import re
from collections import Counter

Heading = tuple[int, int, str]

_UNDERLINE = re.compile(r"^[ \t]*(=+|-+|~+|\^+|\*+|\++|#+)[ \t]*$")
_LEVEL_OF = {"=": 1, "-": 2, "~": 3, "^": 4, "*": 3, "+": 4, "#": 1}
# "4.3 DER functions", "2. Installation", "3.1 - How it works", "0. Definitions.",
# "A.  Selection Options", "a.  The basics": a number or a letter, then a title.
_NUMBERED = re.compile(
    r"^(?P<number>\d{1,2}(?:\.\d{1,2})*\.?|[A-Za-z]\.)"
    r"(?:[ \t]+[-–—:])?[ \t]+(?P<title>\S[^\n]{0,90})$"
)
# "*** Data formats ***", "=== Options ===", "-- Notes --": a decorated title line.
_MARKS = "*=~#-"
TITLE_MAX = 71
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s")
_FIRST_WORD = re.compile(r"^[A-Z][\w-]*")
# Setext or numbered headings needed before the text counts as technical.
MIN_UNDERLINED = 2
MIN_NUMBERED = 3
# A title line that repeats one shape ("Version N ...") this many times.
MIN_REPEATED = 3


def _lines(text: str, start: int, end: int) -> list[tuple[int, str]]:
    lines: list[tuple[int, str]] = []
    pos = start
    for raw in text[start:end].split("\n"):
        lines.append((pos, raw))
        pos += len(raw) + 1
    return lines


def _blank(lines: list[tuple[int, str]], i: int) -> bool:
    return i < 0 or i >= len(lines) or not lines[i][1].strip()


def _underlined(lines: list[tuple[int, str]]) -> list[Heading]:
    """Titles underlined (or over- and underlined) with one repeated character; levels
    by the order in which each style first appears, as reStructuredText assigns them."""
    found: list[tuple[int, str, str]] = []
    for i in range(1, len(lines)):
        mark = _UNDERLINE.match(lines[i][1])
        title = lines[i - 1][1].strip()
        if not mark or not title or _UNDERLINE.match(lines[i - 1][1]):
            continue
        over = (
            i >= 2
            and (m := _UNDERLINE.match(lines[i - 2][1]))
            and m.group(1)[0] == mark.group(1)[0]
        )
        if _LIST_MARK.match(lines[i - 1][1]) or not (over or _blank(lines, i - 2)):
            continue  # a setext title stands after a blank line (or opens the text)
        if abs(len(mark.group(1)) - len(title)) > max(3, len(title) // 3) and not over:
            continue  # a rule under a paragraph line, not an underline of it
        style = ("over" if over else "") + mark.group(1)[0]
        found.append(
            (lines[i - 1][0] + len(lines[i - 1][1]) - len(lines[i - 1][1].lstrip()), style, title)
        )
    order: dict[str, int] = {}
    for _pos, style, _title in found:
        order.setdefault(style, len(order) + 1)
    return [(pos, order[style], title) for pos, style, title in found]


def _numbered(lines: list[tuple[int, str]]) -> tuple[list[Heading], int]:
    """Numbered titles standing alone (blank before; blank or an underline after), and
    how many of them are numbered with digits (letters alone never make text technical).
    A numbered paragraph ("1. This agreement is ...") runs on to the next line."""
    found: list[Heading] = []
    digits = 0
    for i, (pos, raw) in enumerate(lines):
        line = raw.strip()
        match = _NUMBERED.match(line)
        if match is None or line[-1] in ",;:" or not _blank(lines, i - 1):
            continue
        if not (_blank(lines, i + 1) or _UNDERLINE.match(lines[i + 1][1])):
            continue
        title = match.group("title")
        if line.endswith(".") and (len(title.split()) > 8 or title.count(". ")):
            continue  # a numbered sentence, not a title
        if len(raw) - len(raw.lstrip()) > 4:
            continue  # an indented table of contents line
        number = match.group("number").rstrip(".")
        if number[:1].isdigit():
            digits += 1
            level = number.count(".") + 1
        else:
            level = 1 if number.isupper() else 2
        found.append((pos + len(raw) - len(raw.lstrip()), level, line))
    return found, digits


def _capitals(lines: list[tuple[int, str]], level: int) -> list[Heading]:
    found: list[Heading] = []
    for i, (pos, raw) in enumerate(lines):
        line = raw.strip()
        letters = [c for c in line if c.isalpha()]
        if (
            not 3 <= len(line) <= 60
            or len(letters) < 3
            or not all(c.isupper() for c in letters)
            or raw[:1].isspace()
            or not _blank(lines, i - 1)
            or (not _blank(lines, i + 1) and not raw.endswith(":"))
        ):
            continue
        found.append((pos, level, line.rstrip(":")))
    return found


def _decorated(lines: list[tuple[int, str]], level: int) -> list[Heading]:
    found: list[Heading] = []
    for pos, raw in lines:
        title = decorated_title(raw.strip())
        if title and any(c.isalpha() for c in title):
            found.append((pos, level, title))
    return found


def decorated_title(line: str) -> str | None:
    """The title between a line's opening run of marks (two or more of ``*=~#-``) and
    the same marks closing it, blanks around it dropped; the longest such opening run
    first. A title opens on no mark but "-" and holds at most ``TITLE_MAX`` characters.

    The pattern this replaces (the marks, a lazy title, a back-reference to the marks)
    tried every shorter opening run against the whole line: 85 s on a 160 KB line of dashes.
    Here each run length is checked by its title's length first."""
    n = len(line)
    run, closing = n - len(line.lstrip(_MARKS)), n - len(line.rstrip(_MARKS))
    if run < 2:
        return None
    inner = line[run : n - closing] if run + closing <= n else ""
    lead = len(inner) - len(inner.lstrip(" \t"))
    trail = len(inner) - len(inner.rstrip(" \t"))
    for k in range(min(run, closing), 1, -1):
        start = k + (lead if k == run else 0)  # blanks follow the marks only after all
        end = n - k - (trail if k == closing else 0)
        if not 1 <= end - start <= TITLE_MAX or line[n - k :] != line[:k]:
            continue
        if line[start] in "*=~#" or line[start].isspace():
            continue
        return line[start:end]
    return None


def _repeated(lines: list[tuple[int, str]]) -> list[Heading]:
    """Short isolated lines, flush left and without final punctuation, whose first word
    opens at least ``MIN_REPEATED`` of them: one per release, per version, per part."""
    alone: list[tuple[int, str, str]] = []
    for i, (pos, raw) in enumerate(lines):
        line = raw.strip()
        if (
            not raw[:1].isspace()
            and 3 <= len(line) <= 60
            and line[-1] not in ".,;:!?"
            and _blank(lines, i - 1)
            and _blank(lines, i + 1)
            and (first := _FIRST_WORD.match(line))
            and any(c.isdigit() for c in line)
        ):
            alone.append((pos, first.group(), line))
    counts = Counter(word for _pos, word, _line in alone)
    return [(pos, 1, line) for pos, word, line in alone if counts[word] >= MIN_REPEATED]


def technical_headings(text: str, start: int, end: int) -> list[Heading]:
    """Headings of a technical text file, or [] when it marks none the technical way."""
    lines = _lines(text, start, end)
    if man := man_headings(lines):
        return man
    underlined = _underlined(lines)
    numbered, digits = _numbered(lines)
    repeated = _repeated(lines)
    decorated = _decorated(lines, 2)
    if (
        len(underlined) < MIN_UNDERLINED
        and digits < MIN_NUMBERED
        and len(repeated) < MIN_REPEATED
        and len(decorated) < MIN_REPEATED
    ):
        return []
    headings = {h[0]: h for h in underlined}
    for group, enough in ((numbered, digits >= MIN_NUMBERED or underlined), (repeated, True)):
        if enough:
            for heading in group:
                headings.setdefault(heading[0], heading)
    deepest = max((h[1] for h in headings.values()), default=1)
    for heading in decorated if len(decorated) >= 2 else ():
        headings.setdefault(heading[0], (heading[0], deepest + 1, heading[2]))
    taken = {h[0] for h in headings.values()}
    for heading in _capitals(lines, 1 if not headings else deepest + 1):
        if heading[0] not in taken:
            headings[heading[0]] = heading
    return sorted(headings.values())


# --- manual pages ----------------------------------------------------------------------

# "LS(1)   User Commands   LS(1)": the running header (and footer) of a rendered page.
_MAN_HEADER = re.compile(
    r"^(?P<name>[\w.:+-]+)\((?P<section>\d\w*)\)\s.*\s(?P=name)\((?P=section)\)\s*$"
)
MIN_MAN_SECTIONS = 3


def _indent(raw: str) -> int:
    return len(raw.expandtabs(8)) - len(raw.expandtabs(8).lstrip())


def man_headings(lines: list[tuple[int, str]]) -> list[Heading]:
    """A rendered manual page's sections (flush-left lines followed by an indented body)
    and subsections (short lines indented less than the body), or [] for other text.

    Section names are structure, never entities: they are only returned as headings.
    """
    header = any(_MAN_HEADER.match(raw.strip()) for _pos, raw in lines[:3])
    sections: list[Heading] = []
    for i, (pos, raw) in enumerate(lines):
        line = raw.strip()
        if not line or raw[:1].isspace() or _MAN_HEADER.match(line) or len(line) > 60:
            continue
        following = next((r for _p, r in lines[i + 1 : i + 4] if r.strip()), "")
        if _indent(following) >= 3 and _blank(lines, i - 1):
            sections.append((pos, 1, line.rstrip(":")))
    capitals = sum(1 for _p, _l, t in sections if t.upper() == t)
    if capitals < MIN_MAN_SECTIONS or not (header or capitals >= len(sections) * 0.7):
        return []
    body = Counter(_indent(r) for _p, r in lines if r.strip() and r[:1].isspace())
    body_indent = body.most_common(1)[0][0] if body else 0
    found = list(sections)
    for i, (pos, raw) in enumerate(lines):
        line = raw.strip()
        depth = _indent(raw)
        if not line or not 0 < depth < body_indent or len(line) > 60 or line[-1] in ".,;:":
            continue
        following = next((r for _p, r in lines[i + 1 : i + 3] if r.strip()), "")
        if _indent(following) > depth and _blank(lines, i - 1) and line[:1].isupper():
            found.append((pos + len(raw) - len(raw.lstrip()), 2, line))
    return sorted(found)


# --- line-end hyphenation --------------------------------------------------------------

# "dy-\n    namic", "cfset‐\n   speed": a word broken at a line's end. U+2010 (what
# groff prints) and the soft hyphen always break a word; an ASCII hyphen only when the
# joined word is a known word and one of the pieces is not ("dyna-\nmic" joins,
# "well-\nknown" stays).
_BROKEN = re.compile(
    r"(?<![^\W\d_])(?P<a>[^\W\d_]+)(?P<h>[-\u2010\u00ad])\n(?P<ws>[ \t]*)(?P<b>[^\W\d_]+)"
)


def _known_word(word: str) -> float:
    from wordfreq import zipf_frequency  # deferred: the word lists take a moment to load

    return zipf_frequency(word, "en", wordlist="small")


def dehyphenate(text: str) -> str:
    """Words broken across lines rejoined on the first line; the line count and the
    second line's indentation are kept, so the layout (headings, lists) reads the same."""

    def join(match: re.Match) -> str:
        a, b = match.group("a"), match.group("b")
        if match.group("h") == "-" and not (
            b[:1].islower()
            and _known_word((a + b).casefold()) > 1.0
            and min(_known_word(a.casefold()), _known_word(b)) < 2.0
        ):
            return match.group()
        return f"{a}{b}\n{match.group('ws')}"

    return (
        _BROKEN.sub(join, text)
        if ("-\n" in text or "\u2010\n" in text or "\u00ad\n" in text)
        else text
    )
