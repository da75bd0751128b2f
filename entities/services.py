"""Write services for the entity graph. Every write is atomic; side effects run on commit."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models.expressions import RawSQL

from kgsite.errors import Conflict, InvalidInput, NotFound
from kgsite.models import audit
from kgsite.text import (
    MAX_NAME_LENGTH,
    clean_display,
    has_control_chars,
    invisible_char,
    normalize,
)

from .models import FACT_TEXT_HEAD, Alias, Entity, EntityFact, Fact

# Hooks other apps register (vector index, integrity checks) so this app stays free of
# imports from them. Each receives the fact id and runs after commit.
FACT_SAVED_HOOKS: list[Callable[[int, str], None]] = []
ENTITY_SAVED_HOOKS: list[Callable[[str], None]] = []

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def validate_name(value: object, *, field: str = "name") -> str:
    """Reject empty, over-long and control-character names with a clear error."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string", field=field)
    if has_control_chars(value):
        raise InvalidInput(f"{field} contains control characters", field=field)
    invisible = invisible_char(value)
    if invisible:
        raise InvalidInput(
            f"{field} contains an invisible formatting character ({invisible})", field=field
        )
    display = clean_display(value)
    if not display:
        raise InvalidInput(f"{field} must not be empty", field=field)
    if len(display) > MAX_NAME_LENGTH:
        raise InvalidInput(f"{field} is longer than {MAX_NAME_LENGTH} characters", field=field)
    return display


def normalize_type(value: str | None) -> str:
    """Types are case-free tags: "ProgrammingLanguage" becomes "programming_language"."""
    if not value:
        return ""
    if not isinstance(value, str):
        raise InvalidInput("type must be a string", field="type")
    if has_control_chars(value):
        raise InvalidInput("type contains control characters", field="type")
    invisible = invisible_char(value)
    if invisible:
        raise InvalidInput(
            f"type contains an invisible formatting character ({invisible})", field="type"
        )
    snake = _CAMEL.sub("_", clean_display(value))
    result = normalize(snake).replace(" ", "_").replace("-", "_")
    if len(result) > 64:
        raise InvalidInput("type is longer than 64 characters", field="type")
    return result


def _candidates_payload(entities: Iterable[Entity]) -> list[dict]:
    return [{"id": e.id, "canonical_name": e.canonical_name, "type": e.type} for e in entities]


def _on_entity_saved(entity_id: str) -> None:
    """Hooks run on commit for an entity created, edited (names, aliases, type,
    description) or deleted."""
    for hook in ENTITY_SAVED_HOOKS:
        transaction.on_commit(lambda h=hook: h(entity_id))


def _on_fact_saved(fact_id: int, action: str) -> None:
    """Hooks run on commit; ``action`` is "created", "confirmed", "updated" or "deleted"."""
    for hook in FACT_SAVED_HOOKS:
        transaction.on_commit(lambda h=hook: h(fact_id, action))


def _chunks(values: list, size: int = 500) -> Iterable[list]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


@dataclass(frozen=True)
class EntityPlan:
    """A checked name and type for a new or edited entity."""

    display: str
    norm: str
    type: str
    # The entity's own aliases that the new canonical name makes redundant.
    redundant_aliases: list[str]


def entity_check(
    *,
    entity: Entity | None = None,
    name: str | None = None,
    type: str | None = None,  # noqa: A002
    alias_norms: Iterable[str] | None = None,
) -> EntityPlan:
    """Validate a new (``entity`` None or unsaved) or edited entity against the others.

    Raises InvalidInput for a bad name or type and Conflict when another entity of the
    same type has the name, or (on a type change) when one of the entity's aliases
    (``alias_norms``, default: those stored) is taken in the new type. The admin form
    calls this before saving; ``entity_create`` and ``entity_update`` call it too.
    """
    saved = entity is not None and entity.pk is not None and not entity._state.adding
    if name is None and not saved:
        raise InvalidInput("canonical_name is required", field="canonical_name")
    if name is not None:
        display = validate_name(name, field="canonical_name")
        norm = normalize(display)
    else:
        display, norm = entity.canonical_name, entity.name_norm
    entity_type = normalize_type(type) if type is not None else (entity.type if saved else "")
    others = Entity.objects.exclude(pk=entity.pk) if saved else Entity.objects.all()
    clash = others.filter(name_norm=norm, type=entity_type).first()
    if clash is not None:
        raise Conflict(
            f"another {entity_type or 'untyped'} entity is named '{clash.canonical_name}'",
            field="canonical_name",
            extra={"candidates": _candidates_payload([clash])},
        )
    if not saved and not entity_type:
        # Without a type a name stands for the one entity of that name, whatever its type.
        found = list(others.filter(name_norm=norm)[:10])
        if found:
            raise Conflict(
                f"'{display}' already names an entity of type '{found[0].type}'; "
                "give a type or edit that entity",
                field="type",
                extra={"candidates": _candidates_payload(found)},
            )
    redundant: list[str] = []
    if saved:
        stored = list(entity.aliases.values_list("alias_norm", "alias"))
        redundant = [alias for alias_norm, alias in stored if alias_norm == norm]
        norms = {n for n, _a in stored} if alias_norms is None else set(alias_norms)
        norms.discard(norm)
        if entity_type != entity.type and norms:
            _check_aliases_free(entity=entity, norms=sorted(norms), entity_type=entity_type)
    return EntityPlan(display=display, norm=norm, type=entity_type, redundant_aliases=redundant)


