"""Which chunk *defines* an entity, read from the book's structure alone.

Reference books define each thing once, in a recognisable place: a spell under its
own heading followed by a spell block, a monster with a stat block, an armour type as
a row of the armour table, a god as a row of a pantheon table, a condition as a
heading in the conditions appendix. Every other mention only references it.

The rules here are data (a small table of heading keywords and the way each kind of
heading lists its items) plus the block markers reference books print under an item's
heading. No entity name is special-cased.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from books.chunking import ChunkDraft

# The entity types a structural definition can have (srd_defines_dev.tsv's vocabulary).
ENTITY_TYPES = ("spell", "monster", "magic_item", "equipment", "condition", "class", "other")


@dataclass(frozen=True, slots=True)
class DefinedEntity:
    """An entity this chunk defines; ``chunk.text[start:end]`` is where it is named.

    ``via`` says which structure gave it away (``block``, ``heading``, ``table_row``,
    ``entry``, ``sentence``): stronger evidence wins when two chunks claim one name.
    ``aliases`` are other faithful readings of the same label (``Staff (arcane focus)``
    for the row ``~ Staff`` under ``*Arcane focus*``).
    """

    name: str
    type: str
    start: int
    end: int
    via: str = "heading"
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class KnownName:
    """A stored entity a name (or alias) refers to, as the ingest's gazetteer knows it.

    ``defined_elsewhere``: another book already has a chunk that defines it.
    """

    type: str
    defined_elsewhere: bool = False


# The stored entities a name may refer to; the ingest passes one backed by the
# gazetteer, so a heading naming a known entity defines it.
Known = Callable[[str], Sequence[KnownName]]


def known_type(name: str, known: Known | None, *, undefined: bool = False) -> str | None:
    """The type of the one stored entity this name refers to (None if none or several).

    ``undefined``: only if no other book defines it yet; a bare heading is weak
    evidence next to another book's stat block or table row ("Hide", the combat
    action, is not the armour the equipment chapter defines).
    """
    if known is None:
        return None
    entries = list(known(name))
    types = {entry.type for entry in entries}
    if len(types) != 1 or (undefined and any(e.defined_elsewhere for e in entries)):
        return None
    return types.pop()


# --- heading keywords ----------------------------------------------------------------

# How a kind of heading lists the items it defines:
#   block     each item is a sub-heading followed by the type's block marker
#   children  each item is a direct sub-heading
#   entries   each item is a bold-italic definition entry (***Name.***) in its body
#   table     each item is the first cell of a table row anywhere below it


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: re.Pattern[str]
    type: str
    listing: frozenset[str]


def _rule(pattern: str, type_: str, *listing: str) -> _Rule:
    return _Rule(re.compile(rf"(?:{pattern})", re.I), type_, frozenset(listing))


_GROUPS = "paths|colleges|domains|circles|archetypes|traditions|oaths|origins|patrons"

HEADING_RULES: tuple[_Rule, ...] = (
    _rule(r"spells|spell descriptions", "spell", "block"),
    _rule(r"monsters|(?:miscellaneous )?creatures|nonplayer characters|npcs", "monster", "block"),
    _rule(r"magic items|artifacts|sentient magic items", "magic_item", "block"),
    _rule(r"conditions", "condition", "children"),
    _rule(r"classes", "class", "children"),
    _rule(rf"(?:[\w' -]+ )?(?:{_GROUPS})", "other", "children"),  # subclasses
    _rule(r"races|feats", "other", "children"),
    _rule(r"sample [\w' -]+", "other", "children", "entries"),  # sample traps, poisons
    _rule(
        r"armor|weapons|adventuring gear|gear|tools|mounts and vehicles|trade goods",
        "equipment",
        "table",
    ),
    _rule(r"pantheons|(?:the )?[\w' -]+ pantheon|deities", "other", "table"),
)

_PREFIX = re.compile(r"^(?:appendix|chapter|part|book)\s+[\w.-]+\s*[:.\-–—]\s*", re.I)
# "Spells (A)", "Creatures (A-C)"; blanks from their run's start: a long run read once.
_SUFFIX = re.compile(r"(?<!\s)\s*\([^()]*\)$")


def heading_key(heading: str) -> str:
    """A heading reduced to what the keyword table matches: no "Appendix PH-A:"
    prefix, no "(A)" suffix, lower case."""
    return _SUFFIX.sub("", _PREFIX.sub("", heading)).strip().casefold()


def _heading_rule(heading: str) -> _Rule | None:
    key = heading_key(heading)
    for rule in HEADING_RULES:
        if rule.pattern.fullmatch(key):
            return rule
    return None


def _nearest_rule(heading_path: Sequence[str]) -> tuple[int, _Rule] | None:
    for index in range(len(heading_path) - 1, -1, -1):
        if rule := _heading_rule(heading_path[index]):
            return index, rule
    return None


def chapter_type(heading_path: Sequence[str]) -> str | None:
    """The entity type the nearest typed heading of this path stands for, if any."""
    found = _nearest_rule(heading_path)
    return found[1].type if found else None


def type_from_headings(heading_path: Sequence[str]) -> str | None:
    """The type of an item defined at this path: the chapter's type, else ``other``."""
    if not heading_path:
        return None
    return chapter_type(heading_path) or "other"


