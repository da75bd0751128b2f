"""Write services for the entity graph. Every write is atomic; side effects run on commit."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction

from kgsite.errors import Conflict, InvalidInput, NotFound
from kgsite.models import audit
from kgsite.text import MAX_NAME_LENGTH, clean_display, has_control_chars, normalize

from .models import Alias, Entity, EntityFact, Fact

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
    if has_control_chars(value):
        raise InvalidInput("type contains control characters", field="type")
    snake = _CAMEL.sub("_", clean_display(value))
    result = normalize(snake).replace(" ", "_").replace("-", "_")
    if len(result) > 64:
        raise InvalidInput("type is longer than 64 characters", field="type")
    return result


def _candidates_payload(entities: Iterable[Entity]) -> list[dict]:
    return [{"id": e.id, "canonical_name": e.canonical_name, "type": e.type} for e in entities]


def _on_entity_saved(entity_id: str) -> None:
    for hook in ENTITY_SAVED_HOOKS:
        transaction.on_commit(lambda h=hook: h(entity_id))


@transaction.atomic
def entity_store(
    *,
    name: str,
    type: str | None = None,  # noqa: A002 - the product's own field name
    description: str = "",
    actor=None,
) -> tuple[Entity, bool]:
    """Return the entity with this normalised name and type, creating it if absent.

    Without a type, the one existing entity of that name is reused whatever its type;
    several are ambiguous (409). Race-safe: insert, and on IntegrityError re-select.
    """
    display = validate_name(name)
    norm = normalize(display)
    entity_type = normalize_type(type) if type is not None else None

    def select() -> Entity | None:
        qs = Entity.objects.filter(name_norm=norm)
        if entity_type is not None:
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
                    type=entity_type or "",
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
def entity_update(
    *,
    entity: Entity,
    actor,
    canonical_name: str | None = None,
    type: str | None = None,  # noqa: A002
    description: str | None = None,
) -> Entity:
    before = {
        "canonical_name": entity.canonical_name,
        "type": entity.type,
        "description": entity.description,
    }
    if canonical_name is not None:
        entity.canonical_name = validate_name(canonical_name, field="canonical_name")
        entity.name_norm = normalize(entity.canonical_name)
    if type is not None:
        entity.type = normalize_type(type)
    if description is not None:
        entity.description = description
    entity.curated = True
    clash = (
        Entity.objects.filter(name_norm=entity.name_norm, type=entity.type)
        .exclude(pk=entity.pk)
        .first()
    )
    if clash:
        raise Conflict(
            f"another {entity.type or 'untyped'} entity is named '{clash.canonical_name}'",
            field="canonical_name",
            extra={"candidates": _candidates_payload([clash])},
        )
    entity.save()
    entity.aliases.update(type=entity.type)
    audit(actor=actor, action="entity.update", target=entity, payload={"before": before})
    _on_entity_saved(entity.id)
    return entity


@transaction.atomic
def alias_add(*, entity: Entity, alias: str, actor=None, manual: bool = True) -> tuple[Alias, bool]:
    """Point a normalised alias at an entity; one already pointing elsewhere is a 409."""
    display = validate_name(alias, field="alias")
    norm = normalize(display)
    if norm == entity.name_norm:
        raise InvalidInput("alias is the entity's canonical name", field="alias")
    owner = Entity.objects.filter(name_norm=norm, type=entity.type).exclude(pk=entity.pk).first()
    if owner is not None:
        raise Conflict(
            f"'{display}' is the canonical name of another entity",
            field="alias",
            extra={"candidates": _candidates_payload([owner])},
        )
    existing = Alias.objects.select_related("entity").filter(alias_norm=norm, type=entity.type)
    found = existing.first()
    if found is None:
        try:
            with transaction.atomic():
                found = Alias.objects.create(
                    entity=entity, alias=display, alias_norm=norm, type=entity.type, manual=manual
                )
        except IntegrityError:
            found = existing.first()
        else:
            if actor is not None:
                audit(actor=actor, action="alias.add", target=entity, payload={"alias": display})
            _on_entity_saved(entity.id)
            return found, True
    if found.entity_id != entity.id:
        raise Conflict(
            f"alias '{display}' already points to '{found.entity.canonical_name}'",
            field="alias",
            extra={"candidates": _candidates_payload([found.entity])},
        )
    return found, False


@transaction.atomic
def alias_remove(*, entity: Entity, alias: str, actor=None) -> None:
    norm = normalize(validate_name(alias, field="alias"))
    deleted, _ = Alias.objects.filter(entity=entity, alias_norm=norm).delete()
    if not deleted:
        raise NotFound(f"'{entity.canonical_name}' has no alias '{alias}'", field="alias")
    if actor is not None:
        audit(actor=actor, action="alias.remove", target=entity, payload={"alias": alias})
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


# Finds an existing fact that says the same thing; the integrity app widens it from
# "same normalised text" to near-duplicates by similarity.
DuplicateFinder = Callable[[str, str], Fact | None]


def _exact_duplicate(text: str, text_norm: str) -> Fact | None:
    return Fact.objects.filter(text_norm=text_norm, status=Fact.Status.ACTIVE).first()


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
    """Store a proposition, or confirm the existing one that says the same thing."""
    display = _validate_fact_text(text)
    if not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
        raise InvalidInput("confidence must be between 0 and 1", field="confidence")
    if valid_from and valid_to and valid_to < valid_from:
        raise InvalidInput("valid_to is before valid_from", field="valid_to")
    if (object_entity is not None or object_value) and subject is None:
        raise InvalidInput("a triple needs a subject", field="subject")
    norm = normalize(display)
    for finder in DUPLICATE_FINDERS:
        duplicate = finder(display, norm)
        if duplicate is not None:
            return FactStoreResult("confirmed", fact_confirm(fact=duplicate, confidence=confidence))
    fact = Fact.objects.create(
        text=display,
        text_norm=norm,
        subject=subject,
        predicate=predicate.strip()[:128],
        object_entity=object_entity,
        object_value=object_value.strip()[:1024],
        confidence=float(confidence),
        source=source.strip()[:255],
        client=client.strip()[:128],
        created_by=actor if getattr(actor, "is_authenticated", False) else None,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    if subject is not None:
        fact_link(fact=fact, entity=subject, role=EntityFact.Role.SUBJECT)
    if object_entity is not None:
        fact_link(fact=fact, entity=object_entity, role=EntityFact.Role.OBJECT)
    for entity in entities:
        fact_link(fact=fact, entity=entity)
    for hook in FACT_SAVED_HOOKS:
        transaction.on_commit(lambda h=hook, fid=fact.id: h(fid, "created"))
    return FactStoreResult("created", fact)


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
