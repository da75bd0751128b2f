"""Fact predicates onto relations: synonyms and inverses folded, unknowns kept.

A predicate is read as words (``"Depends on"``, ``"dependsOn"``, ``"depends-on"`` are the
same), auxiliaries in front are dropped (``"is part of"`` → ``part of``), and a verb's
third person is folded onto its base (``uses`` → ``use``). The result is looked up among
the default relations, their inverses and their synonyms; a stated inverse is stored on
the relation with head and tail swapped. Anything else becomes a relation of its own
(snake case), never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgsite.text import clean_display, normalize

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_WORD = re.compile(r"[^\w]+")
# Leading words that carry tense or copula, not the relation.
_AUXILIARIES = {"is", "are", "was", "were", "be", "been", "being", "has", "have", "had"}
_ARTICLES = {"a", "an", "the"}
MAX_RELATION_LENGTH = 128


@dataclass(frozen=True)
class RelationSpec:
    name: str
    inverse: str = ""
    symmetric: bool = False
    domain: str = ""
    range: str = ""
    # Other wordings (already in the folded form ``_key`` produces).
    synonyms: tuple[str, ...] = ()
    inverse_synonyms: tuple[str, ...] = ()


DEFAULT_RELATIONS: tuple[RelationSpec, ...] = (
    RelationSpec(
        "depends_on",
        "dependency_of",
        synonyms=("depend_on", "require", "need", "rely_on"),
        inverse_synonyms=("required_by", "needed_by"),
    ),
    RelationSpec("uses", "used_by", synonyms=("use", "utilize", "utilise", "built_with")),
    RelationSpec("implements", "implemented_by", synonyms=("implement",)),
    RelationSpec("extends", "extended_by", synonyms=("extend", "inherit_from", "subclass_of")),
    RelationSpec(
        "part_of",
        "contains",
        synonyms=("component_of", "belong_to", "module_of"),
        inverse_synonyms=("contain", "include", "consist_of", "has_part", "comprise"),
    ),
    RelationSpec(
        "instance_of",
        "has_instance",
        synonyms=("a", "an", "type_of", "kind_of", "is_a"),
    ),
    RelationSpec(
        "works_at",
        "employs",
        domain="person",
        synonyms=("work_at", "work_for", "employed_by", "employed_at", "works_for"),
        inverse_synonyms=("employ",),
    ),
    RelationSpec(
        "created_by",
        "creator_of",
        synonyms=("authored_by", "written_by", "developed_by", "invented_by", "designed_by"),
        inverse_synonyms=(
            "create",
            "created",
            "author",
            "authored",
            "wrote",
            "write",
            "develop",
            "developed",
            "invent",
            "invented",
            "design",
            "designed",
        ),
    ),
    RelationSpec("maintained_by", "maintains", inverse_synonyms=("maintain",)),
    RelationSpec("owned_by", "owns", inverse_synonyms=("own",), synonyms=("property_of",)),
    RelationSpec(
        "located_in",
        "location_of",
        synonyms=(
            "based_in",
            "situated_in",
            "headquartered_in",
            "lives_in",
            "live_in",
            "in",
            "located_at",
        ),
    ),
    RelationSpec("born_in", "birthplace_of", domain="person"),
    RelationSpec("member_of", "has_member", synonyms=("belongs_to_group",), domain="person"),
    RelationSpec(
        "alternative_to",
        symmetric=True,
        synonyms=("competitor_of", "competes_with", "compete_with", "alternative_of"),
    ),
    RelationSpec(
        "similar_to",
        symmetric=True,
        synonyms=("like", "resemble", "related_to", "comparable_to"),
    ),
    RelationSpec(
        "replaced_by",
        "replaces",
        synonyms=("superseded_by", "succeeded_by"),
        inverse_synonyms=("replace", "supersede", "succeed"),
    ),
    RelationSpec(
        "preceded_by",
        "precedes",
        synonyms=("follow", "comes_after"),
        inverse_synonyms=("precede", "comes_before", "predecessor_of"),
    ),
    RelationSpec("married_to", symmetric=True, synonyms=("spouse_of", "wife_of", "husband_of")),
    RelationSpec("sibling_of", symmetric=True, synonyms=("brother_of", "sister_of")),
    RelationSpec("parent_of", "child_of", inverse_synonyms=("son_of", "daughter_of")),
    RelationSpec("founded_by", "founder_of", inverse_synonyms=("found", "founded")),
    RelationSpec("written_in", "language_of", synonyms=("programmed_in", "coded_in")),
    RelationSpec(
        "runs_on", "hosts", synonyms=("run_on", "deployed_on"), inverse_synonyms=("host",)
    ),
    RelationSpec("connects_to", symmetric=True, synonyms=("connect_to", "linked_to", "link_to")),
)

SPECS: dict[str, RelationSpec] = {spec.name: spec for spec in DEFAULT_RELATIONS}


def _base_form(word: str) -> str:
    """Third person to base form for the verb in front: uses → use, relies → rely."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _key(predicate: str) -> str:
    words = _NON_WORD.sub(" ", normalize(_CAMEL.sub(" ", clean_display(predicate)))).split()
    words = [w for w in words if w != "_"]
    flat = [part for w in words for part in w.split("_") if part]
    while len(flat) > 1 and flat[0] in _AUXILIARIES | _ARTICLES:
        flat = flat[1:]
    if flat:
        flat[0] = _base_form(flat[0])
    return "_".join(flat)


def _lookup_table() -> dict[str, tuple[str, bool]]:
    table: dict[str, tuple[str, bool]] = {}
    for spec in DEFAULT_RELATIONS:
        for wording in (spec.name, *spec.synonyms):
            table.setdefault(_key(wording), (spec.name, False))
            table.setdefault(wording, (spec.name, False))
        if spec.inverse:
            for wording in (spec.inverse, *spec.inverse_synonyms):
                table.setdefault(_key(wording), (spec.name, True))
                table.setdefault(wording, (spec.name, True))
    return table


_TABLE = _lookup_table()


@dataclass(frozen=True)
class Resolved:
    """Where a predicate lands: the relation's name, and whether head and tail swap."""

    name: str
    flipped: bool
    spec: RelationSpec | None


def predicate_resolve(predicate: str) -> Resolved | None:
    """The relation a fact predicate means, or None for an empty one."""
    key = _key(predicate or "")
    if not key:
        return None
    found = _TABLE.get(key)
    if found is not None:
        name, flipped = found
        return Resolved(name, flipped, SPECS[name])
    # Cut between words, never after a "_": the stored name must resolve to itself.
    return Resolved(key[:MAX_RELATION_LENGTH].rstrip("_"), False, None)
