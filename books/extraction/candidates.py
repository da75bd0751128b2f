"""Names a book introduces that no NER model knows: code, acronyms, introduced terms.

Technical documents name their subjects in ways spaCy was never trained on: code
spans and code headings (``dns.lookup()``, ``asn1_der_coding``, ``--prune``), command
lines quoted in prose ("git fetch"), acronyms with their expansion ("Distinguished
Encoding Rules (DER)"), terms a sentence introduces ("called X", "“X” means"), names a
noun classifies ("the X library"), standards ("RFC 5952"), versioned product headings.

Every source adds *evidence* to a name: one point per chunk it appears in, two for a
heading or a definition naming it, two for an acronym's expansion. A name becomes a
candidate entity at ``settings.KGSITE_CANDIDATE_MIN_EVIDENCE`` (2: seen in two chunks,
or once where it is defined). Each rule is written for a structural or linguistic
category, never for a document's wording.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings

from books.chunking import ChunkDraft
from books.extraction.acronyms import acronyms_find
from books.extraction.commands import commands_find
from books.extraction.decide import RuleEntry, TermRow, rows_decide, rows_rejected, term_rows
from books.extraction.forms import prose_share
from books.extraction.pool import Entry, Pool
from books.extraction.scoring import scorer_get
from books.extraction.structure import DefinedEntity, Known, known_type, name_key
from books.extraction.types import is_code_name, man_section_type, type_from_noun, type_from_syntax
from entities.extraction import is_common_word, word_zipf
from kgsite.text import normalize

_FENCE = re.compile(r"^ {0,3}(`{3,}+|~{3,}+)[^\n]*\n.*?^ {0,3}\1[ \t]*$", re.M | re.S)
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]+\S+.*$", re.M)
_CODE_SPAN = re.compile(r"(?<!`)`(?P<code>[^`\n]{1,120})`(?!`)")
_NUMBERING = re.compile(r"^(?:(?:\d{1,2}|[A-Z])(?:\.\d{1,2})*\.?\s+|(?:chapter|appendix)\s+\w+\s+)")
_SIGNATURE_CODE = re.compile(
    r"^(?P<name>[A-Za-z_$][\w$]*(?:[.:#][A-Za-z_$][\w$]*)*)\s*(?:\((?P<args>[^()]*(?:\([^()]*\))?[^()]*)\))?$"
)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_OPTION_TOKEN = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9](?![\w-])")
_IDENTIFIER_TOKEN = re.compile(
    r"(?<![\w./:@$-])(?:"
    r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"  # snake_case, CONSTANT_CASE
    r"|[a-z]+[0-9]*[A-Z][A-Za-z0-9]*"  # camelCase
    r"|[a-z][a-z0-9]*(?:\.[a-z][A-Za-z0-9]*)+"  # dotted.keys, file.ext
    r"|lib[a-z][a-z0-9+]+"  # libfoo: a library by the Unix naming convention
    r")(?:\(\))?(?![\w/@$-]|\.\w)"
)
_MAN_REF = re.compile(r"(?<![\w.-])(?P<name>[a-z_][\w-]*)\((?P<section>\d)\w?\)")
_STANDARD = re.compile(
    r"(?<![\w-])(?:(?:RFC|ISO(?:/IEC)?|IEEE|ECMA|PEP|BCP|FIPS)[ -]?\d{2,5}(?:-\d+)?"
    r"|[A-Z]\.\d{3,4})(?![\w-])"
)
_VERSIONED = re.compile(
    r"^(?P<name>[A-Z][\w+-]*(?: [A-Z][\w+-]*){0,2}) v?(?P<version>\d+(?:\.\d+)+)(?=\s|$)"
)
# "GitHub", "OpenSSL", "cURL": inner capitals mark a brand or product name.
_INNER_CAPS = re.compile(
    r"(?<![\w.$/-])(?:[A-Z][a-z]+[A-Z][A-Za-z]*|[a-z][A-Z]{2,}[a-z]*)(?![\w.(/-])"
)
# "protocol v2", "format version 3": a versioned kind of thing.
_VERSIONED_NOUN = re.compile(r"\b(?P<noun>[a-z]+) v\d+(?:\.\d+)*\b")
_TLDS = frozenset({"com", "org", "net", "io", "dev", "edu", "gov", "example", "localhost"})
_C_TYPES = frozenset(
    {
        *("void", "int", "char", "long", "short", "unsigned", "signed", "const", "float"),
        *("double", "bool", "struct", "enum", "static", "extern", "inline", "size_t"),
    }
)
# C-like declarations at a line's start: a type, the name, a parameter list. Every
# word of the return type is followed by exactly one kind of separator (spaces, or
# stars with optional spaces around them) and only the last may end the line ("int\n
# f (...)", GNU style), so a line of words is read one way only: linear time. (It
# used to be ``(?:\w+\s*\**\s+)+``, where ``\s*`` and ``\s+`` share the spaces and
# the line breaks: exponential on a word followed by lines indented by many spaces.)
_C_WORD = r"[A-Za-z_]\w*"
_C_SEP = r"(?:[ \t]*\*+[ \t]*|[ \t]+)"
_C_SIGNATURE = re.compile(
    rf"^[ \t]*(?:\[[\w ]+\][ \t]*)?(?P<ret>(?:{_C_WORD}{_C_SEP})*{_C_WORD}"
    rf"(?:{_C_SEP}|[ \t]*(?:\*+[ \t]*)?\n[ \t]*(?:\*+[ \t]*)?))"
    r"(?P<name>[A-Za-z_]\w*)[ \t]*\((?P<args>[^)\n]*(?:\n[^)\n]*){0,3})\)?",
    re.M,
)
# Below this share of prose lines a chunk of declarations is a synopsis (forms.described).
SYNOPSIS_PROSE = 0.2
_FUNCTION_WORDS = frozenset({"of", "for", "and", "the", "on", "in", "to", "a", "an"})
_INTRODUCED = re.compile(
    r"\b(?:called|known as|termed|referred to as|dubbed)\s+(?:the\s+|an?\s+)?"
    r"(?:[\"“‘'`*_]+(?P<quoted>[^\"”’'`*_\n]{2,60})[\"”’'`*_]+"
    r"|(?P<plain>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*){0,3}))"
)
_MEANS = re.compile(
    r"[\"“](?P<term>[A-Z][^\"”\n]{1,60})[\"”]\s+(?:means|refers to|is defined as|shall mean)\b"
)
_TYPED_PHRASE = re.compile(
    r"(?:\b(?P<the>[Tt]he|[Aa]n?|[Oo]ur|[Tt]his)\s+)?"
    # A name starts a token (the lookbehind): tried from inside a run of letters it
    # re-read the rest of the run at every position (quadratic on one long word).
    r"(?P<name>`[^`\n]{1,60}`|(?<![\w.:+-])[A-Za-z][\w.:+-]*[\w+])\s+"
    r"(?P<noun>library|module|package|API|protocol|framework|toolkit|format|command|"
    r"utility|program|port|standard|specification|function|class|option|variable|"
    r"configuration)\b"
)
_COPULA_IDENT = re.compile(
    r"\bThe\s+(?P<np>(?:[a-z]+\s+){0,3}?(?P<noun>[a-z]+))(?:\s+(?:of|used in|for)\s+[\w\s]{1,30}?)?"
    r"\s+is\s+`?(?P<ident>[A-Za-z_][\w.]*[\w])`?\s*[.,;]"
)
# Indentation within the line: ``\s*`` let every line start of a run of blank lines
# re-read the rest of the run.
_CODE_ITEM = re.compile(r"^[ \t]*[-*+]\s+`(?P<code>[^`\n]+)`\s*(?::|—|–|-)\s+\S", re.M)
_HEADING_VERBS = {"invoking": "command", "running": "command", "using": None, "calling": None}
_LITERALS = frozenset({"true", "false", "null", "none", "undefined", "nil", "nan", "self", "this"})


@dataclass
class Candidate:
    """A name the book introduces, with what speaks for it."""

    name: str
    type: str
    evidence: int
    aliases: tuple[str, ...] = ()
    # (chunk index, start, end) in that chunk's text, when a chunk defines it.
    define: tuple[int, int, int] | None = None
    typed_by: str = "rules"  # the step that gave ``type`` (``decide.Decision.typed_by``)


def _zipf(word: str) -> float:
    return word_zipf(word, "en")


# --- sources -------------------------------------------------------------------------


def _blank_fences(text: str) -> str:
    """The text with fenced code blocks and Markdown link definitions (``[label]: url``)
    blanked, at the same length so offsets stay valid."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group())  # noqa: E731
    return _LINK_DEFINITION.sub(blank, _FENCE.sub(blank, text))


