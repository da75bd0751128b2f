"""Merging duplicate entities, its preview plan and its undo."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from kgsite.errors import Conflict, InvalidInput, NotFound, Wording
from kgsite.models import audit
from kgsite.text import normalize

from .. import hooks
from ..models import (
    Alias,
    DuplicateSuggestion,
    Entity,
    EntityFact,
    EntityMerge,
    EntityRedirect,
    Fact,
)
from .bulk import BULK_BATCH
from .lifecycle import _candidates_payload, _chunks, _entities_saved

# --- Merge and its undo ----------------------------------------------------------------
#
# A merge moves everything that points at the duplicates to the survivor, turns their
# canonical names into the survivor's aliases, deletes them and leaves a redirect per
# old id. ``EntityMerge.state`` records exactly what changed (rows moved, rows dropped
# with all their fields, roles upgraded, other apps' payloads), so undo puts back the
# same ids, names, aliases, links and mentions, or refuses naming what changed since.

# A link keeps the strongest role when the survivor is already linked to the fact.
_ROLE_RANK = {EntityFact.Role.SUBJECT: 0, EntityFact.Role.OBJECT: 1, EntityFact.Role.MENTION: 2}
_ENTITY_FIELDS = (
    "id",
    "canonical_name",
    "name_norm",
    "type",
    "description",
    "curated",
    "candidate",
    "evidence",
)
_ALIAS_FIELDS = ("id", "entity_id", "alias", "alias_norm", "type", "manual")
_LINK_FIELDS = ("id", "entity_id", "fact_id", "role")


def _stamp(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _unstamp(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _rows(qs, fields: tuple[str, ...], stamps: tuple[str, ...] = ()) -> list[dict]:
    """Model rows as JSON-ready dicts (timestamps as ISO text) for ``EntityMerge.state``."""
    rows = []
    for row in qs.values(*fields, *stamps):
        for stamp in stamps:
            row[stamp] = _stamp(row[stamp])
        rows.append(row)
    return rows


def _insert_exact(model, objs: list) -> None:
    """Insert rows exactly as recorded, ids and timestamps included. ``bulk_create``
    would let auto_now(_add) fields stamp the present time; a raw insert (what fixture
    loading uses) keeps the values given."""
    fields = [f for f in model._meta.concrete_fields]
    for start in range(0, len(objs), BULK_BATCH // 4):
        model._base_manager._insert(objs[start : start + BULK_BATCH // 4], fields=fields, raw=True)


def _brief(entity: Entity) -> dict:
    return {"id": entity.id, "canonical_name": entity.canonical_name, "type": entity.type}


@dataclass
class MergePlan:
    """What a merge would do; ``as_dict()`` is the preview the API and pages show."""

    survivor: Entity
    duplicates: list[Entity]
    # (alias id, reason it is dropped or None when it moves to the survivor)
    alias_moves: list[tuple[int, str | None]] = dataclasses.field(default_factory=list)
    new_aliases: list[str] = dataclasses.field(default_factory=list)
    # the duplicates' fact links: (row id, duplicate id, fact id, role)
    links: list[tuple[int, str, int, str]] = dataclasses.field(default_factory=list)
    conflicts: list[dict] = dataclasses.field(default_factory=list)
    moves: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def duplicate_ids(self) -> list[str]:
        return [d.id for d in self.duplicates]

    def as_dict(self) -> dict:
        return {
            "survivor": _brief(self.survivor),
            "duplicates": [_brief(d) for d in self.duplicates],
            "moves": dict(self.moves),
            "new_aliases": list(self.new_aliases),
            "conflicts": list(self.conflicts),
        }


@dataclass(frozen=True)
class MergeOutcome:
    plan: MergePlan
    merge: EntityMerge | None  # None for a preview


def _merge_validate(
    survivor: Entity, duplicates: list[Entity], allow_cross_type: bool
) -> list[Entity]:
    unique: dict[str, Entity] = {}
    for duplicate in duplicates:
        unique.setdefault(duplicate.pk, duplicate)
    if not unique:
        raise InvalidInput(gettext_noop("name at least one duplicate to merge"), field="duplicates")
    if survivor.pk in unique:
        raise InvalidInput(
            gettext_noop("the survivor cannot also be a duplicate"), field="duplicates"
        )
    cross = [d for d in unique.values() if d.type != survivor.type]
    if cross and not allow_cross_type:
        names = ", ".join(f"'{d.canonical_name}' ({d.type or 'untyped'})" for d in cross)
        raise Conflict(
            f"{names} not of the survivor's type '{survivor.type or 'untyped'}'; "
            "set allow_cross_type to merge across types",
            field="allow_cross_type",
            code="cross_type",
            extra={"candidates": _candidates_payload(cross)},
        )
    return list(unique.values())


def _names_taken(norms: set[str], entity_type: str, exclude: list[str]) -> dict[str, str]:
    """norm -> the name of another entity (not in ``exclude``) owning it in this type."""
    taken: dict[str, str] = {}
    for chunk in _chunks(sorted(norms)):
        for norm, name in (
            Alias.objects.filter(alias_norm__in=chunk, type=entity_type)
            .exclude(entity_id__in=exclude)
            .values_list("alias_norm", "entity__canonical_name")
        ):
            taken[norm] = name
        for norm, name in (
            Entity.objects.filter(name_norm__in=chunk, type=entity_type)
            .exclude(pk__in=exclude)
            .values_list("name_norm", "canonical_name")
        ):
            taken[norm] = name
    return taken


def _plan_aliases(plan: MergePlan) -> None:
    """Duplicates' names first (lookup by an old name must find the survivor), then
    their aliases, in the order the duplicates were given; the first claim of a
    normalised name wins, later ones are dropped and reported."""
    survivor, ids = plan.survivor, plan.duplicate_ids
    aliases = list(
        Alias.objects.filter(entity_id__in=ids)
        .order_by("alias_norm", "pk")
        .values_list("pk", "entity_id", "alias", "alias_norm")
    )
    order = {pk: i for i, pk in enumerate(ids)}
    aliases.sort(key=lambda row: (order[row[1]], row[3], row[0]))
    norms = {d.name_norm for d in plan.duplicates} | {row[3] for row in aliases}
    taken = _names_taken(norms, survivor.type, [survivor.pk, *ids])
    claimed = {survivor.name_norm} | set(survivor.aliases.values_list("alias_norm", flat=True))

    def why_not(norm: str, shown: str) -> str | None:
        if norm in claimed:
            return Wording(
                gettext_noop("'%(name)s' already names '%(other)s'"),
                {"name": shown, "other": survivor.canonical_name},
            )
        if norm in taken:
            return Wording(
                gettext_noop("'%(name)s' already names '%(other)s' among %(type)s"),
                {"name": shown, "other": taken[norm], "type": survivor.type or "untyped"},
            )
        return None

    for duplicate in plan.duplicates:
        reason = why_not(duplicate.name_norm, duplicate.canonical_name)
        if reason is None:
            plan.new_aliases.append(duplicate.canonical_name)
            claimed.add(duplicate.name_norm)
        elif duplicate.name_norm not in claimed or duplicate.name_norm != survivor.name_norm:
            plan.conflicts.append(
                {"kind": "name_not_added", "value": duplicate.canonical_name, "message": reason}
            )
    for pk, _entity_id, alias, norm in aliases:
        reason = why_not(norm, alias)
        plan.alias_moves.append((pk, reason))
        if reason is None:
            claimed.add(norm)
        else:
            plan.conflicts.append({"kind": "alias_dropped", "value": alias, "message": reason})
    plan.moves["aliases"] = sum(1 for _pk, reason in plan.alias_moves if reason is None)


def _plan_facts(plan: MergePlan) -> None:
    ids = plan.duplicate_ids
    plan.links = list(
        EntityFact.objects.filter(entity_id__in=ids)
        .order_by("fact_id", "pk")
        .values_list("pk", "entity_id", "fact_id", "role")
    )
    fact_ids = {row[2] for row in plan.links}
    fact_ids |= set(Fact.objects.filter(subject_id__in=ids).values_list("pk", flat=True))
    fact_ids |= set(Fact.objects.filter(object_entity_id__in=ids).values_list("pk", flat=True))
    plan.moves["facts"] = len(fact_ids)
    group = [plan.survivor.pk, *ids]
    loops = list(
        Fact.objects.filter(subject_id__in=group, object_entity_id__in=group)
        .filter(Q(subject_id__in=ids) | Q(object_entity_id__in=ids))
        .order_by("pk")
        .values_list("pk", "text")
    )
    for pk, text in loops:
        plan.conflicts.append(
            {
                "kind": "fact_self_reference",
                "value": pk,
                "message": Wording(
                    gettext_noop("fact %(id)s ('%(text)s') would relate the survivor to itself"),
                    {"id": pk, "text": text[:60]},
                ),
            }
        )


def _merge_plan(survivor: Entity, duplicates: list[Entity], allow_cross_type: bool) -> MergePlan:
    duplicates = _merge_validate(survivor, duplicates, allow_cross_type)
    plan = MergePlan(survivor=survivor, duplicates=duplicates)
    _plan_aliases(plan)
    _plan_facts(plan)
    for mover in hooks.merge_movers():
        plan.moves[mover.name] = mover.count(plan.duplicate_ids)
    return plan


def _merge_aliases(plan: MergePlan, state: dict) -> None:
    survivor = plan.survivor
    state["aliases"] = _rows(
        Alias.objects.filter(entity_id__in=plan.duplicate_ids).order_by("pk"),
        _ALIAS_FIELDS,
        ("created_at", "updated_at"),
    )
    moved = [pk for pk, reason in plan.alias_moves if reason is None]
    dropped = [pk for pk, reason in plan.alias_moves if reason is not None]
    state["moved_aliases"] = moved
    Alias.objects.filter(pk__in=dropped).delete()
    for chunk in _chunks(moved):
        Alias.objects.filter(pk__in=chunk).update(entity=survivor, type=survivor.type)


def _merge_links(plan: MergePlan, state: dict) -> set[int]:
    """Move the duplicates' fact links; where the survivor (or an earlier duplicate) is
    already linked, keep that row with the stronger role. Returns the facts touched."""
    survivor_id = plan.survivor.pk
    fact_ids = sorted({row[2] for row in plan.links})
    held: dict[int, tuple[int, str]] = {}
    for chunk in _chunks(fact_ids):
        for pk, fact_id, role in EntityFact.objects.filter(
            entity_id=survivor_id, fact_id__in=chunk
        ).values_list("pk", "fact_id", "role"):
            held[fact_id] = (pk, role)
    moved: list[list] = []  # [link id, duplicate id, fact id]
    dropped: list[int] = []
    roles: dict[int, tuple[str, str]] = {}  # kept row -> (role before, role after)
    for pk, entity_id, fact_id, role in plan.links:
        if fact_id not in held:
            held[fact_id] = (pk, role)
            moved.append([pk, entity_id, fact_id])
            continue
        dropped.append(pk)
        keep_pk, keep_role = held[fact_id]
        if _ROLE_RANK[role] < _ROLE_RANK[keep_role]:
            before = roles.get(keep_pk, (keep_role, keep_role))[0]
            roles[keep_pk] = (before, role)
            held[fact_id] = (keep_pk, role)
    state["links"] = {
        "moved": moved,
        "dropped": _rows(
            EntityFact.objects.filter(pk__in=dropped).order_by("pk"), _LINK_FIELDS, ("created_at",)
        ),
        "roles": [[pk, before, after] for pk, (before, after) in sorted(roles.items())],
    }
    for chunk in _chunks(dropped):
        EntityFact.objects.filter(pk__in=chunk).delete()
    _roles_set([(pk, after) for pk, _before, after in state["links"]["roles"]])
    for chunk in _chunks([pk for pk, _e, _f in moved]):
        EntityFact.objects.filter(pk__in=chunk).update(entity_id=survivor_id)
    return set(fact_ids)


def _roles_set(changes: list[tuple[int, str]]) -> None:
    """One UPDATE per role (a CASE per row is slow on thousands of rows)."""
    by_role: dict[str, list[int]] = {}
    for pk, role in changes:
        by_role.setdefault(role, []).append(pk)
    for role, pks in by_role.items():
        for chunk in _chunks(pks):
            EntityFact.objects.filter(pk__in=chunk).update(role=role)


def _merge_triples(plan: MergePlan, state: dict) -> set[int]:
    ids, survivor_id = plan.duplicate_ids, plan.survivor.pk
    subjects = list(
        Fact.objects.filter(subject_id__in=ids).order_by("pk").values_list("pk", "subject_id")
    )
    objects = list(
        Fact.objects.filter(object_entity_id__in=ids)
        .order_by("pk")
        .values_list("pk", "object_entity_id")
    )
    state["subjects"] = [list(row) for row in subjects]
    state["objects"] = [list(row) for row in objects]
    Fact.objects.filter(subject_id__in=ids).update(subject_id=survivor_id)
    Fact.objects.filter(object_entity_id__in=ids).update(object_entity_id=survivor_id)
    return {pk for pk, _e in subjects} | {pk for pk, _e in objects}


def _merge_suggestions(plan: MergePlan, state: dict, actor) -> None:
    ids = plan.duplicate_ids
    rows = DuplicateSuggestion.objects.filter(Q(entity_a_id__in=ids) | Q(entity_b_id__in=ids))
    state["suggestions"] = _rows(
        rows.order_by("pk"),
        ("id", "entity_a_id", "entity_b_id", "status", "decided_by_id"),
        ("decided_at",),
    )
    rows.filter(Q(entity_a=plan.survivor) | Q(entity_b=plan.survivor)).update(
        status=DuplicateSuggestion.Status.MERGED,
        decided_by=actor if getattr(actor, "is_authenticated", False) else None,
        decided_at=timezone.now(),
    )


def _merge_before_state(plan) -> dict[str, Any]:
    """What undo needs besides the moves: the duplicates' rows as they were, the merges
    they survived, the plan."""
    return {
        "entities": _rows(
            Entity.objects.filter(pk__in=plan.duplicate_ids).order_by("pk"),
            _ENTITY_FIELDS,
            ("created_at", "updated_at"),
        ),
        "survivor_of": list(
            EntityMerge.objects.filter(survivor_id__in=plan.duplicate_ids).values_list(
                "pk", "survivor_id"
            )
        ),
        # The survivor's aliases that already named a duplicate or one of its aliases:
        # they stood beside them before the merge, so they do not block its undo.
        "survivor_aliases": list(
            Alias.objects.filter(
                entity_id=plan.survivor.pk,
                alias_norm__in={d.name_norm for d in plan.duplicates}
                | set(
                    Alias.objects.filter(entity_id__in=plan.duplicate_ids).values_list(
                        "alias_norm", flat=True
                    )
                ),
            ).values_list("pk", flat=True)
        ),
        "plan": plan.as_dict(),
    }


def _merge_audit(plan, merge: EntityMerge, actor) -> None:
    audit(
        actor=actor,
        action="entity.merge",
        target=plan.survivor,
        payload={
            "merge": merge.pk,
            "duplicates": [_brief(d) for d in plan.duplicates],
            "new_aliases": plan.new_aliases,
            "conflicts": plan.conflicts,
            "moves": plan.moves,
        },
    )


@transaction.atomic(durable=True)
def entity_merge(
    *,
    survivor: Entity,
    duplicates: list[Entity],
    actor,
    allow_cross_type: bool = False,
    preview: bool = False,
) -> MergeOutcome:
    """Merge ``duplicates`` into ``survivor``, or with ``preview`` say what would move
    and write nothing.

    Moves aliases, fact links (every role), subject and object references and, through
    ``hooks.merge_mover``, other apps' references (books: mentions); the duplicates'
    names become the survivor's aliases; each old id redirects to the survivor. Alias
    clashes are settled deterministically (first claim wins) and reported under
    ``conflicts``. Moved facts are saved as "relinked", so integrity re-checks them
    against the survivor's facts (confirmations, contradictions).
    """
    ids = [survivor.pk, *[d.pk for d in duplicates]]
    locked = {e.pk: e for e in Entity.objects.select_for_update().filter(pk__in=ids)}
    missing = [pk for pk in ids if pk not in locked]
    if missing:
        field = "survivor" if missing[0] == survivor.pk else "duplicates"
        raise NotFound(
            gettext_noop("no entity with id '%(id)s'"), params={"id": missing[0]}, field=field
        )
    plan = _merge_plan(locked[survivor.pk], [locked[d.pk] for d in duplicates], allow_cross_type)
    if preview:
        return MergeOutcome(plan=plan, merge=None)
    survivor = plan.survivor
    state = _merge_before_state(plan)
    _merge_aliases(plan, state)
    relinked = _merge_links(plan, state) | _merge_triples(plan, state)
    state["movers"] = {
        mover.name: mover.move(survivor.pk, plan.duplicate_ids) for mover in hooks.merge_movers()
    }
    _merge_suggestions(plan, state, actor)
    Entity.objects.filter(pk__in=plan.duplicate_ids).delete()
    added = [
        Alias.objects.create(
            entity=survivor,
            alias=name,
            alias_norm=normalize(name),
            type=survivor.type,
            manual=True,
        ).pk
        for name in plan.new_aliases
    ]
    state["added_aliases"] = added
    merge = EntityMerge.objects.create(
        survivor=survivor,
        survivor_name=survivor.canonical_name,
        duplicate_ids=plan.duplicate_ids,
        state=state,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
    )
    EntityRedirect.objects.bulk_create(
        [EntityRedirect(old_id=pk, target_id=survivor.pk, merge=merge) for pk in plan.duplicate_ids]
    )
    _merge_audit(plan, merge, actor)
    _entities_saved([survivor.pk, *plan.duplicate_ids])
    for fact_id in sorted(relinked):
        hooks.fact_saved_fire(fact_id, "relinked")
    return MergeOutcome(plan=plan, merge=merge)
