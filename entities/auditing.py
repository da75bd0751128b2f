"""What the entity graph tells the audit log: its actions in words, the names and pages
of what they touched, and how each undoable action is undone (``kgsite.pages``)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from kgsite.converters import parse_id
from kgsite.models import AuditEntry
from kgsite.pages import UndoAction, audit_action, audit_target, audit_target_ids, undo_action

from . import curation, services
from .models import DuplicateSuggestion, Entity, EntityMerge, Fact
from .scopes import page_scopes

LABELS = {
    "entity.create": _("created"),
    "entity.update": _("edited"),
    "entity.delete": _("deleted"),
    "entity.merge": _("merged into"),
    "entity.merge_undo": _("undid the merge into"),
    "entity.reject": _("rejected candidate"),
    "entity.reject_undo": _("brought back rejected"),
    "entity.candidate_confirm": _("accepted candidates"),
    "entity.bulk_create": _("created from a book"),
    "entity.gc": _("removed unused entities"),
    "alias.add": _("added an alias to"),
    "alias.remove": _("removed an alias from"),
    "fact.create": _("wrote the fact"),
    "fact.update": _("edited the fact"),
    "fact.delete": _("deleted the fact"),
    "fact.supersede": _("replaced the fact"),
    "fact.supersede_undo": _("undid the replacement of"),
    "fact.link": _("linked entities to the fact"),
    "fact.confirmation_undo": _("kept apart a confirmation of"),
    "entity_kg.import": _("imported entities from a graph file"),
    "episode.create": _("recorded an episode"),
    "duplicate.dismiss": _("dismissed the duplicate pair"),
    "duplicate.undismiss": _("reopened the duplicate pair"),
}


def _payload_name(entry: AuditEntry) -> str:
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    for key in ("canonical_name", "name", "survivor_name"):
        if payload.get(key):
            return str(payload[key])
    names = payload.get("names") or [r.get("canonical_name") for r in payload.get("removed", [])]
    if not names and payload.get("ids"):
        names = list(
            Entity.objects.filter(pk__in=payload["ids"][:5]).values_list(
                "canonical_name", flat=True
            )
        )
    shown = ", ".join(str(n) for n in names[:5] if n)
    count = len(payload.get("ids") or names)
    return shown + (f" (+{count - 5})" if count > 5 else "")


def describe_entities(entries: list[AuditEntry]) -> dict[int, tuple[str, str]]:
    found = Entity.objects.in_bulk([e.target_id for e in entries if e.target_id])
    out = {}
    for entry in entries:
        entity = found.get(entry.target_id)
        if entity is not None:
            out[entry.pk] = (entity.canonical_name, reverse("entities:detail", args=[entity.pk]))
        else:
            out[entry.pk] = (_payload_name(entry), "")
    return out


def describe_facts(entries: list[AuditEntry]) -> dict[int, tuple[str, str]]:
    ids = audit_target_ids(entries)
    found = Fact.objects.in_bulk(ids)
    out = {}
    for entry in entries:
        fact = found.get(parse_id(entry.target_id))
        if fact is not None:
            text = Truncator(fact.text).chars(70)
            out[entry.pk] = (text, reverse("entities:fact", args=[fact.pk]))
        else:
            out[entry.pk] = (Truncator(entry.payload.get("text", "")).chars(70), "")
    return out


def hidden_facts(entries: list[AuditEntry], reader) -> set[int]:
    """Rows about facts of a project the reader does not see (pages: readers see global
    memory only)."""
    scopes = page_scopes(reader)
    if scopes.all_scopes:
        return set()
    ids = audit_target_ids(entries)
    unseen = set(Fact.objects.filter(pk__in=ids).exclude(scopes.q()).values_list("pk", flat=True))
    return {e.pk for e in entries if parse_id(e.target_id) in unseen}


def describe_merges(entries: list[AuditEntry]) -> dict[int, tuple[str, str]]:
    found = EntityMerge.objects.in_bulk(audit_target_ids(entries))
    out = {}
    for entry in entries:
        merge = found.get(parse_id(entry.target_id))
        if merge is not None:
            url = reverse("entities:detail", args=[merge.survivor_id]) if merge.survivor_id else ""
            out[entry.pk] = (merge.survivor_name, url)
    return out


def describe_suggestions(entries: list[AuditEntry]) -> dict[int, tuple[str, str]]:
    ids = audit_target_ids(entries)
    found = DuplicateSuggestion.objects.select_related("entity_a", "entity_b").in_bulk(ids)
    out = {}
    for entry in entries:
        pair = found.get(parse_id(entry.target_id))
        if pair is not None:
            names = [e.canonical_name for e in (pair.entity_a, pair.entity_b) if e is not None]
            out[entry.pk] = (" / ".join(names), reverse("entities:duplicates"))
    return out


def describe_entries(entries: list[AuditEntry]) -> dict[int, tuple[str, str]]:
    """Rows about another audit row (undoing a rejection): the names it brought back."""
    return {entry.pk: (_payload_name(entry), "") for entry in entries}


def _alias_restore(entry: AuditEntry, actor) -> None:
    entity = Entity.objects.get(pk=entry.target_id)
    services.alias_add(entity=entity, alias=entry.payload["alias"], actor=actor)


UNDOS = [
    UndoAction(
        "entity.update",
        lambda e, a: curation.entity_update_revert(entry=e, actor=a),
        lambda e: curation.entity_update_revertible(entry=e),
    ),
    UndoAction(
        "fact.update",
        lambda e, a: curation.fact_update_revert(entry=e, actor=a),
        lambda e: curation.fact_update_revertible(entry=e),
    ),
    UndoAction(
        "fact.create",
        lambda e, a: curation.fact_create_undo(entry=e, actor=a),
        lambda e: curation.fact_create_undoable(entry=e),
    ),
    UndoAction(
        "fact.supersede",
        lambda e, a: curation.fact_supersede_undo(entry=e, actor=a),
        lambda e: curation.fact_supersede_undoable(entry=e),
    ),
    UndoAction("alias.remove", _alias_restore, lambda e: curation.alias_restorable(entry=e)),
]


def audit_register() -> None:
    """Called from ``EntitiesConfig.ready()``."""
    for action, label in LABELS.items():
        audit_action(action, label)
    audit_target("entities.entity", describe_entities)
    audit_target("entities.fact", describe_facts, hidden=hidden_facts)
    audit_target("entities.entitymerge", describe_merges)
    audit_target("entities.duplicatesuggestion", describe_suggestions)
    audit_target("kgsite.auditentry", describe_entries)
    for undo in UNDOS:
        undo_action(undo)