def _parse_code(code: str) -> tuple[str, str | None, list[str]] | None:
    """(name, type, parameters) of a code span that names one thing, or None."""
    code = code.strip()
    if man := _MAN_REF.fullmatch(code):
        return man.group("name"), man_section_type(man.group("section")), []
    if _OPTION_TOKEN.fullmatch(code.split("=", 1)[0]):
        return code.split("=", 1)[0], "option", []
    match = _SIGNATURE_CODE.match(code)
    if match is None:
        return None
    name, args = match.group("name"), match.group("args")
    if args is None:
        if name.casefold() in _LITERALS:
            return None
        return name, type_from_syntax(name), []
    params = [p for p in _IDENT.findall(args) if p.casefold() not in _LITERALS]
    last = re.split(r"[.:#]", name)[-1]
    if last[:1].isupper() and not last.isupper():
        return name, "class", params  # a constructor: Resolver([options])
    return f"{name}()", "function", params


def _heading_candidates(pool: Pool, index: int, chunk: ChunkDraft) -> None:
    """A heading that is code, or names one code-like thing, defines it."""
    heading = chunk.heading_path[-1]
    first_line = chunk.text.split("\n", 1)[0]
    at = max(first_line.find(heading), 0)
    spans = list(_CODE_SPAN.finditer(heading))
    label = heading[: spans[0].start()].strip(" :") if spans else ""
    label_type = type_from_noun(label.split()[-1]) if label.split() else None
    if len(spans) == 1 and len(heading) - len(spans[0].group()) <= 20:
        parsed = _parse_code(spans[0].group("code"))
        if parsed is not None:
            name, type_, params = parsed
            pool.parameters.update(params)
            pool.declared_parameters.update(params)  # an API reference's declaration
            alias = name[:-2] if name.endswith("()") else None
            pool.define(
                name,
                index,
                at,
                at + len(heading),
                strength=0,
                type_=label_type or type_,
                weight=3,
                alias=alias,
            )
        return
    words = _NUMBERING.sub("", heading).split()
    if not 1 <= len(words) <= 4:
        return
    named = [w for w in words if is_code_name(w.strip("`'\"")) and len(w) > 2]
    if len(named) == 1:
        name = named[0].strip("`'\"")
        verb_type = _HEADING_VERBS.get(words[0].casefold())
        pool.define(
            name,
            index,
            at + max(heading.find(name), 0),
            at + max(heading.find(name), 0) + len(name),
            strength=0,
            type_=verb_type or type_from_syntax(name),
            weight=3,
        )
    if (versioned := _VERSIONED.match(_NUMBERING.sub("", heading))) and not any(
        w.casefold() in _FUNCTION_WORDS for w in versioned.group("name").split()
    ):
        product = versioned.group("name")
        full = f"{product} {versioned.group('version')}"
        start = at + max(heading.find(full), 0)
        pool.define(
            full,
            index,
            start,
            start + len(full),
            strength=0,
            type_="software",
            weight=3,
            alias=f"{product} v{versioned.group('version')}",
        )
        pool.see(product, index, type_="software", weight=3, bonus=2)