# --- block markers -------------------------------------------------------------------

_SPELL_BLOCK = re.compile(
    r"\*(?:\d+(?:st|nd|rd|th)-level [a-z]+(?: \(ritual\))?|[a-z]+ cantrip(?: \(ritual\))?)\*",
    re.I,
)
_SIZES = "tiny|small|medium|large|huge|gargantuan"
_STAT_BLOCK = re.compile(rf"\*?(?:{_SIZES})\b[^*\n]*,[^*\n]*\*?", re.I)
_RARITY = r"common|uncommon|rare|very rare|legendary|artifact|rarity|varies"
_ITEM_BLOCK = re.compile(
    r"\*(?:wondrous item|armor|weapon|potion|ring|rod|scroll|staff|wand)\b"
    rf"[^*\n]*\b(?:{_RARITY})\b[^*\n]*\*",
    re.I,
)


def block_type(body: str) -> str | None:
    """The type announced by the italic line that opens an item's body, if any."""
    first = body.lstrip().split("\n", 1)[0].strip()
    if _SPELL_BLOCK.fullmatch(first):
        return "spell"
    if _ITEM_BLOCK.fullmatch(first):
        return "magic_item"
    if _STAT_BLOCK.fullmatch(first) and "**Armor Class**" in body[:600]:
        return "monster"
    return None


# --- names ---------------------------------------------------------------------------

_PLURAL_EXCEPTIONS = ("ss", "us", "is", "ous")


def is_item_name(name: str) -> bool:
    """Whether a heading can name one item rather than a topic.

    Topic headings in reference books are plural or generic ("Racial Traits",
    "Class Features", "Actions", "Hit Points"); items are singular names.
    """
    words = re.findall(r"[\w'’-]+", name)
    if not words or len(name) > 80 or _heading_rule(name):
        return False
    last = words[-1].lower()
    return not (last.endswith("s") and not last.endswith(_PLURAL_EXCEPTIONS))


def _head_noun(name: str) -> str:
    """The word a name is about: the last word, or the one before "of"."""
    words = re.findall(r"[\w'’-]+", name.split(" of ", 1)[0])
    return words[-1].casefold() if words else ""


def name_key(name: str) -> str:
    """Case, apostrophes and spacing folded: how two claims to one name are compared."""
    return re.sub(r"\s+", " ", name.replace("’", "'")).strip().casefold()


# --- the chunk's own heading ---------------------------------------------------------


def _split_heading(chunk: ChunkDraft) -> tuple[int, int, int]:
    """(name start, name end, body start) when the chunk opens with its heading."""
    newline = chunk.text.find("\n")
    first_end = len(chunk.text) if newline < 0 else newline
    name = chunk.heading_path[-1]
    first = chunk.text[:first_end]
    at = first.find(name)
    if at < 0:
        stripped = first.lstrip("# \t")
        at, length = first_end - len(stripped), len(stripped.rstrip(" #"))
    else:
        length = len(name)
    return at, at + length, first_end


