"""The candidate pool and what the document itself says about each term.

Every source proposes terms broadly: the structural and syntactic sources of
``books.extraction.candidates`` (code spans, identifiers, acronyms, typed phrases...),
plus capitalised sequences, repeated lower-case phrases, heading terms, quoted terms,
option flags and the subjects of definition sentences. What decides is evidence that
holds for any text, measured here as features: how often and how widely the document
uses a term, how rare it is in general English (wordfreq), whether headings, code or a
definition sentence carry it, its shape. ``books.extraction.scoring`` turns the features
into decisions with weights learned from annotated documents.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from books.chunking import ChunkDraft
from books.extraction.forms import defined, described, is_placeholder, marked
from books.extraction.layout import list_lines
from books.extraction.types import is_code_name, type_from_noun, type_from_syntax
from books.extraction.writing import capitals_lines, how_written
from entities.extraction import word_zipf
from kgsite.text import normalize

# The vocabulary of types a term may get (``other`` is the honest fallback for code).
TYPES = (
    "person",
    "organization",
    "place",
    "work",
    "software",
    "library",
    "format",
    "standard",
    "protocol",
    "command",
    "function",
    "class",
    "option",
    "concept",
    "other",
)

# A token may open on a sign: an option's dashes, a special name's dot (".PHONY").
_TOKEN = re.compile(r"(?:[-+]{1,2}|\.)?[A-Za-z_$][\w$]*(?:[.:/+-][\w$]+)*(?:\(\))?|\d+(?:\.\d+)*")
_CAPS_SEQ = re.compile(
    r"(?<![\w.$/-])[A-Z][\w'’.+-]*[\w+]"
    r"(?:[ ](?:[A-Z][\w'’.+-]*[\w+]|of|for|and|de|van|von)){0,4}(?![\w-])"
)
_TRAILING_JOINS = re.compile(r"(?:[ ](?:of|for|and|de|van|von))+$")
_QUOTE = re.compile(r"[\"“‘](?P<q>[^\"“”‘’\n]{2,60})[\"”’]")
_OPTION_LINE = re.compile(
    r"^[ \t]*(?P<opt>(?:--?|\+)[A-Za-z][\w-]*)(?:[ =]\S+)?(?:\t|[ \t]{2,}|[ \t]*\n[ \t]+)\S", re.M
)
_FLAG = re.compile(r"(?<![\w/-])(?P<opt>(?:--?|\+)[A-Za-z][\w-]*)(?![\w/])")
_COPULA = r"(?:is|are|means|refers to|is defined as|shall mean|is called|stands for)"
_DEFINITION = re.compile(
    r"(?:^|[.;:]\s+|\n)(?:[Tt]he\s+|[Aa]n?\s+)?[\"“`*]*"
    r"(?P<term>[\w$.+-]+(?:[ ][\w$.+-]+){0,3})[\"”`*]*"
    # An expansion or a gloss may sit between the term and its verb: 'An "MCU"
    # (minimum coded unit) is a ...'.
    r"(?:[ ]\([^()\n]{1,80}\))?"
    rf"\s+{_COPULA}\s+(?:a|an|the|any|used|one)\b"
)
_QUOTED_MEANS = re.compile(
    r"[\"“](?P<term>[^\"”\n]{2,60})[\"”]\s+(?:means|refers to|is defined as|shall mean)\b"
)
# A glossary or option line: "term: Description", "term - description", "term\n:   def".
_LINE_TERM = re.compile(
    r"^[ \t]*(?P<term>[\w$.+-]+(?:[ ][\w$.+-]+){0,3})[ \t]*"
    r"(?:\n:[ \t]+|:[ \t]+[A-Z]|[ \t]+[-–—][ \t]+\w)",
    re.M,
)
_MAN_REF = re.compile(r"(?<![\w.-])(?P<name>[A-Za-z_][\w.-]*)\((?P<section>\d)\w?\)")
_MAN_SECTION = re.compile(r"\(\d\w?\)")
_HEADING_NUMBER = re.compile(r"^(?:(?:\d{1,2}|[A-Za-z])(?:\.\d{1,2})*\.?[ \t]+(?:[-–—:][ \t]+)?)")
_CODE = re.compile(r"`([^`\n]{1,120})`")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


@lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    """English's most frequent words (wordfreq): they never make a term alone."""
    from wordfreq import top_n_list  # deferred: the word lists take a moment to load

    return frozenset(top_n_list("en", 150))