def _code_spans(pool: Pool, index: int, text: str) -> None:
    for match in _CODE_SPAN.finditer(text):
        parsed = _parse_code(match.group("code"))
        if parsed is None:
            continue
        name, type_, params = parsed
        if params:
            pool.parameters.update(params)
        bare = name[:-2] if name.endswith("()") else name
        if not is_code_name(bare) and type_ is None:
            # `hostname`, `ttl`: a plain word in code font names a value or a property;
            # it counts only where a noun or a heading says what it is.
            continue
        pool.see(name, index, type_=type_, weight=2, alias=bare if bare != name else None)
    for match in _CODE_ITEM.finditer(text):
        parsed = _parse_code(match.group("code"))
        if parsed is not None:
            name, type_, _params = parsed
            start = match.start("code")
            pool.define(name, index, start, start + len(name), strength=2, type_=type_, weight=2)


def _identifiers(pool: Pool, index: int, text: str) -> None:
    for match in _IDENTIFIER_TOKEN.finditer(text):
        name = match.group()
        bare = name[:-2] if name.endswith("()") else name
        if "." in bare:
            last = bare.rsplit(".", 1)[1]
            if last in _TLDS or (bare.count(".") == 1 and len(last) < 3 and "(" not in name):
                continue  # example.com, e.g., i.e
        if bare.startswith("lib") and "_" not in bare and "." not in bare:
            if is_common_word(bare):
                continue
            pool.see(bare, index, type_="library", weight=1)
            continue
        pool.see(name, index, type_=type_from_syntax(name), weight=1, bonus=1)
    pool.rule = "marked name"
    _marked_names(pool, index, text)