def _heading_item(
    chunk: ChunkDraft, known: Known | None = None, document_text: str | None = None
) -> tuple[str, str] | None:
    """(type, via) when the chunk's heading names an item it defines."""
    path = chunk.heading_path
    name = path[-1]
    _, _, body_start = _split_heading(chunk)
    body = chunk.text[body_start:]
    if marked := block_type(body):
        return marked, "block"
    found = _nearest_rule(path[:-1])
    if (
        found is None
        and not _heading_rule(name)
        and (kind := known_type(name, known, undefined=True))
    ):
        # An untyped section titled with a stored entity's name is about that entity.
        return kind, "known"
    if not is_item_name(name):
        return None
    if found is not None:
        index, rule = found
        if "block" in rule.listing:
            # A typed chapter whose items carry markers: without one, the heading is a
            # topic ("Size", "Telepathy") unless its body defines a proper name.
            if _opens_with_definition(body, name) and _is_proper_name(name, document_text):
                return rule.type, "sentence"
            return None
        if "children" in rule.listing and index == len(path) - 2:
            return rule.type, "heading"
        # A sub-item names its parent item's head noun: "Hill Dwarf" under "Dwarf".
        if (
            "children" in rule.listing
            and index == len(path) - 3
            and is_item_name(path[-2])
            and _head_noun(name) == _head_noun(path[-2])
            and name_key(name) != name_key(path[-2])
        ):
            return rule.type, "heading"
    if _opens_with_definition(body, name):
        return type_from_headings(path) or "other", "sentence"
    return None


_COPULA = r"(?:is|are|was|were|refers to|means)\s+(?:a|an|the|one|any)\b"


def _opens_with_definition(body: str, name: str) -> bool:
    """The body's first sentence defines the heading: "The Material Plane is the ..."."""
    first = body.lstrip()[:300]
    pattern = rf"(?:(?:the|a|an)\s+)?{re.escape(name)}(?:\s+{_COPULA}|\s*:\s)"
    return re.match(pattern, first, re.I) is not None


# "Size and Strength", "Escaping a Grapple", "Rolling 1 or 20": run-in topic titles.
_TOPIC = re.compile(r",|\b(?:and|or|a|an)\b|^\w+ing\s|\d", re.I)


def _is_proper_name(name: str, text: str | None) -> bool:
    """A name the book never writes in lower case ("Glimmerwyrm", not "Telepathy",
    which the book also calls "telepathy") and not a topic title; without the text,
    any capitalised name."""
    if not name[:1].isupper() or name[-1] in "?!" or _TOPIC.search(name):
        return False
    if text is None:
        return True
    words = re.findall(r"[\w'’-]+", name.casefold())
    if not words or not set(words) <= _lower_case_words(text):
        return True  # a word of it never appears in lower case: nor does the name
    lowered = re.escape(name.casefold())
    return re.search(rf"(?<![\w'’-]){lowered}(?![\w'’-])", text) is None


@functools.lru_cache(maxsize=4)
def _lower_case_words(text: str) -> frozenset[str]:
    """Every word the text writes in lower case (one pass per document, then cached)."""
    return frozenset(w.casefold() for w in set(re.findall(r"[\w'’-]+", text)) if w.islower())


# --- a defining first sentence without a matching heading ----------------------------