@lru_cache(maxsize=50_000)
def zipf(word: str) -> float:
    return word_zipf(word.casefold(), "en")


def term_key(name: str) -> str:
    key = normalize(name.strip("`'\"“”‘’*_ "))
    key = key[:-2] if key.endswith("()") else key
    return key[4:] if key.startswith("the ") else key


@dataclass
class Term:
    """A term of one document and the evidence for it."""

    display: str
    forms: Counter = field(default_factory=Counter)
    sources: Counter = field(default_factory=Counter)
    votes: Counter = field(default_factory=Counter)
    chunks: set[int] = field(default_factory=set)
    headings: int = 0  # headings naming it
    heading_exact: int = 0  # headings that are it
    heading_chunks: set[int] = field(default_factory=set)
    defined_in: dict[int, int] = field(default_factory=dict)  # chunk -> offset of a definition
    lists: set[tuple[str, int]] = field(default_factory=set)  # (heading, indent) of its lists
    rule_define: tuple[int, int, int] | None = None  # (chunk, start, end) the rules found
    rule_evidence: int = 0
    rule_kept: bool = False
    rule_type: str | None = None
    rule_by: str = ""  # the rules that gave ``rule_type``
    strong: bool = False
    aliases: dict[str, None] = field(default_factory=dict)


class TermPool:
    """Terms by key; ``add`` records one proposal of a source."""

    def __init__(self) -> None:
        self.terms: dict[str, Term] = {}
        # key -> the lists (heading, indent) whose hanging tags name it
        self.tags: dict[str, set[tuple[str, int]]] = {}

    def add(
        self, name: str, source: str, chunk: int | None = None, *, vote: str | None = None
    ) -> Term | None:
        name = name.strip().strip("`'\"“”‘’*_").strip()
        if not 2 <= len(name) <= 80 or not any(c.isalpha() for c in name):
            return None
        key = term_key(name)
        if not key or len(key.split()) > 5 or all(w in function_words() for w in key.split()):
            return None  # "The", "of the": function words are never a term
        term = self.terms.get(key)
        if term is None:
            term = self.terms[key] = Term(display=name)
        term.sources[source] += 1
        term.forms[name] += 1
        if chunk is not None:
            term.chunks.add(chunk)
        if vote:
            term.votes[vote] += 1
        return term


def _heading_text(heading: str) -> str:
    return _HEADING_NUMBER.sub("", heading.replace("`", "").replace("*", "")).strip(" .:")


def _lower_phrases(seen: dict[str, list[int]], index: int, text: str) -> None:
    """Runs of one to three lower-case content words ("port forwarding", "raw mode"),
    counted in ``seen`` (phrase -> chunks); only repeated ones join the pool."""
    stop = function_words()
    run: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group()
        gap = text[match.start() - 1 : match.start()] if match.start() else " "
        if word.islower() and word not in stop and len(word) > 2 and gap in " \t\n-(":
            run.append(word)
            continue
        _phrase_run(seen, index, run)
        run = []
    _phrase_run(seen, index, run)


def _phrase_run(seen: dict[str, list[int]], index: int, run: list[str]) -> None:
    for size in (1, 2, 3):
        for i in range(len(run) - size + 1):
            seen.setdefault(" ".join(run[i : i + size]), []).append(index)


