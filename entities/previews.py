"""What the merge preview shows side by side (as Wikidata's merge or OpenRefine's
cluster view do): for the survivor and each duplicate, its aliases, facts and book
mentions, with what moves, what is dropped and why."""

from __future__ import annotations

from dataclasses import dataclass, field

from kgsite.errors import in_page_language

from . import hooks
from .models import Alias, Entity, EntityFact
from .services import MergePlan

SIDE_FACTS = 30


@dataclass
class Side:
    entity: Entity
    survivor: bool
    aliases: list[dict] = field(default_factory=list)  # {"alias", "moves", "why"}
    facts: list[dict] = field(default_factory=list)  # {"text", "role", "status", "shared"}
    fact_count: int = 0
    mentions: list[dict] = field(default_factory=list)  # {"title", "count"}
    # A duplicate's name becomes the survivor's alias, or why not (None: no reason given,
    # as when it already is the survivor's name).
    name_added: bool = False
    name_why: str | None = None


def _facts(entity_ids: list[str]) -> dict[str, list[tuple[int, str, str, str]]]:
    rows: dict[str, list[tuple[int, str, str, str]]] = {pk: [] for pk in entity_ids}
    links = (
        EntityFact.objects.filter(entity_id__in=entity_ids)
        .select_related("fact")
        .order_by("-fact__created_at", "-fact_id")
    )
    for link in links:
        rows[link.entity_id].append((link.fact_id, link.fact.text, link.role, link.fact.status))
    return rows


def plan_shown(plan: MergePlan) -> dict:
    """The plan as the API answers it, its conflicts said in the page's language."""
    shown = plan.as_dict()
    shown["conflicts"] = [
        {**c, "message": in_page_language(c["message"])} for c in shown["conflicts"]
    ]
    return shown


def merge_sides(plan: MergePlan) -> list[Side]:
    """The survivor first, then each duplicate, as they stand and as the merge leaves
    them (a dropped alias carries the conflict's reason)."""
    entities = [plan.survivor, *plan.duplicates]
    ids = [e.pk for e in entities]
    facts = _facts(ids)
    survivor_facts = {fact_id for fact_id, *_rest in facts[plan.survivor.pk]}
    dropped = {pk: why and in_page_language(why) for pk, why in plan.alias_moves}
    added = set(plan.new_aliases)
    not_added = {
        c["value"]: in_page_language(c["message"])
        for c in plan.conflicts
        if c["kind"] == "name_not_added"
    }
    sides = []
    for entity in entities:
        side = Side(entity=entity, survivor=entity.pk == plan.survivor.pk)
        if not side.survivor:
            side.name_added = entity.canonical_name in added
            side.name_why = None if side.name_added else not_added.get(entity.canonical_name)
        for alias in Alias.objects.filter(entity=entity).order_by("alias_norm"):
            why = None if side.survivor else dropped.get(alias.pk)
            side.aliases.append({"alias": alias.alias, "moves": not side.survivor, "why": why})
        rows = facts[entity.pk]
        side.fact_count = len(rows)
        side.facts = [
            {
                "id": fact_id,
                "text": text,
                "role": role,
                "status": status,
                "shared": not side.survivor and fact_id in survivor_facts,
            }
            for fact_id, text, role, status in rows[:SIDE_FACTS]
        ]
        side.mentions = [
            {"title": group.get("title", ""), "count": group.get("count", 0)}
            for group in hooks.entity_mentions_read(entity.pk)
        ]
        sides.append(side)
    return sides