# "Glimmerwyrm is a small dragon", "**The Weave** is the ...": a capitalised name, then
# a singular copula and an article. Plural or past-tense openings ("Dragons are ...",
# "Holmes was a ...") describe groups or narrate; they do not define.
_NAME_WORD = r"[A-Z][\w'’-]*"
_OPENING = re.compile(
    r"(?P<emph>\*{1,3}|_{1,2})?(?P<article>(?:The|A|An)\s+)?"
    rf"(?P<name>{_NAME_WORD}(?:(?:\s+(?:of|the|and|de|du|von|van))*\s+{_NAME_WORD}){{0,5}})"
    r"(?P=emph)?\s+(?:is|refers to|means)\s+(?:a|an|the|one)\s"
)
# Capitalised only because they open the sentence: pronouns, determiners, quantifiers.
_SENTENCE_OPENERS = frozenset(
    {
        *("this", "that", "these", "those", "it", "there", "here", "each", "every"),
        *("your", "my", "our", "their", "his", "her", "its", "such", "any", "some"),
        *("one", "what", "which", "who", "whoever", "anyone", "everyone", "nothing"),
        *("everything", "something", "someone", "no", "none", "another", "other"),
        *("if", "when", "while", "although", "because", "since", "as", "so", "but"),
        *("and", "or", "then", "thus", "yet", "in", "on", "at", "for", "with", "by"),
        *("a", "an", "the", "all", "both", "either", "neither", "much", "many", "most"),
    }
)


def _opening_definition(
    chunk: ChunkDraft, document_text: str | None, known: Known | None
) -> DefinedEntity | None:
    """The entity named by the defining sentence the chunk (after its heading) opens with.

    The name must be a proper name: not a pronoun or determiner that is capitalised
    only because it starts the sentence, and never written in lower case in the
    document ("Magic is a ..." names no entity: the book also says "magic").
    """
    body_start = _split_heading(chunk)[2] if chunk.heading_path else 0
    body = chunk.text[body_start:]
    lead = len(body) - len(body.lstrip())
    match = _OPENING.match(body, lead)
    if match is None:
        return None
    name = match.group("name")
    if name.split()[0].casefold() in _SENTENCE_OPENERS or not is_item_name(name):
        return None
    if chunk.heading_path and name_key(chunk.heading_path[-1]) in {
        name_key(name),
        name_key((match.group("article") or "") + name),
    }:
        return None  # the heading's own definition: the heading rules decide
    if not _is_proper_name(name, document_text if document_text is not None else chunk.text):
        return None
    typed = chapter_type(chunk.heading_path) if chunk.heading_path else None
    kind = typed or known_type(name, known) or "other"
    start = body_start + match.start("name")
    return DefinedEntity(name, kind, start, start + len(name), "sentence")


# --- definition entries and tables ---------------------------------------------------

# "***Name.***" (bold italic, the period inside or out, or none) or "**Name.**" (bold,
# with the period) opening a line, then the definition.
_ENTRY = re.compile(
    r"^>?[ \t]*(?:\*\*\*(?P<label>[^*\n]+?)\.?\*\*\*\.?"
    r"|\*\*(?P<bold>[^*\n]+?)(?:\.\*\*|\*\*\.))(?=[ \t]+\S)",
    re.MULTILINE,
)
_QUALIFIER = re.compile(r"^(?P<name>.+?)\s*\((?P<qualifier>[^()]*)\)$")


def _entries(
    chunk: ChunkDraft,
    type_: str | None,
    known: Known | None = None,
    document_text: str | None = None,
) -> list[DefinedEntity]:
    """Definition entries of the chunk, of type ``type_``.

    With ``type_`` None (outside typed chapters) an entry defines a stored entity it
    names (with that entity's type) or a proper name (``other``); a common term such
    as "***Fire.***" or "**Poor.**" is a run-in heading of the text, not an entity.
    """
    found = []
    for match in _ENTRY.finditer(chunk.text):
        group = "label" if match.group("label") is not None else "bold"
        label = match.group(group).strip()
        name, aliases = label, ()
        if qualified := _QUALIFIER.match(label):
            # "Essence of Ether (Inhaled)": the qualifier is a property, not the name.
            name, aliases = qualified.group("name"), (label,)
        if not is_item_name(name):
            continue
        start = match.start(group) + (len(match.group(group)) - len(match.group(group).lstrip()))
        kind = type_ or known_type(name, known)
        if kind is None:
            if not _is_proper_name(name, document_text or chunk.text):
                continue
            kind = "other"
        found.append(DefinedEntity(name, kind, start, start + len(name), "entry", aliases))
    return found