def _phrases_pool(pool: TermPool, seen: dict[str, list[int]]) -> None:
    for phrase, where in seen.items():
        if len(where) < 2:
            # Seen once, a word no dictionary knows may still name a program or a
            # format ("cjpeg"); two occurrences are needed of every other phrase.
            if " " not in phrase and len(phrase) >= 4 and zipf(phrase) == 0.0:
                pool.add(phrase, "unknown", where[0])
            continue
        if " " in phrase:
            source = "phrase"
        elif zipf(phrase) < 3.5:
            source = "rare_word"
        else:
            continue
        for index in where:
            pool.add(phrase, source, index)


def _heading_term(pool: TermPool, index: int, chunk: ChunkDraft) -> None:
    heading = _heading_text(chunk.heading_path[-1])
    if 1 <= len(heading.split()) <= 5:
        term = pool.add(heading, "heading", index)
        if term is not None:
            term.heading_exact += 1
            term.heading_chunks.add(index)


def _marked_terms(pool: TermPool, index: int, text: str) -> None:
    """Capitalised sequences, quoted terms, options, manual references, code."""
    for match in _CAPS_SEQ.finditer(text):
        pool.add(_TRAILING_JOINS.sub("", match.group()), "capitalised", index)
    for match in _QUOTE.finditer(text):
        if len(match.group("q").split()) <= 4:
            pool.add(match.group("q"), "quoted", index)
    for match in _OPTION_LINE.finditer(text):
        term = pool.add(match.group("opt"), "option_list", index, vote="option")
        if term is not None:
            term.defined_in.setdefault(index, match.start("opt"))
    for match in _FLAG.finditer(text):
        pool.add(match.group("opt"), "flag", index)
    for match in _MAN_REF.finditer(text):
        pool.add(match.group("name"), "man_ref", index)
    for match in _CODE.finditer(text):
        code = match.group(1).strip()
        if len(code.split()) <= 3:
            pool.add(code, "code", index)
    for name, source, _at in marked(text):
        if source != "shape" or zipf(name) < 3.0:  # "USA", "OK": words, not marks
            pool.add(name, source, index)


def _definitions(pool: TermPool, index: int, text: str, heading: str = "") -> None:
    for pattern in (_DEFINITION, _QUOTED_MEANS, _LINE_TERM):
        for match in pattern.finditer(text):
            term = pool.add(match.group("term"), "definition", index)
            if term is not None:
                term.defined_in.setdefault(index, match.start("term"))
    for name, at in defined(text):
        term = pool.add(name, "definition", index)
        if term is not None:
            term.defined_in.setdefault(index, at)
    _entries(pool, index, text, heading)


def _entries(pool: TermPool, index: int, text: str, heading: str = "") -> None:
    """Entries of a definition list laid out by indentation (a manual page's options,
    flags, keywords; ``layout.list_lines``): the first token of the line is the term."""
    for bare, at, depth, over_text in list_lines(text, heading):
        token = _TOKEN.match(bare)
        if token is None or (token.group()[:1].isupper() and token.group().istitle()):
            continue  # a sentence or a title, not an entry
        if not over_text:
            # A hanging tag only says which list the term belongs to: the models do
            # not read it (as a source it cost recall held out).
            pool.tags.setdefault(term_key(token.group()), set()).add((heading, depth))
            continue
        term = pool.add(token.group(), "entry", index)
        if term is not None:
            term.defined_in.setdefault(index, at)
            term.lists.add((heading, depth))


def gather(chunks: Sequence[ChunkDraft], texts: Sequence[str]) -> TermPool:
    """Every proposal of the general sources, with where each was seen."""
    pool = TermPool()
    phrases: dict[str, list[int]] = {}
    for index, (chunk, text) in enumerate(zip(chunks, texts, strict=True)):
        if chunk.heading_path and chunk.part == 0:
            _heading_term(pool, index, chunk)
        _marked_terms(pool, index, text)
        _definitions(pool, index, text, chunk.heading_path[-1] if chunk.heading_path else "")
        _lower_phrases(phrases, index, text)
    _phrases_pool(pool, phrases)
    return pool


# --- occurrences and features ------------------------------------------------------------


RANK_PRIOR = 40