def _check_aliases_free(*, entity: Entity, norms: list[str], entity_type: str) -> None:
    """An entity moving to ``entity_type`` takes its aliases along: none may be taken."""
    label = entity_type or "untyped"
    for chunk in _chunks(norms):
        taken = (
            Alias.objects.select_related("entity")
            .filter(alias_norm__in=chunk, type=entity_type)
            .exclude(entity_id=entity.pk)
            .order_by("alias_norm")
            .first()
        )
        if taken is not None:
            raise Conflict(
                f"alias '{taken.alias}' already points to '{taken.entity.canonical_name}' "
                f"among {label} entities",
                field="type",
                extra={"candidates": _candidates_payload([taken.entity])},
            )
        owner = (
            Entity.objects.filter(name_norm__in=chunk, type=entity_type)
            .exclude(pk=entity.pk)
            .order_by("name_norm")
            .first()
        )
        if owner is not None:
            raise Conflict(
                f"alias '{owner.canonical_name}' is the canonical name of another {label} entity",
                field="type",
                extra={"candidates": _candidates_payload([owner])},
            )


@transaction.atomic
def entity_store(
    *,
    name: str,
    type: str | None = None,  # noqa: A002 - the product's own field name
    description: str = "",
    actor=None,
) -> tuple[Entity, bool]:
    """Return the entity with this normalised name and type, creating it if absent.

    Without a type (None or empty), the one existing entity of that name is reused
    whatever its type; several are ambiguous (409); none creates an untyped entity.
    Race-safe: insert, and on IntegrityError re-select.
    """
    display = validate_name(name)
    norm = normalize(display)
    entity_type = normalize_type(type) if type is not None else ""

    def select() -> Entity | None:
        qs = Entity.objects.filter(name_norm=norm)
        if entity_type:
            return qs.filter(type=entity_type).first()
        found = list(qs[:10])
        if len(found) > 1:
            raise Conflict(
                f"'{display}' names several entities; give a type",
                field="type",
                code="ambiguous",
                extra={"candidates": _candidates_payload(found)},
            )
        return found[0] if found else None

    for _attempt in range(3):
        existing = select()
        if existing is not None:
            return existing, False
        try:
            with transaction.atomic():
                entity = Entity.objects.create(
                    canonical_name=display,
                    name_norm=norm,
                    type=entity_type,
                    description=description,
                )
        except IntegrityError:
            continue  # another writer won the race: re-select
        if actor is not None:
            audit(actor=actor, action="entity.create", target=entity, payload={"name": display})
        _on_entity_saved(entity.id)
        return entity, True
    raise Conflict(f"could not store '{display}'", field="name")  # pragma: no cover


@transaction.atomic
def entity_create(
    *,
    name: str,
    type: str | None = None,  # noqa: A002
    description: str = "",
    actor,
) -> Entity:
    """A curator creates an entity by hand (the admin): an existing one is a conflict,
    never silently reused."""
    plan = entity_check(name=name, type=type)
    try:
        with transaction.atomic():
            entity = Entity.objects.create(
                canonical_name=plan.display,
                name_norm=plan.norm,
                type=plan.type,
                description=description,
                curated=True,
            )
    except IntegrityError:
        raise Conflict(
            f"'{plan.display}' was just created by someone else", field="canonical_name"
        ) from None
    audit(
        actor=actor,
        action="entity.create",
        target=entity,
        payload={"name": plan.display, "type": plan.type},
    )
    _on_entity_saved(entity.id)
    return entity


