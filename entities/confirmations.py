"""The evidence of confirmations: what ``fact_store`` folded into an existing fact, and
how a curator takes a wrong confirmation back (issue 27: a duplicate verdict must never
lose a fact).

A confirmation keeps the swallowed statement (text, source, client, time, the entities
it named) on a ``FactConfirmation`` row. Undoing it stores that statement as a fact of
its own, lowers the old fact's confirmation count and confidence back, removes the
entity links the confirmation added, and writes an audit row.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_noop

from kgsite.errors import Conflict, NotFound
from kgsite.models import audit
from kgsite.text import normalize

from . import hooks
from .models import Entity, EntityFact, Fact, FactConfirmation

_AUDIT_UNDO = "fact.confirmation_undo"


def fact_confirmations(*, fact: Fact) -> QuerySet[FactConfirmation]:
    """The statements folded into ``fact``, newest first (undone ones included)."""
    return FactConfirmation.objects.filter(fact=fact).order_by("-created_at", "-id")


def fact_confirmation_get(*, confirmation_id: int) -> FactConfirmation:
    try:
        return FactConfirmation.objects.select_related("fact").get(pk=confirmation_id)
    except FactConfirmation.DoesNotExist:
        raise NotFound(f"no confirmation with id {confirmation_id}", field="id") from None


def _confidence_without(current: float, incoming: float) -> float:
    """The confidence before one noisy-OR confirmation of strength ``incoming``.

    Confirmations multiply (1 - confidence) by (1 - incoming / 2) in any order, so one
    is taken back exactly whatever came after it."""
    remaining = 1 - 0.5 * incoming
    if remaining <= 0:
        return current
    return round(min(1.0, max(0.0, 1 - (1 - current) / remaining)), 6)


def _entity(entity_id: str | None) -> Entity | None:
    return Entity.objects.filter(pk=entity_id).first() if entity_id else None


def _restore_fact(confirmation: FactConfirmation, old: Fact) -> Fact:
    details = confirmation.details or {}
    fact = Fact.objects.create(
        text=confirmation.text,
        text_norm=normalize(confirmation.text),
        subject=_entity(details.get("subject")),
        predicate=details.get("predicate", ""),
        object_entity=_entity(details.get("object_entity")),
        object_value=details.get("object_value", ""),
        confidence=confirmation.confidence,
        source=confirmation.source,
        client=confirmation.client,
        created_by=confirmation.created_by,
        valid_from=parse_datetime(details["valid_from"]) if details.get("valid_from") else None,
        valid_to=parse_datetime(details["valid_to"]) if details.get("valid_to") else None,
        kind=old.kind,
        goal_status=details.get("goal_status", "") if old.kind == Fact.Kind.GOAL else "",
        resolved_by=details.get("resolved_by", ""),
        domain=details.get("domain", ""),
        scope=old.scope,
        ai_id=confirmation.ai_id,
        session_id=confirmation.session_id,
    )
    roles = [(details.get("subject"), EntityFact.Role.SUBJECT)]
    roles.append((details.get("object_entity"), EntityFact.Role.OBJECT))
    roles += [(e, EntityFact.Role.MENTION) for e in details.get("entities", [])]
    existing = set(
        Entity.objects.filter(pk__in=[e for e, _r in roles if e]).values_list("pk", flat=True)
    )
    for entity_id, role in roles:
        if entity_id in existing:
            EntityFact.objects.get_or_create(
                fact=fact, entity_id=entity_id, defaults={"role": role}
            )
    return fact


@transaction.atomic
def fact_confirmation_undo(*, confirmation_id: int, actor) -> Fact:
    """Store the statement a confirmation swallowed as its own fact; returns it.

    The old fact loses one confirmation (never below one), the confidence that
    confirmation added, and the entity links only that confirmation made. Refused
    (409) when already undone.
    """
    try:
        confirmation = FactConfirmation.objects.select_for_update().get(pk=confirmation_id)
    except FactConfirmation.DoesNotExist:
        raise NotFound(f"no confirmation with id {confirmation_id}", field="id") from None
    if confirmation.undone_at is not None:
        raise Conflict(
            gettext_noop("confirmation %(id)s was already undone (the statement is fact %(fact)s)"),
            params={"id": confirmation_id, "fact": confirmation.restored_fact_id},
            field="id",
            code="already_undone",
        )
    old = Fact.objects.select_for_update().get(pk=confirmation.fact_id)
    before = {"confirmations": old.confirmations, "confidence": old.confidence}
    restored = _restore_fact(confirmation, old)
    removed = []
    for entity_id, role in confirmation.links_added or []:
        deleted, _ = EntityFact.objects.filter(fact=old, entity_id=entity_id, role=role).delete()
        if deleted:
            removed.append([entity_id, role])
    old.confirmations = max(1, old.confirmations - 1)
    old.confidence = _confidence_without(old.confidence, confirmation.confidence)
    old.save(update_fields=["confirmations", "confidence", "updated_at"])
    confirmation.undone_at = timezone.now()
    confirmation.restored_fact = restored
    confirmation.save(update_fields=["undone_at", "restored_fact"])
    audit(
        actor=actor,
        action=_AUDIT_UNDO,
        target=old,
        payload={
            "confirmation": confirmation.pk,
            "text": confirmation.text,
            "restored_fact": restored.pk,
            "before": before,
            "after": {"confirmations": old.confirmations, "confidence": old.confidence},
            "links_removed": removed,
        },
    )
    hooks.fact_saved_fire(restored.pk, "created")
    hooks.fact_saved_fire(old.pk, "updated")
    return restored