# A definition list: a term on its own line, then (maybe after a blank line) ": text".
_DEFINITION_LIST = re.compile(
    r"^(?P<term>[^\s:|#>*+\-`~\[(][^\n]{0,79}?)[ \t]*\n(?:[ \t]*\n)?:[ \t]+\S",
    re.MULTILINE,
)


def _definition_list(chunk: ChunkDraft, known: Known | None) -> list[DefinedEntity]:
    found = []
    for match in _DEFINITION_LIST.finditer(chunk.text):
        name = match.group("term").strip()
        words = re.findall(r"[\w'’-]+", name)
        if (
            not words
            or len(words) > 8
            or name[-1] in ".,;:!?"
            or _heading_rule(name)
            or not any(c.isalpha() for c in name)
        ):
            continue
        kind = known_type(name, known) or "other"
        start = match.start("term")
        found.append(DefinedEntity(name, kind, start, start + len(name), "entry"))
    return found


_TABLE_ROW = re.compile(r"^[ \t]*\|(?P<cells>.*)\|?[ \t]*$", re.MULTILINE)
_SEPARATOR = re.compile(r"^[\s|:]*-[\s|:\-]*$")
# First-column headers of tables whose rows are not items ("Category", "Cost", "d6").
_NON_ITEM_COLUMN = re.compile(r"category|type|cost|price|level|d\d+|\d+", re.I)
_NOT_A_NAME = re.compile(
    r"[\d\s.,;:+\-–—×x/%()]*"  # numbers, ranges, multipliers, dashes
    r"|[\d,]+\s*(?:cp|sp|ep|gp|pp|lb\.?|lbs\.?|ft\.?|feet|miles?|mph|days?)"
    r"|\d*d\d+(?:\s*[+\-]\s*\d+)?"  # dice
    r"|(?:str|dex|con|int|wis|cha)\s+\d+",
    re.I,
)
# "Tyr, god of courage and strategy": the appositive after the comma describes the name.
_APPOSITIVE = re.compile(r"^(?P<name>[^,]+),\s+(?:[a-z]+\s+){1,3}of\b.*$")


def _table_rows(chunk: ChunkDraft, type_: str, document_text: str | None) -> list[DefinedEntity]:
    """The first cells of a table's body rows: in catalogue tables they name the items.

    Header rows (the line above ``|---|``), bold category rows, blank cells and cells
    that are numbers, costs, weights or dice are skipped. When a table continues from
    the previous chunk, its earlier rows (read from ``document_text``) still say which
    header and which ``*group*`` row the continued rows belong to.
    """
    prefix = _table_prefix(document_text, chunk.start) if document_text else ""
    text = prefix + chunk.text
    rows = list(_TABLE_ROW.finditer(text))
    headers = {
        rows[i].start()
        for i in range(len(rows) - 1)
        if _SEPARATOR.fullmatch(rows[i + 1].group("cells"))
    }
    found: list[DefinedEntity] = []
    group = ""
    skip_table = False
    for row in rows:
        cells = row.group("cells")
        if row.start() in headers:
            first_header = cells.split("|", 1)[0].strip().strip("*").strip()
            skip_table = bool(_NON_ITEM_COLUMN.fullmatch(first_header))
            continue
        if skip_table or _SEPARATOR.fullmatch(cells):
            continue
        raw = cells.split("|", 1)[0]
        offset = row.start("cells") + len(raw) - len(raw.lstrip())
        cell = raw.strip()
        sub_item = cell.startswith("~")
        if sub_item:
            offset += len(cell) - len(cell[1:].lstrip())
            cell = cell[1:].strip()
        else:
            group = ""
        if not cell or cell.startswith("**"):
            continue
        if cell.startswith("*") and cell.endswith("*") and len(cell) > 2:
            group = cell.strip("*").strip()  # "*Arcane focus*" heads the "~" rows below
            continue
        cell = cell.rstrip("*").strip()  # footnote marks: "Backpack*"
        if _NOT_A_NAME.fullmatch(cell) or sum(c.isalpha() for c in cell) < 2:
            continue
        name = cell
        if appositive := _APPOSITIVE.match(cell):
            name = appositive.group("name").strip()
        aliases: tuple[str, ...] = ()
        if sub_item and group:
            aliases = (f"{name} ({group.lower()})",)
            if " " not in group and " " not in name:
                aliases += (f"{name} {group.lower()}",)  # "~ Riding" under "*Saddle*"
        if offset >= len(prefix):
            start = offset - len(prefix)
            found.append(DefinedEntity(name, type_, start, start + len(name), "table_row", aliases))
    return found


