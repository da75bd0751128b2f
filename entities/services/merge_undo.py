"""Undoing a merge: what blocks it, and putting entities, aliases, links and suggestions back."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from kgsite.errors import Conflict, Wording
from kgsite.models import audit

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
from .lifecycle import _chunks, _entities_saved
from .merge import _ALIAS_FIELDS, _ENTITY_FIELDS, _LINK_FIELDS, _insert_exact, _roles_set, _unstamp


def _undo_entity_problems(merge: EntityMerge) -> list[str]:
    state = merge.state
    problems: list[str] = []
    if merge.survivor_id is None:
        problems.append(
            Wording(
                gettext_noop(
                    "the survivor '%(name)s' no longer exists "
                    "(deleted or merged into another entity)"
                ),
                {"name": merge.survivor_name},
            )
        )
    back = [row["id"] for row in state["entities"]]
    if Entity.objects.filter(pk__in=back).exists():
        problems.append(Wording(gettext_noop("an entity with a merged-away id exists again")))
    added = set(state["added_aliases"])
    mine = set(state["moved_aliases"]) | added | set(state.get("survivor_aliases", ()))
    for row in state["entities"]:
        other = (
            Entity.objects.filter(name_norm=row["name_norm"], type=row["type"])
            .exclude(pk=row["id"])
            .first()
        )
        if other is not None:
            problems.append(
                Wording(
                    gettext_noop("'%(name)s' (%(type)s) now names another entity (%(id)s)"),
                    {
                        "name": row["canonical_name"],
                        "type": row["type"] or "untyped",
                        "id": other.pk,
                    },
                )
            )
        alias = (
            Alias.objects.filter(alias_norm=row["name_norm"], type=row["type"])
            .exclude(pk__in=mine)
            .select_related("entity")
            .first()
        )
        if alias is not None:
            problems.append(
                Wording(
                    gettext_noop("'%(name)s' is now an alias of '%(other)s'"),
                    {"name": row["canonical_name"], "other": alias.entity.canonical_name},
                )
            )
    for row in state["aliases"]:
        owner = (
            Alias.objects.filter(alias_norm=row["alias_norm"], type=row["type"])
            .exclude(pk__in=mine)
            .select_related("entity")
            .first()
        )
        if owner is not None:
            problems.append(
                Wording(
                    gettext_noop("alias '%(alias)s' now points to '%(name)s'"),
                    {"alias": row["alias"], "name": owner.entity.canonical_name},
                )
            )
    return problems


_CHANGED_SINCE = {
    "subjects": gettext_noop("fact %(id)s's subject changed since the merge"),
    "objects": gettext_noop("fact %(id)s's object changed since the merge"),
}


def _undo_fact_problems(merge: EntityMerge) -> list[str]:
    state = merge.state
    survivor_id = merge.survivor_id
    links = state["links"]
    moved = {pk: fact_id for pk, _entity_id, fact_id in links["moved"]}
    wanted = set(moved.values()) | {row["fact_id"] for row in links["dropped"]}
    wanted |= {fact_id for fact_id, _e in state["subjects"] + state["objects"]}
    present: set[int] = set()
    for chunk in _chunks(sorted(wanted)):
        present |= set(Fact.objects.filter(pk__in=chunk).values_list("pk", flat=True))
    problems = [
        Wording(gettext_noop("fact %(id)s was deleted since the merge"), {"id": pk})
        for pk in sorted(wanted - present)
    ]
    still: dict[int, str] = {}
    for chunk in _chunks(sorted(moved)):
        still.update(EntityFact.objects.filter(pk__in=chunk).values_list("pk", "entity_id"))
    for pk, fact_id in sorted(moved.items()):
        if fact_id in present and still.get(pk) != survivor_id:
            problems.append(
                Wording(
                    gettext_noop("fact %(id)s was unlinked from the survivor since the merge"),
                    {"id": fact_id},
                )
            )
    for key, column in (("subjects", "subject_id"), ("objects", "object_entity_id")):
        ids = sorted(fact_id for fact_id, _e in state[key])
        for chunk in _chunks(ids):
            changed = Fact.objects.filter(pk__in=chunk).exclude(**{column: survivor_id})
            problems += [
                Wording(_CHANGED_SINCE[key], {"id": pk})
                for pk in changed.values_list("pk", flat=True)
            ]
    return problems


def _undo_entities(merge: EntityMerge) -> None:
    state = merge.state
    Alias.objects.filter(pk__in=state["added_aliases"], entity_id=merge.survivor_id).delete()
    _insert_exact(
        Entity,
        [
            Entity(
                # A merge recorded before a field was kept leaves it at its default.
                **{k: row[k] for k in _ENTITY_FIELDS if k in row},
                created_at=_unstamp(row["created_at"]),
                updated_at=_unstamp(row["updated_at"]),
            )
            for row in state["entities"]
        ],
    )
    moved = set(state["moved_aliases"])
    present = set(Alias.objects.filter(pk__in=moved).values_list("pk", flat=True))
    recreate = []
    for row in state["aliases"]:
        if row["id"] in present:
            Alias.objects.filter(pk=row["id"]).update(entity_id=row["entity_id"], type=row["type"])
        else:
            recreate.append(
                Alias(
                    **{k: row[k] for k in _ALIAS_FIELDS},
                    created_at=_unstamp(row["created_at"]),
                    updated_at=_unstamp(row["updated_at"]),
                )
            )
    _insert_exact(Alias, recreate)
    for pk, survivor_id in state["survivor_of"]:
        EntityMerge.objects.filter(pk=pk).update(survivor_id=survivor_id)


def _undo_facts(merge: EntityMerge) -> set[int]:
    state = merge.state
    links = state["links"]
    by_entity: dict[str, list[int]] = {}
    for pk, entity_id, _fact_id in links["moved"]:
        by_entity.setdefault(entity_id, []).append(pk)
    for entity_id, pks in by_entity.items():
        for chunk in _chunks(pks):
            EntityFact.objects.filter(pk__in=chunk).update(entity_id=entity_id)
    _roles_set([(pk, before) for pk, before, _after in links["roles"]])
    dropped = [
        EntityFact(**{k: row[k] for k in _LINK_FIELDS}, created_at=_unstamp(row["created_at"]))
        for row in links["dropped"]
    ]
    _insert_exact(EntityFact, dropped)
    touched = {fact_id for _pk, _e, fact_id in links["moved"]}
    touched |= {row["fact_id"] for row in links["dropped"]}
    for key, column in (("subjects", "subject_id"), ("objects", "object_entity_id")):
        grouped: dict[str, list[int]] = {}
        for fact_id, entity_id in state[key]:
            grouped.setdefault(entity_id, []).append(fact_id)
            touched.add(fact_id)
        for entity_id, fact_ids in grouped.items():
            for chunk in _chunks(fact_ids):
                Fact.objects.filter(pk__in=chunk).update(**{column: entity_id})
    return touched


def _undo_suggestions(merge: EntityMerge) -> None:
    for row in merge.state["suggestions"]:
        DuplicateSuggestion.objects.filter(pk=row["id"]).update(
            entity_a_id=row["entity_a_id"],
            entity_b_id=row["entity_b_id"],
            status=row["status"],
            decided_by_id=row["decided_by_id"],
            decided_at=_unstamp(row["decided_at"]),
        )


def merge_undo_problems(*, merge: EntityMerge) -> list[str]:
    """What changed since ``merge`` that makes restoring it exactly impossible."""
    if merge.undone:
        return [Wording(gettext_noop("merge %(id)s was already undone"), {"id": merge.pk})]
    problems = _undo_entity_problems(merge) + _undo_fact_problems(merge)
    if merge.survivor_id is not None:
        for mover in hooks.merge_movers():
            payload = merge.state.get("movers", {}).get(mover.name)
            if payload is not None:
                problems += mover.problems(merge.survivor_id, merge.duplicate_ids, payload)
    return problems


@transaction.atomic(durable=True)
def entity_merge_undo(*, merge: EntityMerge, actor) -> EntityMerge:
    """Put back exactly what ``merge`` changed: the same entity ids, names, types,
    descriptions, aliases (with their ``manual`` flag), fact links and roles, subject and
    object references, other apps' references (mentions), suggestions; remove the
    redirects. Refused (409, ``problems`` listing each) when something changed since
    in a way that makes exact restoration impossible."""
    merge = EntityMerge.objects.select_for_update().get(pk=merge.pk)
    problems = merge_undo_problems(merge=merge)
    if problems:
        raise Conflict(
            gettext_noop("merge %(id)s cannot be undone exactly: %(problem)s (and %(more)s more)")
            if len(problems) > 1
            else gettext_noop("merge %(id)s cannot be undone exactly: %(problem)s"),
            params={"id": merge.pk, "problem": problems[0], "more": len(problems) - 1},
            field="merge",
            code="undo_refused",
            extra={"problems": problems},
        )
    _undo_entities(merge)
    touched = _undo_facts(merge)
    for mover in hooks.merge_movers():
        payload = merge.state.get("movers", {}).get(mover.name)
        if payload is not None:
            mover.undo(merge.survivor_id, merge.duplicate_ids, payload)
    _undo_suggestions(merge)
    EntityRedirect.objects.filter(merge=merge).delete()
    merge.undone_at = timezone.now()
    merge.undone_by = actor if getattr(actor, "is_authenticated", False) else None
    merge.save(update_fields=["undone_at", "undone_by"])
    audit(
        actor=actor,
        action="entity.merge_undo",
        target=merge,
        payload={"merge": merge.pk, "restored": merge.duplicate_ids},
    )
    _entities_saved([merge.survivor_id, *merge.duplicate_ids])
    for fact_id in sorted(touched):
        hooks.fact_saved_fire(fact_id, "relinked")
    return merge