@dataclass
class DocStats:
    """Occurrences of every token n-gram (n <= 4), by lower-cased key."""

    n_chunks: int
    n_sections: int
    counts: Counter
    chunk_sets: dict[str, Counter]  # key -> occurrences per chunk index
    sections_of: dict[str, set[tuple[str, ...]]]
    capitalised: Counter  # occurrences written with a capital
    in_code: Counter
    heading_hits: Counter
    called: Counter  # occurrences followed by "(" (a call, a declaration)
    initial: Counter  # occurrences opening a sentence or a line
    shouted: Counter  # occurrences between two words in capitals
    # How each term is written where its case is the writer's choice (not opening a
    # sentence, not on a line in capitals): key -> surface -> occurrences.
    written: dict[str, Counter] = field(default_factory=dict)
    after_number: Counter = field(default_factory=Counter)  # occurrences after a number
    sorted_counts: list[int] = field(default_factory=list)  # every term's count, ascending
    sorted_spreads: list[int] = field(default_factory=list)  # every term's chunk count
    calls: Counter = field(default_factory=Counter)  # written "name(" or "name()": a call

    def rank(self, key: str, fallback: int = 1) -> tuple[float, float]:
        """Where the term's count and its number of chunks stand among this document's
        terms (0 the least used, 1 the most): the same for a short page and a book."""
        count = self.counts.get(key, 0) or fallback
        spread = len(self.chunk_sets.get(key, ())) or fallback
        # RANK_PRIOR terms of middle rank are added: in a page of a few dozen terms the
        # most used one is not as telling as in a book's thousands.
        n = len(self.sorted_counts) + RANK_PRIOR
        return (
            (bisect_left(self.sorted_counts, count) + RANK_PRIOR / 2) / n,
            (bisect_left(self.sorted_spreads, spread) + RANK_PRIOR / 2) / n,
        )


def _caps_word(tokens: list[tuple[str, int]], i: int) -> bool:
    return 0 <= i < len(tokens) and tokens[i][0].isupper() and len(tokens[i][0]) >= 2


def doc_stats(
    chunks: Sequence[ChunkDraft],
    texts: Sequence[str],
    wanted: set[str],
    shouted_names: set[str] | None = None,
) -> DocStats:
    """Occurrences of the ``wanted`` keys; how sentences write them is recorded for the
    ``shouted_names`` only (the names first met in capitals; None: every key)."""
    counts: Counter = Counter()
    chunk_sets: dict[str, Counter] = {}
    sections_of: dict[str, set[tuple[str, ...]]] = {}
    capitalised: Counter = Counter()
    in_code: Counter = Counter()
    heading_hits: Counter = Counter()
    called: Counter = Counter()
    initial: Counter = Counter()
    shouted: Counter = Counter()
    written: dict[str, Counter] = {}
    after_number: Counter = Counter()
    calls: Counter = Counter()
    sizes = {len(k.split()) for k in wanted} or {1}
    longest = min(max(sizes), 4)
    for index, (chunk, text) in enumerate(zip(chunks, texts, strict=True)):
        code_spans = [(m.start(), m.end()) for m in _CODE.finditer(text)]
        tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(text)]
        folded = [normalize(t.removesuffix("()")) for t, _s in tokens]
        capitals = capitals_lines(text)
        for n in range(1, longest + 1):
            for i in range(len(tokens) - n + 1):
                key = " ".join(folded[i : i + n])
                if key not in wanted:
                    continue
                counts[key] += 1
                chunk_sets.setdefault(key, Counter())[index] += 1
                sections_of.setdefault(key, set()).add(chunk.heading_path[:1])
                if tokens[i][0][:1].isupper():
                    capitalised[key] += 1
                if any(s <= tokens[i][1] < e for s, e in code_spans):
                    in_code[key] += 1
                if _caps_word(tokens, i - 1) and _caps_word(tokens, i + n):
                    shouted[key] += 1
                before = text[max(tokens[i][1] - 3, 0) : tokens[i][1]].rstrip(" \t\"'“‘(*_`")
                opens = not before or before[-1] in ".!?:\n"
                initial[key] += opens
                previous = i > 0 and tokens[i - 1]
                occurrence = tokens[i : i + n]
                # An occurrence whose case is not wanted counts as one that says nothing.
                mute = opens or (shouted_names is not None and key not in shouted_names)
                how_written(written, after_number, capitals, key, text, occurrence, previous, mute)
                end = tokens[i + n - 1][1] + len(tokens[i + n - 1][0])
                if (
                    tokens[i + n - 1][0].endswith("()")
                    or text[end : end + 2].lstrip(" ")[:1] == "("
                ):
                    called[key] += 1
                    last = tokens[i + n - 1][0]
                    # "name(" opens a call, "name(5)" a manual reference.
                    opened = text[end : end + 1] == "(" and not _MAN_SECTION.match(text, end)
                    calls[key] += n == 1 and (last.endswith("()") or opened)
        if chunk.heading_path and chunk.part == 0:
            heading = [
                normalize(m.group().removesuffix("()"))
                for m in _TOKEN.finditer(_heading_text(chunk.heading_path[-1]))
            ]
            seen = {
                " ".join(heading[i : i + n])
                for n in range(1, longest + 1)
                for i in range(len(heading) - n + 1)
            }
            for key in seen & wanted:
                heading_hits[key] += 1
    n_sections = len({c.heading_path[:1] for c in chunks}) or 1
    return DocStats(
        len(chunks) or 1,
        n_sections,
        counts,
        chunk_sets,
        sections_of,
        capitalised,
        in_code,
        heading_hits,
        called,
        initial,
        shouted,
        written,
        after_number,
        sorted(counts.values()),
        sorted(len(c) for c in chunk_sets.values()),
        calls,
    )