@transaction.atomic
def entity_update(
    *,
    entity: Entity,
    actor,
    canonical_name: str | None = None,
    type: str | None = None,  # noqa: A002
    description: str | None = None,
) -> Entity:
    """Rename, retype or describe an entity; its aliases follow it to a new type.

    Aliases equal to the new canonical name are removed (they would only repeat it).
    """
    before = {
        "canonical_name": entity.canonical_name,
        "type": entity.type,
        "description": entity.description,
    }
    plan = entity_check(entity=entity, name=canonical_name, type=type)
    type_changed = plan.type != entity.type
    entity.canonical_name, entity.name_norm, entity.type = plan.display, plan.norm, plan.type
    if description is not None:
        entity.description = description
    entity.curated = True
    entity.candidate = False  # a curator's edit confirms what extraction proposed
    try:
        with transaction.atomic():
            if plan.redundant_aliases:
                Alias.objects.filter(entity=entity, alias_norm=plan.norm).delete()
            entity.save()
            if type_changed:
                entity.aliases.update(type=entity.type)
    except IntegrityError:
        # A concurrent writer took the name or an alias in between the check and the save.
        raise Conflict(
            f"'{plan.display}' clashes with another {plan.type or 'untyped'} entity",
            field="type" if type_changed else "canonical_name",
        ) from None
    after = {
        "canonical_name": entity.canonical_name,
        "type": entity.type,
        "description": entity.description,
    }
    payload: dict = {"before": before, "after": after}
    if plan.redundant_aliases:
        payload["removed_aliases"] = plan.redundant_aliases
    audit(actor=actor, action="entity.update", target=entity, payload=payload)
    _on_entity_saved(entity.id)
    return entity


@transaction.atomic
def entity_delete(*, entity: Entity, actor) -> None:
    """Delete an entity and its aliases; its facts stay (links and triples point nowhere).

    The audit row keeps what is needed to recreate it.
    """
    payload = {
        "canonical_name": entity.canonical_name,
        "type": entity.type,
        "description": entity.description,
        "aliases": sorted(entity.aliases.values_list("alias", flat=True)),
        "facts": list(
            EntityFact.objects.filter(entity=entity)
            .order_by("fact_id")
            .values_list("fact_id", "role")
        ),
    }
    entity_id = entity.pk
    audit(actor=actor, action="entity.delete", target=entity, payload=payload)
    entity.delete()
    entity.pk = entity_id  # Django clears it; the admin's log message still names it
    _on_entity_saved(entity_id)


def alias_check(
    *,
    entity: Entity,
    alias: str,
    entity_type: str | None = None,
    name_norm: str | None = None,
) -> tuple[str, str, Alias | None]:
    """Validate an alias for ``entity`` (whose type and normalised name may be about to
    change: pass them). Returns (display, norm, the stored alias row if it is already
    this entity's). Raises InvalidInput or Conflict like ``alias_add``."""
    display = validate_name(alias, field="alias")
    norm = normalize(display)
    entity_type = entity.type if entity_type is None else entity_type
    name_norm = entity.name_norm if name_norm is None else name_norm
    if norm == name_norm:
        raise InvalidInput("alias is the entity's canonical name", field="alias")
    owners = Entity.objects.filter(name_norm=norm, type=entity_type)
    if entity.pk is not None:
        owners = owners.exclude(pk=entity.pk)
    owner = owners.first()
    if owner is not None:
        raise Conflict(
            f"'{display}' is the canonical name of another entity",
            field="alias",
            extra={"candidates": _candidates_payload([owner])},
        )
    found = Alias.objects.select_related("entity").filter(alias_norm=norm, type=entity_type).first()
    if found is not None and found.entity_id != entity.pk:
        raise Conflict(
            f"alias '{display}' already points to '{found.entity.canonical_name}'",
            field="alias",
            extra={"candidates": _candidates_payload([found.entity])},
        )
    return display, norm, found


@transaction.atomic
def alias_add(*, entity: Entity, alias: str, actor=None, manual: bool = True) -> tuple[Alias, bool]:
    """Point a normalised alias at an entity; one already pointing elsewhere is a 409."""
    display, norm, found = alias_check(entity=entity, alias=alias)
    if found is not None:
        return found, False
    try:
        with transaction.atomic():
            created = Alias.objects.create(
                entity=entity, alias=display, alias_norm=norm, type=entity.type, manual=manual
            )
    except IntegrityError:
        # Another writer added the same alias meanwhile: ours if it points here.
        _display, _norm, found = alias_check(entity=entity, alias=alias)
        if found is None:  # pragma: no cover - the row vanished again
            raise Conflict(f"could not add alias '{display}'", field="alias") from None
        return found, False
    if actor is not None:
        audit(actor=actor, action="alias.add", target=entity, payload={"alias": display})
    _on_entity_saved(entity.id)
    return created, True