def _marked_names(pool: Pool, index: int, text: str) -> None:
    """Options, manual-page references, standards, brand names, versioned nouns."""
    for match in _OPTION_TOKEN.finditer(text):
        pool.see(match.group(), index, type_="option", weight=2)
    for match in _MAN_REF.finditer(text):
        if not is_common_word(match.group("name")):
            type_ = man_section_type(match.group("section"))
            pool.see(match.group("name"), index, type_=type_, weight=2)
    for match in _STANDARD.finditer(text):
        pool.see(re.sub(r"\s+", " ", match.group()), index, type_="standard", weight=3, bonus=1)
    for match in _INNER_CAPS.finditer(text):
        if match.start() == 0 or text[match.start() - 1] not in "`\"'":
            pool.see(match.group(), index, bonus=1)
    for match in _VERSIONED_NOUN.finditer(text):
        if type_ := type_from_noun(match.group("noun")):
            pool.see(match.group(), index, type_=type_, weight=3, bonus=1)


def _signatures(pool: Pool, index: int, text: str) -> None:
    """``int f (const char *x, int n)`` at a line's start declares (defines) ``f``."""
    for match in _C_SIGNATURE.finditer(text):
        ret = match.group("ret").replace("*", " ").split()
        if not ret or ret[-1] not in _C_TYPES and not ret[-1].endswith("_t") and "_" not in ret[-1]:
            continue
        if not is_code_name(match.group("name")) and ret[-1] not in _C_TYPES:
            continue
        if any(w[:1].isupper() and w.casefold() not in _C_TYPES for w in ret[:1]):
            continue  # a sentence ("Return the value (...)"), not a declaration
        args = match.group("args")
        words = set(re.findall(r"[A-Za-z_]\w*", args))
        if args.strip() not in ("", "void") and not (words & _C_TYPES or "*" in args):
            continue
        params = [m.group(1) for m in re.finditer(r"([A-Za-z_]\w*)\s*(?:\[\])?\s*(?:,|$)", args)]
        pool.parameters.update(params)
        pool.declared_parameters.update(params)
        pool.declared_types.update(words.difference(params))
        name, start, kind = match.group("name"), match.start("name"), {"type_": "function"}
        if prose_share(text) < SYNOPSIS_PROSE:  # a synopsis declares, its prose defines
            pool.see(f"{name}()", index, bonus=2, weight=3, alias=name, **kind)
            continue
        pool.define(f"{name}()", index, start, start + len(name), strength=1, weight=3, **kind)


def _introduced(pool: Pool, index: int, text: str) -> None:
    for match in _INTRODUCED.finditer(text):
        group = "quoted" if match.group("quoted") else "plain"
        term = match.group(group).strip()
        capitalised = term[:1].isupper() and not term.isupper()  # NAME: a placeholder
        if len(term.split()) > 5 or (is_common_word(term) and not capitalised):
            continue
        start = match.start(group)
        pool.define(
            term,
            index,
            start,
            start + len(term),
            strength=3,
            type_="concept",
            weight=1,
            strong=capitalised,  # "called a Batch": capitalised, it is the term
        )
    for match in _MEANS.finditer(text):
        term = match.group("term").strip()
        start = match.start("term")
        pool.define(term, index, start, start + len(term), strength=2, type_="concept", weight=2)


