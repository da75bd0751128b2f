"""Headings of technical plain text: setext underlines, numbered sections, capitals.

Manuals, READMEs and release notes written as plain text mark their sections the way
AsciiDoc and reStructuredText do (a title underlined with ``===`` or ``---``), or number
them ("4.3 DER functions"), or write them in capitals ("SYNOPSIS"). Novels do none of
that, so ``technical_headings`` returns nothing for them and the chapter rules apply.
"""

from __future__ import annotations

import re

Heading = tuple[int, int, str]

_UNDERLINE = re.compile(r"^[ \t]*(=+|-+|~+|\^+)[ \t]*$")
_LEVEL_OF = {"=": 1, "-": 2, "~": 3, "^": 4}
# "4.3 DER functions", "A.1 GNU ...", "2. Installation": a number, then a capitalised title.
_NUMBERED = re.compile(
    r"^(?P<number>(?:\d{1,2}|[A-Z])(?:\.\d{1,2})+\.?|\d{1,2}\.?)"
    r"[ \t]+(?P<title>[A-Z`\"'][^\n]{0,70})$"
)
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s")
# Setext or numbered headings needed before the text counts as technical.
MIN_UNDERLINED = 2
MIN_NUMBERED = 3


def _lines(text: str, start: int, end: int) -> list[tuple[int, str]]:
    lines: list[tuple[int, str]] = []
    pos = start
    for raw in text[start:end].split("\n"):
        lines.append((pos, raw))
        pos += len(raw) + 1
    return lines


def _underlined(lines: list[tuple[int, str]]) -> list[Heading]:
    found: list[Heading] = []
    for i in range(1, len(lines)):
        mark = _UNDERLINE.match(lines[i][1])
        title = lines[i - 1][1].strip()
        if not mark or not title or _UNDERLINE.match(lines[i - 1][1]):
            continue
        if _LIST_MARK.match(lines[i - 1][1]) or i >= 2 and lines[i - 2][1].strip():
            continue  # a setext title stands after a blank line (or opens the text)
        if abs(len(mark.group(1)) - len(title)) > max(3, len(title) // 3):
            continue  # a rule under a paragraph line, not an underline of it
        found.append((lines[i - 1][0], _LEVEL_OF[mark.group(1)[0]], title))
    return found


def _numbered(lines: list[tuple[int, str]]) -> list[Heading]:
    found: list[Heading] = []
    for i, (pos, raw) in enumerate(lines):
        line = raw.strip()
        match = _NUMBERED.match(line)
        if match is None or line[-1] in ".,;:" or (i and lines[i - 1][1].strip()):
            continue
        number = match.group("number").rstrip(".")
        found.append((pos + len(raw) - len(raw.lstrip()), number.count(".") + 1, line))
    return found


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
            or (i and lines[i - 1][1].strip())
            or (i + 1 < len(lines) and lines[i + 1][1].strip() and not raw.endswith(":"))
        ):
            continue
        found.append((pos, level, line.rstrip(":")))
    return found


def technical_headings(text: str, start: int, end: int) -> list[Heading]:
    """Headings of a technical text file, or [] when it marks none the technical way."""
    lines = _lines(text, start, end)
    underlined = _underlined(lines)
    numbered = _numbered(lines)
    if len(underlined) < MIN_UNDERLINED and len(numbered) < MIN_NUMBERED:
        return []
    headings = {h[0]: h for h in underlined}
    if len(numbered) >= MIN_NUMBERED:
        for heading in numbered:
            headings.setdefault(heading[0], heading)
    deepest = max((h[1] for h in headings.values()), default=0)
    taken = {h[0] for h in headings.values()}
    for heading in _capitals(lines, deepest + 1):
        if heading[0] not in taken:
            headings[heading[0]] = heading
    return sorted(headings.values())