@transaction.atomic
def alias_remove(*, entity: Entity, alias: str, actor=None) -> None:
    # Not validate_name: an alias stored before a validation rule existed stays removable.
    norm = normalize(alias) if isinstance(alias, str) else ""
    if not norm:
        raise InvalidInput("alias must not be empty", field="alias")
    rows = list(
        Alias.objects.filter(entity=entity, alias_norm=norm).values_list("alias", flat=True)
    )
    if not rows:
        raise NotFound(f"'{entity.canonical_name}' has no alias '{alias}'", field="alias")
    Alias.objects.filter(entity=entity, alias_norm=norm).delete()
    if actor is not None:
        audit(actor=actor, action="alias.remove", target=entity, payload={"alias": rows[0]})
    _on_entity_saved(entity.id)


@transaction.atomic
def fact_link(
    *, fact: Fact, entity: Entity, role: str = EntityFact.Role.MENTION
) -> tuple[EntityFact, bool]:
    """Link a fact to an entity; linking twice stores one row."""
    try:
        with transaction.atomic():
            return EntityFact.objects.get_or_create(
                fact=fact, entity=entity, defaults={"role": role}
            )
    except IntegrityError:
        return EntityFact.objects.get(fact=fact, entity=entity), False


@dataclass(frozen=True)
class FactStoreResult:
    action: str  # "created" | "confirmed"
    fact: Fact


def _validate_fact_text(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("text must not be empty", field="text")
    if has_control_chars(text):
        raise InvalidInput("text contains control characters", field="text")
    if len(text) > 10_000:
        raise InvalidInput("text is longer than 10000 characters", field="text")
    return clean_display(text)


def _validate_confidence(confidence: object) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not 0 <= confidence <= 1
    ):
        raise InvalidInput("confidence must be between 0 and 1", field="confidence")
    return float(confidence)


def _validate_period(valid_from: datetime | None, valid_to: datetime | None) -> None:
    if valid_from and valid_to and valid_to < valid_from:
        raise InvalidInput("valid_to is before valid_from", field="valid_to")


def _limited(value: object, field: str, limit: int) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string", field=field)
    if has_control_chars(value):
        raise InvalidInput(f"{field} contains control characters", field=field)
    value = value.strip()
    if len(value) > limit:
        raise InvalidInput(f"{field} is longer than {limit} characters", field=field)
    return value


def _fact_column(value: object, field: str) -> str:
    """A fact's short text field, checked against its column: too long is an error,
    never cut."""
    return _limited(value, field, Fact._meta.get_field(field).max_length)


def fact_check(
    *,
    text: str,
    subject: Entity | None = None,
    object_entity: Entity | None = None,
    object_value: str = "",
    confidence: float = 1.0,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
) -> str:
    """Validate a new fact (the admin form calls it before saving); returns the text's
    display form. Raises InvalidInput naming the field."""
    display = _validate_fact_text(text)
    _validate_confidence(confidence)
    _validate_period(valid_from, valid_to)
    if (object_entity is not None or object_value) and subject is None:
        raise InvalidInput("a triple needs a subject", field="subject")
    return display


# Finds an existing fact that says the same thing; the integrity app widens it from
# "same normalised text" to near-duplicates by similarity.
DuplicateFinder = Callable[[str, str], Fact | None]


def _same_text(text_norm: str, *, status: str | None = None) -> list[Fact]:
    """Facts whose normalised text is ``text_norm``, found through the index on its head.

    The head is written out as in the index (literal length, bare column name): SQLite
    only uses an expression index for the very same expression, and not at all when the
    whole column is compared too, so the full text is compared here.
    """
    sql = "LEFT(text_norm, %d)" if connection.vendor == "postgresql" else "SUBSTR(text_norm, 1, %d)"
    qs = Fact.objects.alias(head=RawSQL(sql % FACT_TEXT_HEAD, [])).filter(
        head=text_norm[:FACT_TEXT_HEAD]
    )
    if status is not None:
        qs = qs.filter(status=status)
    return [fact for fact in qs.order_by("-created_at", "-id") if fact.text_norm == text_norm]


def _exact_duplicate(text: str, text_norm: str) -> Fact | None:
    found = _same_text(text_norm, status=Fact.Status.ACTIVE)
    return found[0] if found else None


DUPLICATE_FINDERS: list[DuplicateFinder] = [_exact_duplicate]