def _is_name_token(name: str, at_sentence_start: bool) -> bool:
    if name.startswith("`"):
        return True
    if any(c.isdigit() or c in ".:-+" for c in name[1:]) or any(c.isupper() for c in name[1:]):
        return True
    if name[0].isupper():
        return not at_sentence_start
    return not is_common_word(name) and _zipf(name.casefold()) < 2.5


def _typed_phrases(pool: Pool, index: int, text: str, opening: bool) -> None:
    """ "the X library", "the `x` module": the noun types the name; in a section's first
    sentence the phrase introduces (defines) it."""
    first_end = _first_sentence_end(text) if opening else -1
    for match in _TYPED_PHRASE.finditer(text):
        raw = match.group("name")
        before = text[: match.start("name")].rstrip()
        sentence_start = (
            not before
            or before[-1] in ".!?:\n"
            or (
                match.group("the") is not None
                and text[: match.start()].rstrip()[-1:] in ("", ".", "\n")
            )
        )
        if not _is_name_token(raw, sentence_start and match.group("the") is None):
            continue
        name = raw.strip("`")
        # A capitalised common word mid-sentence ("the Windows port") is a name when a
        # noun types it; in lower case it is the word ("the same library").
        capitalised = name[:1].isupper() and not sentence_start
        if name.casefold() in _LITERALS or (is_common_word(name) and not capitalised):
            continue
        type_ = type_from_noun(match.group("noun"))
        if match.start() < first_end:
            start = match.start("name") + (1 if raw.startswith("`") else 0)
            pool.define(name, index, start, start + len(name), strength=2, type_=type_, weight=3)
        else:
            pool.see(name, index, type_=type_, weight=3, bonus=1, strong=capitalised)


def _first_sentence_end(text: str) -> int:
    body_start = text.find("\n") + 1
    match = re.search(r"[.!?](?=\s)", text[body_start:])
    return body_start + (match.end() if match else len(text) - body_start)


def _copula_identifiers(pool: Pool, index: int, text: str) -> None:
    """ "The main type used in it is asn1_node.": the sentence defines the identifier."""
    for match in _COPULA_IDENT.finditer(text):
        ident = match.group("ident")
        if not is_code_name(ident):
            continue
        start = match.start("ident")
        type_ = type_from_syntax(ident) or type_from_noun(match.group("noun"))
        pool.define(ident, index, start, start + len(ident), strength=2, type_=type_, weight=3)


# --- the pool becomes candidates -------------------------------------------------------


_DOTTED_CAMEL = re.compile(r"^[a-z][a-z0-9]*\.[a-z]+[A-Z][A-Za-z0-9]*$")


def _final_type(entry: Entry, functions_called: set[str]) -> str | None:
    """The type the votes give, else what the syntax allows; None: not a thing."""
    if entry.votes:
        return entry.votes.most_common(1)[0][0]
    bare = entry.display[:-2] if entry.display.endswith("()") else entry.display
    if bare in functions_called:
        return "function"
    if _DOTTED_CAMEL.match(bare):
        return "option"  # section.someKey, never called: a setting
    if is_code_name(bare):
        return None  # err.code, ret: a variable of an example, unless typed
    return "software" if _INNER_CAPS.fullmatch(bare) else "concept"


def _keep(entry: Entry, parameters: set[str], minimum: int) -> bool:
    bare = entry.display[:-2] if entry.display.endswith("()") else entry.display
    if bare in parameters and entry.define is None:
        return False  # a function's parameter, not a thing of its own
    if bare.casefold() in _LITERALS or (is_common_word(bare) and not entry.strong):
        return False
    return entry.hits + entry.bonus >= minimum


def _rule_pool(chunks: Sequence[ChunkDraft]) -> tuple[Pool, list[str], set[str]]:
    """What the syntactic sources find, the texts they read, the names called as code."""
    pool = Pool()
    texts = [_blank_fences(chunk.text) for chunk in chunks]
    called: set[str] = set()
    for index, (chunk, text) in enumerate(zip(chunks, texts, strict=True)):
        front_matter = not chunk.heading_path
        if chunk.heading_path and chunk.part == 0:
            pool.rule = "heading"
            _heading_candidates(pool, index, chunk)
        pool.rule = "code span"
        _code_spans(pool, index, text)
        pool.rule = "identifier"
        _identifiers(pool, index, text)
        pool.rule = "declaration"
        _signatures(pool, index, text)
        pool.rule = "acronym"
        for acronym, expansion, start, end, type_ in acronyms_find(text):
            pool.define(
                acronym,
                index,
                start,
                end,
                strength=4 if front_matter else 3,
                type_=type_,
                weight=3,
                alias=expansion,
                strong=True,
            )
        pool.rule = "introduced term"
        _introduced(pool, index, text)
        pool.rule = "noun phrase"
        _typed_phrases(pool, index, text, opening=chunk.part == 0 and bool(chunk.heading_path))
        pool.rule = "copula"
        _copula_identifiers(pool, index, text)
        called.update(re.findall(r"(?<!\w)([A-Za-z_]\w*+)\s?\(", text))  # linear: whole words
    pool.rule = "command line"
    commands_find(pool, texts)
    return pool, texts, called


