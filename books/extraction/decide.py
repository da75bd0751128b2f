"""From a document's term pool to candidate entities, by the learned scorer.

``term_rows`` gathers the pool (the general sources of ``termhood`` plus what the
syntactic rules of ``candidates`` proposed, as evidence) and measures each term;
``rows_decide`` keeps the terms the entity model believes in, types them, and picks the
chunk that defines each (if the define model believes one does). Training reads the same
rows, so what is measured is what runs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from books.chunking import ChunkDraft
from books.extraction.forms import is_placeholder, opens_entry
from books.extraction.scoring import Scorer
from books.extraction.termhood import (
    TYPES,
    DocStats,
    Term,
    _heading_text,
    define_features,
    doc_stats,
    features,
    gather,
    zipf,
)
from books.extraction.types import type_written
from books.extraction.writing import canonical_display
from kgsite.text import normalize

# Terms measured per document at most (the best supported first): a long novel proposes
# tens of thousands of phrases, nearly all seen once.
MAX_TERMS = 4000
# The define model only looks at a few chunks per term.
MAX_DEFINE_OPTIONS = 10
# Of the chunks that merely use a term, the define model also sees those using it most
# (a section about a term names it more than one passing by).
DENSEST_OPTIONS = 4
_WEAK = frozenset(
    {"phrase", "rare_word", "capitalised", "flag", "quoted", "code", "bold", "token", "shape"}
    | {"unknown"}
)
# Marks a name carries (code font, bold, a path's or a file's syntax, an acronym's or a
# brand's shape, a word no dictionary knows): one such mark is worth a second occurrence.
_MARKS = frozenset({"code", "bold", "token", "shape", "unknown"})


@dataclass
class RuleEntry:
    """What the hand-written sources of ``candidates`` found for one name."""

    display: str
    chunks: set[int]
    votes: dict[str, int]
    define: tuple[int, int, int] | None
    evidence: int
    strong: bool
    kept: bool
    type: str | None
    aliases: tuple[str, ...] = ()
    typed_by: str = ""  # the rules that gave ``type``


@dataclass
class TermRow:
    key: str
    display: str
    aliases: tuple[str, ...]
    features: list[float]
    evidence: int = 0
    # What the syntactic rules decided (kept, with this type and definition), if anything.
    rule_type: str | None = None
    rule_define: tuple[int, int, int] | None = None
    rule_by: str = ""  # the rules that gave ``rule_type``
    # The indented lists (section heading, indent) whose entries the term opens.
    lists: tuple[tuple[str, int], ...] = ()
    # Measures the chunks that might define the term, on first use: only the terms kept
    # (or, in training, the annotated ones) need it.
    measure: Callable[[], tuple[list, list, list]] | None = field(default=None, repr=False)
    # Not a name whatever the scores: a unit, or common words written in capitals.
    literal: bool = False
    _options: tuple[list, list, list] | None = field(default=None, repr=False)

    def _define(self) -> tuple[list, list, list]:
        if self._options is None:
            self._options = self.measure() if self.measure else ([], [], [])
        return self._options

    @property
    def options(self) -> list[tuple[int, int, int]]:
        """(chunk, start, end) of the chunks that might define the term."""
        return self._define()[0]

    @property
    def option_features(self) -> list[list[float]]:
        return self._define()[1]

    @property
    def option_entries(self) -> list[bool]:
        """Per option: whether the term opens one of its lines and the line describes it
        (``forms.opens_entry``)."""
        return self._define()[2]


def _support(term: Term) -> int:
    strong = sum(n for s, n in term.sources.items() if s not in _WEAK)
    marked = any(term.sources.get(s) for s in _MARKS)
    return len(term.chunks) + 2 * strong + 3 * term.rule_kept + marked


def term_rows(
    chunks: Sequence[ChunkDraft],
    texts: Sequence[str],
    rules: Sequence[RuleEntry],
    placeholders: Collection[str] = (),
) -> list[TermRow]:
    """The pool's terms measured. ``placeholders``: names that stand for a value (the
    parameters of a synopsis's declarations): never entities, unless a rule found a
    chunk defining one."""
    pool = gather(chunks, texts)
    for entry in rules:
        term = pool.add(entry.display, "rules")
        if term is None:
            continue
        term.chunks |= entry.chunks
        for type_, n in entry.votes.items():
            term.votes[type_] += n
        if entry.type and not entry.votes:
            term.votes[entry.type] += 1
        term.rule_define = term.rule_define or entry.define
        term.rule_evidence = max(term.rule_evidence, entry.evidence)
        term.rule_kept = term.rule_kept or entry.kept
        if entry.type and (term.rule_type is None or entry.kept):
            term.rule_type, term.rule_by = entry.type, entry.typed_by
        term.strong = term.strong or entry.strong
        if entry.display != term.display and entry.display.endswith("()"):
            term.aliases[term.display] = None
            term.display = entry.display
        for alias in entry.aliases:
            term.aliases[alias] = None
    ranked = sorted(pool.terms.items(), key=lambda kv: -_support(kv[1]))
    kept = [(k, t) for k, t in ranked if _support(t) >= 2][:MAX_TERMS]
    # Names first met in capitals: how the sentences write them may rename them.
    shouted = {k for k, t in kept if t.display.removeprefix("The ").isupper()}
    stats = doc_stats(chunks, texts, {k for k, _t in kept}, shouted)
    headings = [
        normalize(_heading_text(c.heading_path[-1])) if c.heading_path and c.part == 0 else ""
        for c in chunks
    ]
    rows: list[TermRow] = []

    def measure(term: Term, key: str) -> tuple[list, list, list]:
        per_chunk = stats.chunk_sets.get(key, Counter())
        options = _define_options(term, key, chunks, texts, headings, _densest(per_chunk))
        counts = [per_chunk.get(i, 0) for i, _s, _e in options]
        return (
            options,
            [
                define_features(term, key, i, chunks[i], texts[i], counts, k)
                for k, (i, _s, _e) in enumerate(options)
            ],
            [opens_entry(texts[i], term.display) for i, _s, _e in options],
        )

    for key, term in kept:
        # The features read the name as first proposed; the entity is named as the
        # document usually writes it.
        row_features = features(term, key, stats)
        display = canonical_display(term.display, stats.written.get(key))
        if display != term.display:
            term.aliases[term.display] = None
            term.display = display
        # A function is named as one ("deflate(strm, flush)": deflate()); the chunks are
        # still searched for the name as written (``measure`` reads ``term.display``).
        shown = display + "()" if _written_as_call(display, key, stats) else display
        names = [*term.aliases, display]
        rows.append(
            TermRow(
                key=key,
                display=shown,
                aliases=tuple(dict.fromkeys(a for a in names if normalize(a) != normalize(shown))),
                features=row_features,
                evidence=_support(term),
                rule_type=term.rule_type if term.rule_kept else None,
                rule_define=term.rule_define if term.rule_kept else None,
                rule_by=term.rule_by if term.rule_kept else "",
                lists=tuple(sorted(term.lists | pool.tags.get(key, set()))),
                measure=partial(measure, term, key),
                literal=_literal(term.display, key, stats)
                or (term.display in placeholders and term.rule_define is None),
            )
        )
    return rows


_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")
# A common English word: at least twice per million words (wordfreq's Zipf scale).
COMMON_ZIPF = 3.3
# One of English's most common words (about its 1,500 most frequent: a hundred per
# million words): "name", "value", "home". A term of one such word is a word of the
# language, not a name of this document's, when the document also writes it in lower case.
VERY_COMMON_ZIPF = 5.0
# Letters a word in capitals needs before it counts as a shouted word, not an acronym
# that happens to spell one (``DER``, ``ECHO``, ``GNOME`` stay names).
SHOUTED_LETTERS = 6


def _literal(display: str, key: str, stats: DocStats) -> bool:
    """Structure, not a name: a word of letters the document writes after a number at
    least half the time (the unit of a quantity: "512 KiB", "20ms"), or common English
    words written in capitals (a heading or a keyword in capitals: ``TROUBLESHOOTING``,
    ``INTEGER``; an acronym of five letters or fewer may spell a word and is left to the
    scorer), or one word repeated ("word word", a run of one word; a name written with
    capitals, as a town named by a doubled word, stays the scorer's), or one of the
    language's most common words that the document also writes in lower case (a
    column header ``NAME`` of a listing and the word "name" of the prose; a place such as
    "California", always capitalised, stays a name)."""
    count = stats.counts.get(key, 0)
    if display.isalpha() and count > 0 and 2 * stats.after_number.get(key, 0) >= count:
        return True
    if display.isupper() and display.isalpha() and stats.shouted.get(key, 0) >= max(count, 1):
        return True  # only ever among words in capitals: a shouted notice's word
    if (
        display.isalpha()
        and zipf(display) >= VERY_COMMON_ZIPF
        and stats.capitalised.get(key, 0) < count
    ):
        return True
    words = display.split()
    if len(words) > 1 and len({w.casefold() for w in words}) == 1 and not display.istitle():
        return True  # one word repeated ("la la", a run of a repeated word), no name
    return (
        display.isupper()
        and all(w.isalpha() and zipf(w) >= COMMON_ZIPF for w in words)
        and sum(len(w) for w in words) >= SHOUTED_LETTERS
    )


def _written_as_call(display: str, key: str, stats: DocStats) -> bool:
    """An identifier the text writes as a call ("name(" with no space) at least twice and
    in at least half of its occurrences: the name of a function."""
    calls = stats.calls.get(key, 0)
    return (
        _IDENTIFIER.fullmatch(display) is not None
        and calls >= 2
        and 2 * calls >= stats.counts.get(key, 0)
    )


def _densest(per_chunk: Counter) -> list[int]:
    """The chunks naming the term most often (ties: the earlier), at most a few."""
    if len(per_chunk) <= 1:
        return list(per_chunk)
    return sorted(per_chunk, key=lambda i: (-per_chunk[i], i))[:DENSEST_OPTIONS]


def _define_options(
    term: Term,
    key: str,
    chunks: Sequence[ChunkDraft],
    texts: Sequence[str],
    headings: list[str],
    densest: Sequence[int] = (),
) -> list[tuple[int, int, int]]:
    """Chunks that might define the term: its heading, a definition sentence, what the
    rules said, its first chunk, headings naming it, the chunks naming it most."""
    wanted: list[int] = []
    if term.rule_define is not None:
        wanted.append(term.rule_define[0])
    wanted += sorted(term.heading_chunks) + sorted(term.defined_in)
    if term.chunks:
        wanted.append(min(term.chunks))
    wanted += [i for i, h in enumerate(headings) if h and f" {key} " in f" {h} "]
    wanted += densest
    options: list[tuple[int, int, int]] = []
    for index in dict.fromkeys(wanted):
        if len(options) >= MAX_DEFINE_OPTIONS:
            break
        text = texts[index]
        if term.rule_define is not None and term.rule_define[0] == index:
            options.append(term.rule_define)
            continue
        at = term.defined_in.get(index, text.find(term.display.removesuffix("()")))
        if at < 0:
            at = max(normalize(text).find(key), 0)
        options.append((index, at, min(at + len(term.display), len(text))))
    return options


@dataclass
class Decision:
    display: str
    type: str
    evidence: int
    aliases: tuple[str, ...]
    define: tuple[int, int, int] | None
    # Which step gave the type: "rules: <the rules that voted>", "written" (``f()``,
    # ``--x``, ``name(5)``), "stored" (another book's entity), or "model".
    typed_by: str = "model"


# A plain proper name ("Ada Lovelace", "Lisbon", "Brewkit"): whether it is a person, a
# place or a program is what spaCy's NER reads from the sentence, so such a name the
# scorer keeps is left to NER (which the scorer may still overrule by rejecting it).
_PLAIN_NAME = re.compile(r"[A-Z][a-z'’]+(?: (?:[A-Z][a-z'’]+|of|and|the|de|van|von|da))*")


def plain_name(display: str) -> bool:
    return bool(_PLAIN_NAME.fullmatch(display))


# A term the define model is sure one of its chunks defines (a glossary's entry, an
# option's description, the section its heading names) needs this share of the entity
# threshold: being defined is evidence of a term the usage features do not see (the
# entity threshold is chosen on held-out probabilities, and a new document's terms are
# rated lower than the training documents').
DEFINED_SHARE = 0.3
# How sure: the define threshold plus this margin (the threshold itself is tuned to mark
# a chunk of a term already kept, not to vouch for a term).
DEFINED_MARGIN = 0.2


def _vouchable(display: str) -> bool:
    """A name a definition may vouch for. Not words in capitals (a manual page's
    section in capitals describes what follows, not its heading's words), not an
    example's stand-in name, not a phrase of English's most common words written in
    lower case (prose's words, "the next step is ...": such a phrase needs the entity
    model's own belief)."""
    words = display.split()
    if not words or display.isupper() or is_placeholder(display):
        return False
    return not all(w.isalpha() and w.islower() and zipf(w) >= VERY_COMMON_ZIPF for w in words)


def _believed(row: TermRow, p: float, scorer: Scorer) -> bool:
    """The entity model keeps the term, or rates it above ``DEFINED_SHARE`` of its
    threshold and the define model is sure a chunk of prose describing it defines it:
    the chunk's heading is the term, or the term opens one of its lines and the line
    describes it (``forms.opens_entry``)."""
    threshold = scorer.entity.threshold
    if p >= threshold:
        return True
    if p < DEFINED_SHARE * threshold or not row.option_features or not _vouchable(row.display):
        return False
    # A chunk of prose that describes the term after naming it ("term: a word...", an
    # entry over its indented description), not a heading merely naming it (a novel's
    # "Chapter XIX" over its chapter); for the vouch, the heading is the term or the
    # term itself opens a describing line (not a longer word it begins, not code).
    described = [
        f[-2] > 0 and f[-1] > 0 and (f[0] > 0 or f[1] > 0 or entry)
        for f, entry in zip(row.option_features, row.option_entries, strict=True)
    ]
    if not any(described):
        return False
    p_define = scorer.define.proba(row.option_features)[np.asarray(described)]
    return float(p_define.max()) >= scorer.define.threshold + DEFINED_MARGIN


def rows_decide(
    rows: Sequence[TermRow], scorer: Scorer, stored_type: Callable[[str], str | None] | None = None
) -> list[Decision]:
    """The rows the scorer keeps, typed, with the chunk that defines each (or None).

    A code name the syntactic rules keep (a declaration, a code heading, an option's
    syntax: structure, not wording) keeps their type and definition (a synopsis's
    declaration is none: ``candidates._signatures``); every other term is the scorer's
    to judge, type and place. ``stored_type``: the type of the one stored entity a name
    already refers to (another book's); a name the model types is given that type, so a
    book naming a known entity does not make a second one of a guessed type.
    """
    if not rows:
        return []
    p_entity = scorer.entity.proba([r.features for r in rows])
    chosen = [
        r
        for r, p in zip(rows, p_entity, strict=True)
        if not r.literal
        and (r.rule_type is not None or (_believed(r, p, scorer) and not plain_name(r.display)))
    ]
    if not chosen:
        return []
    p_type = scorer.type.proba([r.features for r in chosen])
    decisions: list[Decision] = []
    for row, probs in zip(chosen, p_type, strict=True):
        type_ = scorer.type.classes[int(probs.argmax())] if len(scorer.type.classes) else "concept"
        define = None
        if row.option_features:
            # A chunk without one line of prose (a synopsis, a code block) declares names
            # and describes none: it defines nothing.
            p_define = np.where(
                [f[-2] > 0 for f in row.option_features],
                scorer.define.proba(row.option_features),
                -1.0,
            )
            best = int(p_define.argmax())
            if p_define[best] >= scorer.define.threshold:
                define = row.options[best]
        by = "model"
        if row.rule_type is not None:
            type_, define = row.rule_type, row.rule_define or define
            by = f"rules: {row.rule_by or 'syntax'}"
        elif written := type_written(row.display):
            type_, by = written, "written"  # "f()" is a function, whatever else says
        elif stored_type is not None and (stored := stored_type(row.display)):
            type_, by = stored, "stored"
        decisions.append(Decision(row.display, type_, row.evidence, row.aliases, define, by))
    _lists_agree(chosen, decisions)
    return decisions


# A list of at least this many kept entries whose types agree by more than half types
# the entries only the type model typed.
LIST_MEMBERS = 3


def _lists_agree(rows: Sequence[TermRow], decisions: list[Decision]) -> None:
    """The entries of one indented list (a manual page's options, a configuration
    file's keys, a header's flags) are things of one kind: an entry the type model
    typed takes the type most of its list's entries have, when more than half agree."""
    members: dict[tuple[str, int], list[int]] = {}
    for k, row in enumerate(rows):
        for list_ in row.lists:
            members.setdefault(list_, []).append(k)
    for ks in members.values():
        if len(ks) < LIST_MEMBERS:
            continue
        (top, n), *_ = Counter(decisions[k].type for k in ks).most_common(1)
        if 2 * n <= len(ks):
            continue
        for k in ks:
            if decisions[k].typed_by == "model" and decisions[k].type != top:
                decisions[k].type, decisions[k].typed_by = top, "list"


def rows_rejected(
    rows: Sequence[TermRow], decisions: Sequence[Decision], scorer: Scorer
) -> set[str]:
    """Normalised names of the rows the scorer judged not to be entities.

    A plain proper name is not among them: whether "Ada Lovelace" or "Lisbon" is a name
    is spaCy's NER to say from its sentence (the scorer leaves such names to NER when it
    keeps them, ``rows_decide``), and the scorer, which learned the terms of technical
    documents, rates a person or a place named once or twice low."""
    kept = {normalize(d.display) for d in decisions}
    p_entity = scorer.entity.proba([r.features for r in rows]) if rows else []
    return {
        normalize(r.display)
        for r, p in zip(rows, p_entity, strict=True)
        if normalize(r.display) not in kept
        and (r.literal or (p < scorer.entity.threshold and not plain_name(r.display)))
    }


__all__ = ["TYPES", "Decision", "RuleEntry", "TermRow", "rows_decide", "rows_rejected", "term_rows"]