def _table_prefix(document_text: str, start: int) -> str:
    """The table lines right before ``start`` (the rows a split table began with).

    Reads backwards from ``start`` line by line: the cost is the table's, not the
    document's (copying the whole prefix per chunk made big books quadratic).
    """
    end = start
    while end > 0 and document_text[end - 1] in " \t\n":
        end -= 1
    if end == 0 or document_text.count("\n", end, start) != 1:
        return ""  # the chunk does not continue a table line by line
    taken: list[str] = []
    while end > 0:
        line_start = document_text.rfind("\n", 0, end) + 1
        line = document_text[line_start:end]
        if not line.lstrip().startswith("|"):
            break
        taken.append(line)
        end = line_start - 1
    return "\n".join(reversed(taken)) + "\n" if taken else ""


# --- public API ----------------------------------------------------------------------


def defined_entities(
    chunk: ChunkDraft, *, document_text: str | None = None, known: Known | None = None
) -> list[DefinedEntity]:
    """The entities this chunk defines (empty when it only references things).

    Only the first chunk of a section can define the section's heading or a name its
    first sentence defines; table rows and definition entries are defined by whichever
    chunk holds them. Pass the document's text so a table split across chunks keeps
    its header and groups (and a name is checked against the whole book), and
    ``known`` so a heading naming a stored entity outside typed chapters defines it.
    """
    found: list[DefinedEntity] = []
    path = chunk.heading_path
    if path and chunk.part == 0 and (item := _heading_item(chunk, known, document_text)):
        type_, via = item
        start, end, _ = _split_heading(chunk)
        found.append(DefinedEntity(path[-1], type_, start, end, via))
    if chunk.part == 0 and (opening := _opening_definition(chunk, document_text, known)):
        found.append(opening)
    nearest = _nearest_rule(path)
    if nearest is not None:
        index, rule = nearest
        if "entries" in rule.listing and index == len(path) - 1:
            found.extend(_entries(chunk, rule.type))
        if "table" in rule.listing:
            found.extend(_table_rows(chunk, rule.type, document_text))
    else:
        # Outside typed chapters a definition entry or list item defines its term;
        # inside them entries are an item's traits and actions ("***Bite.***").
        found.extend(_entries(chunk, None, known, document_text))
        found.extend(_definition_list(chunk, known))
    return _dedupe(found)


def _dedupe(found: Iterable[DefinedEntity]) -> list[DefinedEntity]:
    seen: set[tuple[str, str]] = set()
    unique = []
    for entity in found:
        key = (name_key(entity.name), entity.type)
        if key not in seen:
            seen.add(key)
            unique.append(entity)
    return unique


_STRENGTH = {"block": 0, "heading": 1, "known": 1, "table_row": 2, "entry": 3, "sentence": 4}


def resolve_definitions(
    per_chunk: Sequence[Sequence[DefinedEntity]],
) -> list[list[DefinedEntity]]:
    """Keep one defining chunk per (name, type) across a book or a shelf of books.

    The strongest evidence wins (a stat block over a table row over a sentence), then
    the earliest chunk: later claims become plain references. ``per_chunk`` is in
    reading order, one list per chunk, as ``defined_entities`` returned them.
    """
    best: dict[tuple[str, str], tuple[int, int]] = {}
    for index, entities in enumerate(per_chunk):
        for entity in entities:
            key = (name_key(entity.name), entity.type)
            rank = (_STRENGTH.get(entity.via, len(_STRENGTH)), index)
            if key not in best or rank < best[key]:
                best[key] = rank
    return [
        [e for e in entities if best[(name_key(e.name), e.type)][1] == index]
        for index, entities in enumerate(per_chunk)
    ]