def _aliases(entry: Entry) -> tuple[str, ...]:
    return tuple(a for a in entry.aliases if normalize(a) != normalize(entry.display))


def book_term_rows(chunks: Sequence[ChunkDraft]) -> list[TermRow]:
    """Every term of the book with its features (what the learned scorer reads)."""
    pool, texts, called = _rule_pool(chunks)
    minimum = int(settings.KGSITE_CANDIDATE_MIN_EVIDENCE)
    rules = []
    for entry in pool.entries.values():
        type_ = _final_type(entry, called)
        rules.append(
            RuleEntry(
                display=entry.display,
                chunks=set(entry.chunks),
                votes=dict(entry.votes),
                define=entry.define[1:] if entry.define else None,
                evidence=entry.hits + entry.bonus,
                strong=entry.strong,
                kept=type_ is not None and _keep(entry, pool.parameters, minimum),
                type=type_,
                aliases=_aliases(entry),
                typed_by=entry.typed_by(type_) if type_ and entry.votes else "",
            )
        )
    # A declaration's parameter (never also a type's name) is a placeholder of its
    # function's synopsis, not a thing of its own.
    return term_rows(chunks, texts, rules, pool.declared_parameters - pool.declared_types)


def book_candidates(
    chunks: Sequence[ChunkDraft], rejected: set[str] | None = None, known: Known | None = None
) -> list[Candidate]:
    """The names the book's text introduces, strongest evidence first.

    With trained weights (``books.extraction.scoring``) the learned scorer decides over
    every term of the pool; without them, the hand rules do.
    """
    scorer = scorer_get()
    if scorer is not None:
        rows = book_term_rows(chunks)
        decisions = rows_decide(rows, scorer, lambda name: known_type(name, known))
        found = [
            Candidate(d.display, d.type, d.evidence, d.aliases, d.define, d.typed_by)
            for d in decisions
        ]
        if rejected is not None:
            rejected.update(rows_rejected(rows, decisions, scorer))
        found.sort(key=lambda c: -c.evidence)
        return found
    pool, _texts, called = _rule_pool(chunks)
    minimum = int(settings.KGSITE_CANDIDATE_MIN_EVIDENCE)
    found = []
    for entry in pool.entries.values():
        type_ = _final_type(entry, called)
        if type_ is None or not _keep(entry, pool.parameters, minimum):
            continue
        define = entry.define[1:] if entry.define else None
        found.append(
            Candidate(
                name=entry.display,
                type=type_,
                evidence=entry.hits + entry.bonus,
                aliases=_aliases(entry),
                define=define,  # type: ignore[arg-type]
            )
        )
    found.sort(key=lambda c: -c.evidence)
    return found


def candidates_merge(
    chunks: Sequence[ChunkDraft],
    definitions: list[list],
    rejected: set[str] | None = None,
    known: Known | None = None,
) -> list[Candidate]:
    """The book's candidates; those a chunk defines join ``definitions`` (in place)
    unless the book's structure already defines that name somewhere. ``rejected``
    receives the names the learned scorer turned down."""

    found = book_candidates(chunks, rejected, known)
    taken = {name_key(e.name) for entities in definitions for e in entities}
    for candidate in found:
        if candidate.define is None or name_key(candidate.name) in taken:
            continue
        index, start, end = candidate.define
        definitions[index].append(
            DefinedEntity(
                candidate.name, candidate.type, start, end, "candidate", candidate.aliases
            )
        )
        taken.add(name_key(candidate.name))
    return found