SOURCES = (
    "rules",
    "heading",
    "capitalised",
    "quoted",
    "option_list",
    "flag",
    "man_ref",
    "code",
    "definition",
    "entry",
    "phrase",
    "rare_word",
    "bold",
    "token",
    "shape",
    "unknown",
)
SYNTAX_TYPES = ("option", "function", "standard", "format", "other", "class")


def _shape(name: str) -> list[float]:
    words = name.split()
    letters = [c for c in name if c.isalpha()]
    return [
        float(name.islower()),
        float(name[:1].isupper() and not name.isupper()),
        float(name.isupper() and len(letters) >= 2),
        float(any(c.isupper() for c in name[1:]) and not name.isupper()),
        float(any(c.isdigit() for c in name)),
        float("_" in name),
        float("." in name.strip(".")),
        float(name.startswith(("-", "+"))),
        float("/" in name),
        float(name.endswith("()")),
        float(is_code_name(name)),
        min(len(words), 5) / 5,
        min(len(name), 40) / 40,
        float(len(letters) <= 2),
    ]


def features(term: Term, key: str, stats: DocStats) -> list[float]:
    """Numbers that hold for a term of any document, in a fixed order."""
    name = term.display
    words = [w for w in re.findall(r"[A-Za-z]+", name)]
    zipfs = [zipf(w) for w in words] or [0.0]
    count = max(stats.counts.get(key, 0), 1)
    n_chunks = len(stats.chunk_sets.get(key, term.chunks)) or 1
    spread = len(stats.sections_of.get(key, ())) / stats.n_sections
    caps = stats.capitalised.get(key, 0) / count
    syntax = type_from_syntax(name)
    noun = type_from_noun(words[-1]) if words else None
    total_votes = sum(term.votes.values()) or 1
    top_vote = term.votes.most_common(1)[0][0] if term.votes else None
    first = min(term.chunks) / stats.n_chunks if term.chunks else 1.0
    most = max(stats.counts.values(), default=1) or 1
    stop = function_words()
    # How much and where this document uses the term (N_STATS numbers: the type model
    # leaves them out, a term's kind does not depend on how often one document names it).
    usage = [
        count / most,
        math.log1p(count),
        math.log1p(n_chunks),
        n_chunks / stats.n_chunks,
        spread,
        math.log1p(stats.heading_hits.get(key, 0)),
        float(term.heading_exact > 0),
        float(bool(term.defined_in)),
        first,
        math.log1p(term.rule_evidence),
        # Named among words in capitals on both sides: a line of a column header or of
        # a shouted notice, not a name in running text.
        stats.shouted.get(key, 0) / count,
        *stats.rank(key, len(term.chunks) or 1),
    ]
    return [
        *usage,
        zipfs[0] / 8,
        zipfs[-1] / 8,
        float(bool(words) and words[0].casefold() in stop),
        float(bool(words) and words[-1].casefold() in stop),
        caps,
        stats.in_code.get(key, 0) / count,
        stats.called.get(key, 0) / count,
        stats.initial.get(key, 0) / count,
        float(is_placeholder(name)),
        min(zipfs) / 8,
        sum(zipfs) / len(zipfs) / 8,
        float(min(zipfs) >= 4.0),
        # A common word in capitals (NULL, FILE, NAME) is a placeholder or a literal.
        float(name.isupper() and len(words) == 1 and zipfs[0] >= 3.0),
        float(len(words) == 1 and zipfs[0] >= 3.0 and name[:1].isupper()),
        float(max(zipfs) < 2.0),
        float(term.rule_kept),
        float(term.strong),
        *(math.log1p(term.sources.get(s, 0)) for s in SOURCES),
        *(float(syntax == t) for t in SYNTAX_TYPES),
        float(noun is not None),
        *(term.votes.get(t, 0) / total_votes for t in TYPES),
        *(float(top_vote == t) for t in TYPES),
        *(float(noun == t) for t in TYPES),
        *(float(term.rule_type == t) for t in TYPES),
        *_shape(name),
    ]


