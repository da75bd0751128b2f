"""The lines of a list laid out by indentation: which open an entry, and which list
(indent) each belongs to. ``termhood`` reads the entries' first tokens as terms."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

ENTRY_MARKUP = "`*\"'“‘"
# A hanging tag: a paragraph's first token, then a tab or two blanks, then its
# description on the same line (a manual page's "FLAG   Does this", continued below);
# one blank when the description starts in the column of another tag's.
_HANGING = re.compile(
    rf"(?P<tag>[ \t]*[{re.escape(ENTRY_MARKUP)}]*(?:[-+]{{1,2}}|\.)?[A-Za-z_$][\w$.:/+-]*(?:\(\))?)"
    r"(?P<gap>\t|  +| )\S"
)


def hanging_tags(lines: Sequence[str]) -> dict[int, bool]:
    """Line number -> whether it opens a paragraph with a hanging tag."""
    found: dict[int, tuple[int, int, bool]] = {}
    for k, line in enumerate(lines):
        if (k == 0 or not lines[k - 1].strip()) and (match := _HANGING.match(line)):
            depth = len(line) - len(line.lstrip())
            wide = match.group("gap") != " "
            found[k] = (depth, len(match.group("tag")) + len(match.group("gap")), wide)
    columns = {(depth, column) for depth, column, wide in found.values() if wide}
    return {k: wide or (depth, column) in columns for k, (depth, column, wide) in found.items()}


def list_lines(text: str, heading: str = "") -> Iterator[tuple[str, int, int, bool]]:
    """(the line without indent and markup, its offset, its indent, described) of each
    line opening an entry: a short line whose next line is indented further (described:
    a manual page's options, a definition list), or a hanging tag (not described). The
    chunk's own heading line (a manual page's section name over its indented body) is
    structure, not an entry."""
    lines = text.split("\n")
    tags = hanging_tags(lines)
    offset = 0
    for k, line in enumerate(lines):
        start = offset
        offset += len(line) + 1
        stripped = line.strip()
        if not stripped or k + 1 >= len(lines) or stripped == heading:
            continue
        following = lines[k + 1]
        depth = len(line) - len(line.lstrip())
        described = bool(following.strip()) and (
            len(following) - len(following.lstrip()) >= depth + 2 and len(stripped) <= 60
        )
        if described or tags.get(k):
            # A term in inline markup opens an entry too (reStructuredText's and
            # Markdown's definition lists: "`name(args)`" over its indented description).
            bare = stripped.lstrip(ENTRY_MARKUP)
            yield bare, start + depth + len(stripped) - len(bare), depth, described
