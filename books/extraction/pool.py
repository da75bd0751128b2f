"""The pool the syntactic rules of ``candidates`` fill: each name with the chunks it is
seen in, its evidence, and the type votes of the rules that saw it (each vote remembers
which rule cast it, so a type the rules give can be traced to the rule)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kgsite.text import normalize


@dataclass
class Entry:
    display: str
    chunks: set[int] = field(default_factory=set)
    hits: int = 0
    strong: bool = False  # an acronym's expansion: never dismissed as a common word
    bonus: int = 0
    votes: Counter = field(default_factory=Counter)
    # type -> the rules that voted for it, in the order they did
    voters: dict[str, dict[str, None]] = field(default_factory=dict)
    aliases: dict[str, None] = field(default_factory=dict)
    define: tuple[int, int, int, int] | None = None  # (strength, chunk, start, end)

    def typed_by(self, type_: str) -> str:
        """The rules that voted for ``type_`` ("" when none did)."""
        return ", ".join(self.voters.get(type_, ()))


def pool_key(name: str) -> str:
    norm = normalize(name)
    return norm[:-2] if norm.endswith("()") else norm


class Pool:
    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.parameters: set[str] = set()
        # The parameters of C declarations and the words naming their types
        # (``struct termios *termios_p``: ``termios_p``; ``termios``).
        self.declared_parameters: set[str] = set()
        self.declared_types: set[str] = set()
        # The rule now reading the text: its votes are recorded under this name.
        self.rule = ""

    def see(
        self,
        name: str,
        chunk: int,
        *,
        type_: str | None = None,
        weight: int = 1,
        bonus: int = 0,
        alias: str | None = None,
        strong: bool = False,
    ) -> Entry | None:
        name = name.strip()
        if len(name) < 2 or len(name) > 120 or not any(c.isalpha() for c in name):
            return None
        key = pool_key(name)
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = Entry(display=name)
        elif name.endswith("()") and not entry.display.endswith("()"):
            entry.aliases[entry.display] = None
            entry.display = name
        elif name != entry.display and normalize(name) != normalize(entry.display):
            entry.aliases[name] = None
        entry.chunks.add(chunk)
        entry.hits += 1
        entry.strong = entry.strong or strong
        entry.bonus = max(entry.bonus, bonus)
        if type_:
            entry.votes[type_] += weight
            entry.voters.setdefault(type_, {})[self.rule] = None
        if alias and normalize(alias) != normalize(entry.display):
            entry.aliases[alias.strip()] = None
        return entry

    def define(
        self, name: str, chunk: int, start: int, end: int, *, strength: int, **kwargs
    ) -> None:
        entry = self.see(name, chunk, bonus=2, **kwargs)
        if entry is not None and (entry.define is None or strength < entry.define[0]):
            entry.define = (strength, chunk, start, end)