@transaction.atomic
def fact_confirm(*, fact: Fact, confidence: float | None = None) -> Fact:
    """Another source said the same: count it and raise confidence toward 1."""
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    fact.confirmations += 1
    incoming = 1.0 if confidence is None else confidence
    # Noisy-OR of independent confirmations, never above 1.
    fact.confidence = round(min(1.0, 1 - (1 - fact.confidence) * (1 - 0.5 * incoming)), 6)
    fact.save(update_fields=["confirmations", "confidence", "updated_at"])
    return fact


def _link_all(
    fact: Fact, subject: Entity | None, object_entity: Entity | None, entities: Iterable[Entity]
) -> None:
    if subject is not None:
        fact_link(fact=fact, entity=subject, role=EntityFact.Role.SUBJECT)
    if object_entity is not None:
        fact_link(fact=fact, entity=object_entity, role=EntityFact.Role.OBJECT)
    for entity in entities:
        fact_link(fact=fact, entity=entity)


@transaction.atomic
def fact_store(
    *,
    text: str,
    subject: Entity | None = None,
    predicate: str = "",
    object_entity: Entity | None = None,
    object_value: str = "",
    entities: Iterable[Entity] = (),
    confidence: float = 1.0,
    source: str = "",
    client: str = "",
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    actor=None,
) -> FactStoreResult:
    """Store a proposition, or confirm the existing one that says the same thing.

    A confirmation also links the entities this call names to the existing fact.
    Raises InvalidInput naming the field, a value too long for its column included
    (never cut), before anything is written.
    """
    display = fact_check(
        text=text,
        subject=subject,
        object_entity=object_entity,
        object_value=object_value,
        confidence=confidence,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    predicate = _fact_column(predicate, "predicate")
    object_value = _fact_column(object_value, "object_value")
    source = _fact_column(source, "source")
    client = _fact_column(client, "client")
    norm = normalize(display)
    for finder in DUPLICATE_FINDERS:
        duplicate = finder(display, norm)
        if duplicate is not None:
            fact = fact_confirm(fact=duplicate, confidence=confidence)
            _link_all(fact, subject, object_entity, entities)
            return FactStoreResult("confirmed", fact)
    fact = Fact.objects.create(
        text=display,
        text_norm=norm,
        subject=subject,
        predicate=predicate,
        object_entity=object_entity,
        object_value=object_value,
        confidence=float(confidence),
        source=source,
        client=client,
        created_by=actor if getattr(actor, "is_authenticated", False) else None,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    _link_all(fact, subject, object_entity, entities)
    _on_fact_saved(fact.id, "created")
    return FactStoreResult("created", fact)


FACT_EDITABLE = (
    "text",
    "predicate",
    "object_value",
    "confidence",
    "source",
    "status",
    "valid_from",
    "valid_to",
)


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
    given = fields
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
    _validate_period(new.get("valid_from", fact.valid_from), new.get("valid_to", fact.valid_to))
    if new.get("object_value") and fact.subject_id is None:
        raise InvalidInput("a triple needs a subject", field="object_value")
    changed = {k: v for k, v in new.items() if getattr(fact, k) != v}
    text_norm = changed.get("text_norm", fact.text_norm)
    status = changed.get("status", fact.status)
    if ("text_norm" in changed or "status" in changed) and status == Fact.Status.ACTIVE:
        twins = [f for f in _same_text(text_norm, status=Fact.Status.ACTIVE) if f.pk != fact.pk]
        twin = twins[0] if twins else None
        if twin is not None:
            raise Conflict(
                f"fact {twin.pk} already says this; confirm or retract it instead",
                field="text",
                extra={"fact": twin.pk},
            )
    return changed


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
    _on_fact_saved(fact.id, "updated")
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
    _on_fact_saved(fact_id, "deleted")


@transaction.atomic
def gazetteer_load(*, groups: list[tuple[tuple[str, str], list[str]]]) -> dict[str, int]:
    """Load gazetteer groups ((key, type), surface forms); idempotent.

    The first surface form becomes the canonical name, the others aliases.
    """
    stats = {"entities_created": 0, "aliases_created": 0, "unchanged": 0}
    for (_key, entity_type), surfaces in groups:
        entity, created = entity_store(name=surfaces[0], type=entity_type)
        stats["entities_created" if created else "unchanged"] += 1
        for surface in surfaces[1:]:
            if normalize(surface) == entity.name_norm:
                continue
            _alias, alias_created = alias_add(entity=entity, alias=surface)
            stats["aliases_created" if alias_created else "unchanged"] += 1
    return stats
