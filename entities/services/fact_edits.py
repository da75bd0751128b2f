"""Facts edited by curators: changes, update, status, deletion."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from kgsite.errors import Conflict, InvalidInput
from kgsite.models import audit
from kgsite.text import normalize

from .. import hooks
from ..models import (
    EntityFact,
    Fact,
)
from .facts import (
    _fact_column,
    _same_text,
    _validate_confidence,
    _validate_fact_text,
    _validate_period,
    fact_kind_check,
    fact_link,
    predicate_words_check,
    triple_check,
)

FACT_EDITABLE = (
    "text",
    "predicate",
    "object_value",
    "confidence",
    "source",
    "status",
    "valid_from",
    "valid_to",
    "kind",
    "goal_status",
    "resolved_by",
    "domain",
)


def _fact_edits(given: dict[str, Any]) -> dict[str, Any]:
    """Each given editable field, checked and in its stored form."""
    new: dict[str, Any] = {}
    if "text" in given:
        new["text"] = _validate_fact_text(given["text"])
        new["text_norm"] = normalize(new["text"])
    for field in ("predicate", "object_value", "source"):
        if field in given:
            new[field] = _fact_column(given[field], field)
    if "confidence" in given:
        new["confidence"] = _validate_confidence(given["confidence"])
    if "status" in given:
        if given["status"] not in Fact.Status.values:
            raise InvalidInput(
                f"status must be one of {', '.join(Fact.Status.values)}", field="status"
            )
        new["status"] = str(given["status"])
    for field in ("valid_from", "valid_to"):
        if field in given:
            if given[field] is not None and not isinstance(given[field], datetime):
                raise InvalidInput(f"{field} must be a date and time", field=field)
            new[field] = given[field]
    return new


def fact_changes(*, fact: Fact, **fields: Any) -> dict[str, Any]:
    """Validate edits of a stored fact; returns the fields whose value changes.

    Fields left out keep their value; ``valid_from``/``valid_to`` may be set to None.
    Raises InvalidInput naming the field, or Conflict when the edit would make the fact
    repeat another active fact word for word.
    """
    unknown = set(fields) - set(FACT_EDITABLE)
    if unknown:
        field = sorted(unknown)[0]
        raise InvalidInput(f"{field} cannot be edited", field=field)
    new = _fact_edits(fields)
    _validate_period(new.get("valid_from", fact.valid_from), new.get("valid_to", fact.valid_to))
    new.update(_kind_changes(fact, fields))
    # Only a triple this edit changes is checked: the page sends every field back, and a
    # fact stored before the rules keeps its other edits.
    edited = [
        f for f in ("predicate", "object_value") if new.get(f, "") not in ("", getattr(fact, f))
    ]
    if "predicate" in edited:
        predicate_words_check(new["predicate"])
    if edited:
        triple_check(
            subject=fact.subject_id,
            predicate=new.get("predicate", fact.predicate),
            object_entity=fact.object_entity_id,
            object_value=new.get("object_value", fact.object_value),
            blame=edited[-1],
        )
    changed = {k: v for k, v in new.items() if getattr(fact, k) != v}
    _check_no_twin(fact, changed)
    return changed


def _check_no_twin(fact: Fact, changed: dict[str, Any]) -> None:
    """An edit must not make the fact repeat another active fact of its scope and kind."""
    text_norm = changed.get("text_norm", fact.text_norm)
    status = changed.get("status", fact.status)
    # A kind change too: a decision edited into a mistake that memory already holds is a twin.
    touched = {"text_norm", "status", "kind"} & set(changed)
    if not (touched and status == Fact.Status.ACTIVE):
        return
    kind = changed.get("kind", fact.kind)
    twins = [
        f
        for f in _same_text(text_norm, status=Fact.Status.ACTIVE)
        if f.pk != fact.pk and f.scope == fact.scope and f.kind == kind
    ]
    if twins:
        raise Conflict(
            gettext_noop("fact %(id)s already says this; confirm or retract it instead"),
            params={"id": twins[0].pk},
            field="text",
            extra={"fact": twins[0].pk},
        )


def _kind_changes(fact: Fact, given: dict[str, Any]) -> dict[str, Any]:
    """Kind-specific edits, checked as a whole (an unknown resolved: kind and resolution
    together; a goal done). A kind change clears the fields the new kind has not."""
    names = ("kind", "goal_status", "resolved_by", "domain")
    if not any(name in given for name in names):
        return {}
    kind = given.get("kind", fact.kind)
    keep = kind == fact.kind
    checked = fact_kind_check(
        kind=kind,
        goal_status=given.get("goal_status", fact.goal_status if keep else ""),
        resolved_by=given.get("resolved_by", fact.resolved_by if keep else ""),
        domain=given.get("domain", fact.domain if keep else ""),
    )
    return {name: getattr(checked, name) for name in names}


def _jsonable(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


@transaction.atomic
def fact_update(*, fact: Fact, actor, **fields: Any) -> Fact:
    """A curator edits a fact (text, triple literal, confidence, source, status,
    validity). The vector index follows on commit; an audit row keeps before/after."""
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    changed = fact_changes(fact=fact, **fields)
    if not changed:
        return fact
    shown = [k for k in changed if k != "text_norm"]
    before = {k: _jsonable(getattr(fact, k)) for k in shown}
    for key, value in changed.items():
        setattr(fact, key, value)
    fact.save(update_fields=[*changed, "updated_at"])
    audit(
        actor=actor,
        action="fact.update",
        target=fact,
        payload={"before": before, "after": {k: _jsonable(changed[k]) for k in shown}},
    )
    hooks.fact_saved_fire(fact.id, "updated")
    return fact


@transaction.atomic
def fact_delete(*, fact: Fact, actor) -> None:
    """Delete a fact for good (the admin only; the API retracts instead). The audit row
    keeps its text, triple and links."""
    fact_id = fact.pk
    payload = {
        "text": fact.text,
        "status": fact.status,
        "source": fact.source,
        "subject": fact.subject_id,
        "predicate": fact.predicate,
        "object_entity": fact.object_entity_id,
        "object_value": fact.object_value,
        "confidence": fact.confidence,
        "entities": list(
            EntityFact.objects.filter(fact_id=fact_id)
            .order_by("entity_id")
            .values_list("entity_id", "role")
        ),
    }
    audit(actor=actor, action="fact.delete", target=fact, payload=payload)
    fact.delete()
    fact.pk = fact_id
    hooks.fact_saved_fire(fact_id, "deleted")


def fact_status_set(*, fact: Fact, status: str, valid_to: datetime | None) -> Fact:
    """Change a fact's status and end of validity for another service that audits its
    own action (integrity's resolutions); hooks learn it as an "updated" save. Making
    a fact active again is refused when another active fact says the same meanwhile."""
    if status not in Fact.Status.values:
        raise InvalidInput(f"unknown status '{status}'", field="status")
    if status != fact.status:
        _check_no_twin(fact, {"status": status})
    fact.status = status
    fact.valid_to = valid_to
    fact.save(update_fields=["status", "valid_to", "updated_at"])
    hooks.fact_saved_fire(fact.pk, "updated")
    return fact


@transaction.atomic
def fact_entities_link(*, fact: Fact, entities: list, role: str, actor) -> list[tuple[Any, bool]]:
    """Link a stored fact to more entities after the fact: all of them or none, each
    once, and one audit row naming the links made (none when nothing changed)."""
    if role not in EntityFact.Role.values:
        raise InvalidInput(f"role must be one of {', '.join(EntityFact.Role.values)}", field="role")
    links: dict[str, tuple[Any, bool]] = {}
    for entity in entities:
        if entity.pk not in links:
            links[entity.pk] = (entity, fact_link(fact=fact, entity=entity, role=role)[1])
    made = [pk for pk, (_entity, new) in links.items() if new]
    if made:
        audit(
            actor=actor, action="fact.link", target=fact, payload={"entities": made, "role": role}
        )
    return list(links.values())