# The leading features of ``features`` that measure usage, not kind.
N_STATS = 13


def define_features(
    term: Term,
    key: str,
    index: int,
    chunk: ChunkDraft,
    text: str,
    counts: Sequence[int] = (),
    option: int = 0,
) -> list[float]:
    """Whether this chunk is where the term is defined, as numbers. ``counts``: how often
    each of the term's option chunks names it (``option`` is this chunk's place)."""
    heading = normalize(_heading_text(chunk.heading_path[-1])) if chunk.heading_path else ""
    at = text.find(term.display)
    at = at if at >= 0 else normalize(text).find(key)
    named = bool(heading) and bool(re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", heading))
    words = set(key.split())
    overlap = len(words & set(heading.split())) / len(words) if words and heading else 0.0
    mine = counts[option] if option < len(counts) else 0
    total = sum(counts) or 1
    body = text.find("\n") + 1 if chunk.part == 0 and chunk.heading_path else 0
    return [
        float(heading == key),
        float(named),
        float(bool(heading) and key in heading),
        float(index in term.defined_in),
        float(term.rule_define is not None and term.rule_define[0] == index),
        float(index == min(term.chunks)) if term.chunks else 0.0,
        float(chunk.part == 0),
        float(not chunk.heading_path),
        min(max(at, 0), 2000) / 2000,
        float(0 <= at < 200),
        len(chunk.heading_path) / 6,
        math.log1p(text.count(term.display)),
        float(index in term.heading_chunks),
        overlap,
        mine / total,
        float(bool(counts) and mine == max(counts) and mine > 0),
        float(0 <= at - body < 300),
        float(_line_start(text, term.display)),
        option / 10,
        *described(text, term.display),
    ]


def _line_start(text: str, display: str) -> bool:
    """The term opens a line (an entry of a list, a description's subject)."""
    name = display.removesuffix("()")
    if not name:
        return False
    at = text.find(name)
    while at >= 0:
        line = text[text.rfind("\n", 0, at) + 1 : at]
        if not line.strip(" \t-*+•`'\"“("):
            return True
        at = text.find(name, at + len(name))
    return False
