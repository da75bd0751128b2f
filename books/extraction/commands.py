"""Command families: a program whose quoted or code command lines start at least three
different subcommands ("prog sub --x") is a command-line tool, and each "prog sub" a
command. ``pool`` is the candidate pool of ``books.extraction.candidates``."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

_CODE_SPAN = re.compile(r"(?<!`)`(?P<code>[^`\n]{1,120})`(?!`)")
_QUOTED = re.compile(r"[\"“](?P<q>[^\"”\n]{2,80})[\"”]")
_COMMAND = re.compile(r"^(?P<prog>[a-z][\w.+-]*)\s+(?P<sub>[a-z][a-z0-9-]*[a-z0-9])(?=\s|$)")


def commands_find(pool, texts: Sequence[str]) -> None:
    """Quoted or code command lines ("prog sub --x"): a program whose first word starts
    at least three different subcommands is a command-line tool; each "prog sub" is a
    command."""
    lines: list[tuple[int, str, str]] = []
    subs: dict[str, set[str]] = defaultdict(set)
    for index, text in enumerate(texts):
        for match in [*_QUOTED.finditer(text), *_CODE_SPAN.finditer(text)]:
            command = _COMMAND.match(match.group(1).strip())
            if command is not None:
                lines.append((index, command.group("prog"), command.group("sub")))
                subs[command.group("prog")].add(command.group("sub"))
    programs = {prog for prog, found in subs.items() if len(found) >= 3}
    for index, prog, sub in lines:
        if prog in programs:
            pool.see(f"{prog} {sub}", index, type_="command", weight=3, bonus=1)
    for prog in programs:
        display = _display_case(prog, texts)
        for index, text in enumerate(texts):
            if re.search(rf"(?<![\w-]){re.escape(display)}(?![\w-])", text):
                pool.see(display, index, type_="software", weight=3)


def _display_case(word: str, texts: Sequence[str]) -> str:
    """How the prose writes a program's name: "Git" for the command ``git``."""
    capital = word[:1].upper() + word[1:]
    pattern = re.compile(rf"(?<=[a-z,;] ){re.escape(capital)}\b")
    return capital if any(pattern.search(t) for t in texts) else word
