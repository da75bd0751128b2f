"""Write services for the entity graph. Every write is atomic; side effects run on commit."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from kgsite.errors import Conflict, InvalidInput, NotFound
from kgsite.models import AuditEntry, audit, audit_many
from kgsite.text import clean_display, has_control_chars, normalize

from . import hooks
from .duplicates import MIN_SCORE as DUPLICATE_MIN_SCORE
from .duplicates import Candidates, duplicate_candidates, pair_key
from .models import (
    FACT_TEXT_HEAD,
    Alias,
    DuplicateScan,
    DuplicateSuggestion,
    Entity,
    EntityFact,
    EntityMerge,
    EntityRedirect,
    Fact,
    FactConfirmation,
)
from .name_index import name_index_refresh
from .names import normalize_type, validate_name
from .scopes import scope_clean


def _candidates_payload(entities: Iterable[Entity]) -> list[dict]:
    return [{"id": e.id, "canonical_name": e.canonical_name, "type": e.type} for e in entities]


def _entities_saved(entity_ids: list[str]) -> None:
    """After entities or their names change: the word-start index of names in this
    transaction (a suggestion never misses a committed name), the hooks on commit."""
    name_index_refresh(entity_ids=entity_ids)
    hooks.entities_saved_fire(entity_ids)


def _entity_saved(entity_id: str) -> None:
    _entities_saved([entity_id])


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
        _entity_saved(entity.id)
        return entity, True
    raise Conflict(f"could not store '{display}'", field="name")  # pragma: no cover


@transaction.atomic
def entity_create(
    *,
    name: str,
    type: str | None = None,  # noqa: A002
    description: str = "",
    aliases: Iterable[str] = (),
    actor,
) -> Entity:
    """A curator creates an entity by hand (the admin, the pages): an existing one is a
    conflict, never silently reused. ``aliases`` are added with it, all or nothing."""
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
    added = [alias_add(entity=entity, alias=a, actor=None)[0].alias for a in aliases if a.strip()]
    audit(
        actor=actor,
        action="entity.create",
        target=entity,
        payload={"name": plan.display, "type": plan.type, "aliases": added},
    )
    _entity_saved(entity.id)
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
    _entity_saved(entity.id)
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
    _entity_saved(entity_id)


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
    _entity_saved(entity.id)
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
    _entity_saved(entity.id)


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


def _exact_duplicate(
    text: str,
    text_norm: str,
    *,
    scope: str = "",
    kind: str = Fact.Kind.FACT,
    named: NamedEntities | None = None,
) -> Fact | None:
    found = [
        f
        for f in _same_text(text_norm, status=Fact.Status.ACTIVE)
        if f.scope == scope and f.kind == kind and facts_name_alike(fact=f, named=named)
    ]
    return found[0] if found else None


@dataclass(frozen=True)
class NamedEntities:
    """The entities a ``fact_store`` call names: its subject, its object, its mentions."""

    subject: str | None = None
    object_entity: str | None = None
    mentions: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.subject or self.object_entity or self.mentions)


def facts_name_alike(*, fact: Fact, named: NamedEntities | None) -> bool:
    """Whether ``fact`` may be confirmed by a call naming these entities: a fact about
    another subject (or object) is never confirmed, however alike the texts (issue 27)."""
    if not named:
        return True
    links = list(EntityFact.objects.filter(fact=fact).values_list("entity_id", "role"))
    subjects = {e for e, role in links if role == EntityFact.Role.SUBJECT}
    objects = {e for e, role in links if role == EntityFact.Role.OBJECT}
    if fact.subject_id:
        subjects.add(fact.subject_id)
    if fact.object_entity_id:
        objects.add(fact.object_entity_id)
    if named.subject and subjects and named.subject not in subjects:
        return False
    if named.object_entity and objects and named.object_entity not in objects:
        return False
    linked = {e for e, _role in links} | subjects | objects
    everything = named.mentions | {e for e in (named.subject, named.object_entity) if e}
    return not (everything and linked and not everything & linked)


def fact_find_duplicate(
    *,
    text: str,
    scope: str = "",
    kind: str = Fact.Kind.FACT,
    named: NamedEntities | None = None,
) -> Fact | None:
    """The active fact of this scope and kind that already says ``text``, or None.

    One judgement for every caller (``fact_store`` and recall's finding trigger): the
    exact normalised text first, then the finders other apps register (integrity: an
    index neighbour the pair model calls a duplicate, ``hooks.duplicate_finder``). A
    fact linked to other entities than ``named`` is never the answer.
    """
    display = _validate_fact_text(text)
    norm = normalize(display)
    for finder in (_exact_duplicate, *hooks.duplicate_finders()):
        duplicate = finder(display, norm, scope=scope, kind=kind, named=named)
        if duplicate is not None and facts_name_alike(fact=duplicate, named=named):
            return duplicate
    return None


def fact_text_embed_ahead(*, text: object) -> None:
    """Embed a fact's text before a transaction that stores it (``fact_supersede``): the
    near-duplicate search inside then reads the vector from the cache instead of running
    the encoder while SQLite's write lock is held (issue 27). Never raises: a text that
    is refused is refused inside, with its error."""
    from kgsite.vectors.service import embed_query

    try:
        embed_query(_validate_fact_text(text))
    except Exception:  # noqa: BLE001 - only a head start; the write path decides
        return


@dataclass(frozen=True)
class FactKindFields:
    kind: str = Fact.Kind.FACT
    goal_status: str = ""
    resolved_by: str = ""
    domain: str = ""


def fact_kind_check(
    *, kind: object = Fact.Kind.FACT, goal_status: object = "", resolved_by: object = "", domain=""
) -> FactKindFields:
    """A kind with the fields only it may carry: a goal's status (active by default), a
    resolved unknown's resolution (required), a pattern's domain. Raises InvalidInput."""
    if kind not in Fact.Kind.values:
        raise InvalidInput(f"kind must be one of {', '.join(Fact.Kind.values)}", field="kind")
    goal_status = goal_status or ""
    if goal_status and goal_status not in Fact.GoalStatus.values:
        raise InvalidInput("goal_status must be active or done", field="goal_status")
    if kind == Fact.Kind.GOAL:
        goal_status = goal_status or Fact.GoalStatus.ACTIVE
    elif goal_status:
        raise InvalidInput("only a goal has a goal_status", field="goal_status")
    resolved_by = _limited(resolved_by or "", "resolved_by", 10_000)
    if kind == Fact.Kind.RESOLVED_UNKNOWN and not resolved_by:
        raise InvalidInput("a resolved unknown needs resolved_by", field="resolved_by")
    if kind != Fact.Kind.RESOLVED_UNKNOWN and resolved_by:
        raise InvalidInput("only a resolved unknown has resolved_by", field="resolved_by")
    domain = _fact_column(domain or "", "domain").lower()
    if domain and kind != Fact.Kind.PATTERN:
        raise InvalidInput("only a pattern has a domain", field="domain")
    return FactKindFields(str(kind), str(goal_status), resolved_by, domain)


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
) -> list[list[str]]:
    """Link the named entities; returns the links this call added, as [entity id, role]."""
    wanted = []
    if subject is not None:
        wanted.append((subject, EntityFact.Role.SUBJECT))
    if object_entity is not None:
        wanted.append((object_entity, EntityFact.Role.OBJECT))
    wanted += [(entity, EntityFact.Role.MENTION) for entity in entities]
    added = []
    for entity, role in wanted:
        _link, created = fact_link(fact=fact, entity=entity, role=role)
        if created:
            added.append([entity.pk, role])
    return added


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
    kind: str = Fact.Kind.FACT,
    goal_status: str = "",
    resolved_by: str = "",
    domain: str = "",
    scope: str = "",
    ai_id: str = "",
    session_id: str = "",
    restates: Fact | None = None,
    actor=None,
) -> FactStoreResult:
    """Store a proposition, or confirm the existing one that says the same thing.

    ``restates``: an active fact the caller's own use of the duplicate judgement found
    this text to restate (recall's finding trigger): it is confirmed like a duplicate.

    A confirmation also links the entities this call names to the existing fact. Only a
    fact of the same project scope and kind is confirmed: another project's memory is
    never touched. Raises InvalidInput naming the field, a value too long for its column
    included (never cut), before anything is written.
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
    kinds = fact_kind_check(
        kind=kind, goal_status=goal_status, resolved_by=resolved_by, domain=domain
    )
    scope = scope_clean(scope)
    ai_id = _fact_column(ai_id, "ai_id")
    session_id = _fact_column(session_id, "session_id")
    norm = normalize(display)
    entities = list(entities)
    named = NamedEntities(
        subject=subject.pk if subject is not None else None,
        object_entity=object_entity.pk if object_entity is not None else None,
        mentions=frozenset(e.pk for e in entities),
    )
    # The slow part first, outside any transaction (issue 27): the near-duplicate
    # search embeds the text (the first call of a process loads the model) and reads
    # the vector index. Inside the transaction SQLite holds its write lock, so only the
    # writes and a cheap exact-text check happen there.
    near = restates or _near_duplicate(display, norm, scope=scope, kind=kinds.kind, named=named)
    return _fact_write(
        display=display,
        norm=norm,
        near=near,
        named=named,
        subject=subject,
        predicate=predicate,
        object_entity=object_entity,
        object_value=object_value,
        entities=entities,
        confidence=confidence,
        source=source,
        client=client,
        valid_from=valid_from,
        valid_to=valid_to,
        kinds=kinds,
        scope=scope,
        ai_id=ai_id,
        session_id=session_id,
        actor=actor,
    )


def _near_duplicate(
    display: str, norm: str, *, scope: str, kind: str, named: NamedEntities
) -> Fact | None:
    """The registered finders' answer (integrity: an index neighbour the pair model
    calls a duplicate), computed before the write transaction opens."""
    for finder in hooks.duplicate_finders():
        duplicate = finder(display, norm, scope=scope, kind=kind, named=named)
        if duplicate is not None and facts_name_alike(fact=duplicate, named=named):
            return duplicate
    return None


@transaction.atomic
def _fact_write(
    *,
    display: str,
    norm: str,
    near: Fact | None,
    named: NamedEntities,
    subject: Entity | None,
    predicate: str,
    object_entity: Entity | None,
    object_value: str,
    entities: list[Entity],
    confidence: float,
    source: str,
    client: str,
    valid_from: datetime | None,
    valid_to: datetime | None,
    kinds: FactKindFields,
    scope: str,
    ai_id: str,
    session_id: str,
    actor,
) -> FactStoreResult:
    """``fact_store``'s writes, in one transaction. The exact-text duplicate is looked
    up here (a concurrent writer of the same text committed before this lock was
    taken); the near duplicate found outside counts if it is still active."""
    duplicate = _exact_duplicate(display, norm, scope=scope, kind=kinds.kind, named=named)
    if duplicate is None and near is not None:
        duplicate = Fact.objects.filter(pk=near.pk, status=Fact.Status.ACTIVE).first()
    if duplicate is not None:
        before = duplicate.confidence
        fact = fact_confirm(fact=duplicate, confidence=confidence)
        added = _link_all(fact, subject, object_entity, entities)
        FactConfirmation.objects.create(
            fact=fact,
            text=display,
            source=source,
            client=client,
            ai_id=ai_id,
            session_id=session_id,
            confidence=float(confidence),
            confidence_before=before,
            details={
                "subject": named.subject,
                "object_entity": named.object_entity,
                "entities": sorted(named.mentions),
                "predicate": predicate,
                "object_value": object_value,
                "valid_from": _stamp(valid_from),
                "valid_to": _stamp(valid_to),
                "goal_status": kinds.goal_status,
                "resolved_by": kinds.resolved_by,
                "domain": kinds.domain,
            },
            links_added=added,
            created_by=actor if getattr(actor, "is_authenticated", False) else None,
        )
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
        kind=kinds.kind,
        goal_status=kinds.goal_status,
        resolved_by=kinds.resolved_by,
        domain=kinds.domain,
        scope=scope,
        ai_id=ai_id,
        session_id=session_id,
    )
    _link_all(fact, subject, object_entity, entities)
    if getattr(actor, "is_authenticated", False):  # a person or a token, not a machine
        audit(actor=actor, action="fact.create", target=fact, payload={"text": display[:200]})
    hooks.fact_saved_fire(fact.id, "created")
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
    if new.get("object_value") and fact.subject_id is None:
        raise InvalidInput("a triple needs a subject", field="object_value")
    changed = {k: v for k, v in new.items() if getattr(fact, k) != v}
    _check_no_twin(fact, changed)
    return changed


def _check_no_twin(fact: Fact, changed: dict[str, Any]) -> None:
    """An edit must not make the fact repeat another active fact of its scope and kind."""
    text_norm = changed.get("text_norm", fact.text_norm)
    status = changed.get("status", fact.status)
    if not (("text_norm" in changed or "status" in changed) and status == Fact.Status.ACTIVE):
        return
    kind = changed.get("kind", fact.kind)
    twins = [
        f
        for f in _same_text(text_norm, status=Fact.Status.ACTIVE)
        if f.pk != fact.pk and f.scope == fact.scope and f.kind == kind
    ]
    if twins:
        raise Conflict(
            f"fact {twins[0].pk} already says this; confirm or retract it instead",
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


# --- Entities found by machines (book ingestion) ---------------------------------------

BULK_BATCH = 1000


@dataclass(frozen=True)
class EntityDraft:
    """An entity a machine found: a checked name, a type and aliases read with it."""

    name: str
    type: str
    aliases: tuple[str, ...] = ()


@dataclass
class EnsureResult:
    ids: dict[tuple[str, str], str]  # (name_norm, type) -> entity id
    created: list[str]


def _ids_by_norm(keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    wanted = set(keys)
    ids: dict[tuple[str, str], str] = {}
    for batch in _chunks(sorted({norm for norm, _t in wanted})):
        for pk, norm, entity_type in Entity.objects.filter(name_norm__in=batch).values_list(
            "pk", "name_norm", "type"
        ):
            if (norm, entity_type) in wanted:
                ids[(norm, entity_type)] = pk
    return ids


def _machine_aliases(drafts: dict[tuple[str, str], EntityDraft], ids, created) -> list[Alias]:
    """Aliases read with new entities ("Staff (arcane focus)"), never a taken one."""
    created_set = set(created)
    seen: set[tuple[str, str]] = set(
        Alias.objects.filter(entity_id__in=created).values_list("alias_norm", "type")
    )
    aliases: list[Alias] = []
    for key, draft in drafts.items():
        entity_id = ids.get(key)
        if entity_id not in created_set:
            continue
        for alias in draft.aliases:
            norm = normalize(alias)
            if not norm or norm == key[0] or (norm, key[1]) in seen:
                continue
            seen.add((norm, key[1]))
            aliases.append(
                Alias(
                    entity_id=entity_id,
                    alias=clean_display(alias)[:512],
                    alias_norm=norm[:512],
                    type=key[1],
                    manual=False,
                )
            )
    return aliases


@transaction.atomic
def entities_ensure(*, drafts: Iterable[EntityDraft], source: str, actor=None) -> EnsureResult:
    """Map each draft to a stored entity of that normalised name and type, creating the
    missing ones in bulk (with the aliases read with them). Drafts with a bad name or
    type are skipped. One audit row names what was created and by which ``source``.

    Race-safe like ``entity_store``: a row another writer inserted meanwhile is
    re-selected, never duplicated.
    """
    wanted: dict[tuple[str, str], EntityDraft] = {}
    for draft in drafts:
        try:
            display = validate_name(draft.name)
            entity_type = normalize_type(draft.type)
        except InvalidInput:
            continue
        key = (normalize(display), entity_type)
        seen = wanted.get(key)
        aliases = draft.aliases + (seen.aliases if seen else ())
        wanted[key] = EntityDraft(seen.name if seen else display, entity_type, aliases)
    if not wanted:
        return EnsureResult(ids={}, created=[])
    ids = _ids_by_norm(wanted)
    missing = [key for key in wanted if key not in ids]
    Entity.objects.bulk_create(
        [Entity(canonical_name=wanted[k].name, name_norm=k[0], type=k[1]) for k in missing],
        batch_size=BULK_BATCH,
        ignore_conflicts=True,  # another writer created it meanwhile: re-selected below
    )
    created = [pk for key, pk in _ids_by_norm(missing).items() if key not in ids]
    ids.update(_ids_by_norm(missing))
    Alias.objects.bulk_create(
        _machine_aliases(wanted, ids, created), batch_size=BULK_BATCH, ignore_conflicts=True
    )
    if created:
        audit_many(
            actor=actor,
            action="entity.bulk_create",
            model=Entity,
            payload={"source": source, "ids": created},
        )
        _entities_saved(created)
        hooks.entities_ingested_fire(created)
    return EnsureResult(ids=ids, created=created)


def _entities_held(batch: list[str]) -> set[str]:
    """The ids in ``batch`` that something other than a machine holds on to."""
    kept = set(EntityFact.objects.filter(entity_id__in=batch).values_list("entity_id", flat=True))
    kept |= set(Fact.objects.filter(subject_id__in=batch).values_list("subject_id", flat=True))
    kept |= set(
        Fact.objects.filter(object_entity_id__in=batch).values_list("object_entity_id", flat=True)
    )
    kept |= set(
        Alias.objects.filter(entity_id__in=batch, manual=True).values_list("entity_id", flat=True)
    )
    kept |= set(Entity.objects.filter(pk__in=batch, curated=True).values_list("pk", flat=True))
    kept |= set(
        AuditEntry.objects.filter(
            target_type=Entity._meta.label_lower, target_id__in=batch
        ).values_list("target_id", flat=True)
    )
    return kept


@transaction.atomic
def entity_gc(*, entity_ids: Iterable[str], source: str, actor=None) -> list[str]:
    """Delete the given entities that nothing holds on to; return their ids.

    An entity stays if it has any fact (linked, as subject or object), an alias added
    by hand, the ``curated`` flag, an audit row of its own (a curator created or edited
    it), or a referrer registered by another app (``hooks.entity_referrers``: books'
    mentions). One audit row lists what was removed, with names and types.
    """
    candidates = sorted(set(entity_ids))
    removed: list[dict] = []
    for batch in _chunks(candidates):
        kept = _entities_held(batch)
        kept |= hooks.entities_referred([pk for pk in batch if pk not in kept])
        doomed = [pk for pk in batch if pk not in kept]
        if doomed:
            removed += Entity.objects.filter(pk__in=doomed).values("id", "canonical_name", "type")
            Entity.objects.filter(pk__in=doomed).delete()
    ids = [row["id"] for row in removed]
    if ids:
        audit_many(
            actor=actor,
            action="entity.gc",
            model=Entity,
            payload={"source": source, "removed": removed},
        )
        _entities_saved(ids)
    return ids


def fact_status_set(*, fact: Fact, status: str, valid_to: datetime | None) -> Fact:
    """Change a fact's status and end of validity for another service that audits its
    own action (integrity's resolutions); hooks learn it as an "updated" save."""
    if status not in Fact.Status.values:
        raise InvalidInput(f"unknown status '{status}'", field="status")
    fact.status = status
    fact.valid_to = valid_to
    fact.save(update_fields=["status", "valid_to", "updated_at"])
    hooks.fact_saved_fire(fact.pk, "updated")
    return fact


# --- Merge and its undo ----------------------------------------------------------------
#
# A merge moves everything that points at the duplicates to the survivor, turns their
# canonical names into the survivor's aliases, deletes them and leaves a redirect per
# old id. ``EntityMerge.state`` records exactly what changed (rows moved, rows dropped
# with all their fields, roles upgraded, other apps' payloads), so undo puts back the
# same ids, names, aliases, links and mentions, or refuses naming what changed since.

# A link keeps the strongest role when the survivor is already linked to the fact.
_ROLE_RANK = {EntityFact.Role.SUBJECT: 0, EntityFact.Role.OBJECT: 1, EntityFact.Role.MENTION: 2}
_ENTITY_FIELDS = ("id", "canonical_name", "name_norm", "type", "description", "curated")
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
        raise InvalidInput("name at least one duplicate to merge", field="duplicates")
    if survivor.pk in unique:
        raise InvalidInput("the survivor cannot also be a duplicate", field="duplicates")
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
            return f"'{shown}' already names '{survivor.canonical_name}'"
        if norm in taken:
            return f"'{shown}' already names '{taken[norm]}' among {survivor.type or 'untyped'}"
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
                "message": f"fact {pk} ('{text[:60]}') would relate the survivor to itself",
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
        raise NotFound(f"no entity with id '{missing[0]}'", field="duplicates")
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


def _undo_entity_problems(merge: EntityMerge) -> list[str]:
    state = merge.state
    problems: list[str] = []
    if merge.survivor_id is None:
        problems.append(
            f"the survivor '{merge.survivor_name}' no longer exists "
            "(deleted or merged into another entity)"
        )
    back = [row["id"] for row in state["entities"]]
    if Entity.objects.filter(pk__in=back).exists():
        problems.append("an entity with a merged-away id exists again")
    added = set(state["added_aliases"])
    mine = set(state["moved_aliases"]) | added
    for row in state["entities"]:
        other = (
            Entity.objects.filter(name_norm=row["name_norm"], type=row["type"])
            .exclude(pk=row["id"])
            .first()
        )
        if other is not None:
            problems.append(
                f"'{row['canonical_name']}' ({row['type'] or 'untyped'}) now names "
                f"another entity ({other.pk})"
            )
        alias = (
            Alias.objects.filter(alias_norm=row["name_norm"], type=row["type"])
            .exclude(pk__in=mine)
            .select_related("entity")
            .first()
        )
        if alias is not None:
            problems.append(
                f"'{row['canonical_name']}' is now an alias of '{alias.entity.canonical_name}'"
            )
    for row in state["aliases"]:
        owner = (
            Alias.objects.filter(alias_norm=row["alias_norm"], type=row["type"])
            .exclude(pk__in=mine)
            .select_related("entity")
            .first()
        )
        if owner is not None:
            problems.append(f"alias '{row['alias']}' now points to '{owner.entity.canonical_name}'")
    return problems


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
    problems = [f"fact {pk} was deleted since the merge" for pk in sorted(wanted - present)]
    still: dict[int, str] = {}
    for chunk in _chunks(sorted(moved)):
        still.update(EntityFact.objects.filter(pk__in=chunk).values_list("pk", "entity_id"))
    for pk, fact_id in sorted(moved.items()):
        if fact_id in present and still.get(pk) != survivor_id:
            problems.append(f"fact {fact_id} was unlinked from the survivor since the merge")
    for key, column in (("subjects", "subject_id"), ("objects", "object_entity_id")):
        ids = sorted(fact_id for fact_id, _e in state[key])
        for chunk in _chunks(ids):
            changed = Fact.objects.filter(pk__in=chunk).exclude(**{column: survivor_id})
            problems += [
                f"fact {pk}'s {key[:-1]} changed since the merge"
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
                **{k: row[k] for k in _ENTITY_FIELDS},
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
        return [f"merge {merge.pk} was already undone"]
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
            f"merge {merge.pk} cannot be undone exactly: {problems[0]}"
            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
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


@transaction.atomic
def duplicate_dismiss(*, suggestion: DuplicateSuggestion, actor) -> DuplicateSuggestion:
    """The two entities are different: the pair never comes back (``pair_key`` stays)."""
    suggestion = DuplicateSuggestion.objects.select_for_update().get(pk=suggestion.pk)
    if suggestion.status == DuplicateSuggestion.Status.MERGED:
        raise Conflict(f"suggestion {suggestion.pk} was already merged", field="id")
    if suggestion.status == DuplicateSuggestion.Status.DISMISSED:
        return suggestion
    suggestion.status = DuplicateSuggestion.Status.DISMISSED
    suggestion.decided_by = actor if getattr(actor, "is_authenticated", False) else None
    suggestion.decided_at = timezone.now()
    suggestion.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
    audit(
        actor=actor,
        action="duplicate.dismiss",
        target=suggestion,
        payload={"pair": suggestion.pair_key, "score": suggestion.score},
    )
    return suggestion


# --- Duplicate suggestions --------------------------------------------------------------


@transaction.atomic
def duplicate_suggestions_store(
    *, candidates: Candidates, entity_ids: Iterable[str] | None = None
) -> dict[str, int]:
    """Write a scan's pairs: new ones pending, pending ones refreshed; a dismissed or
    merged pair is never reopened. Pending pairs the scan covered but no longer finds
    (an alias was removed, a name changed) are withdrawn."""
    focus = set(entity_ids) if entity_ids is not None else None
    scored = {
        pair_key(pair): (pair, candidates.score(pair), items)
        for pair, items in candidates.evidence.items()
    }
    scored = {k: v for k, v in scored.items() if v[1] >= DUPLICATE_MIN_SCORE}
    existing: dict[str, DuplicateSuggestion] = {}
    keys = sorted(scored)
    for chunk in _chunks(keys):
        existing.update(DuplicateSuggestion.objects.in_bulk(chunk, field_name="pair_key"))
    stats = {"found": len(scored), "created": 0, "updated": 0, "kept_decided": 0, "withdrawn": 0}
    new, changed = [], []
    for key, (pair, score, items) in scored.items():
        row = existing.get(key)
        if row is None:
            new.append(
                DuplicateSuggestion(
                    pair_key=key,
                    entity_a_id=pair[0],
                    entity_b_id=pair[1],
                    score=score,
                    evidence=items,
                )
            )
        elif row.status != DuplicateSuggestion.Status.PENDING:
            stats["kept_decided"] += 1
        elif row.score != score or row.evidence != items:
            row.score, row.evidence = score, items
            changed.append(row)
    DuplicateSuggestion.objects.bulk_create(new, batch_size=BULK_BATCH, ignore_conflicts=True)
    DuplicateSuggestion.objects.bulk_update(changed, ["score", "evidence"], batch_size=BULK_BATCH)
    stats["created"], stats["updated"] = len(new), len(changed)
    # A pair whose entity was merged away keeps its row: undoing that merge restores it.
    pending = DuplicateSuggestion.objects.filter(
        status=DuplicateSuggestion.Status.PENDING,
        entity_a__isnull=False,
        entity_b__isnull=False,
    )
    covered: set[str] = set()
    if focus is None:
        covered = set(pending.values_list("pair_key", flat=True))
    else:
        for chunk in _chunks(sorted(focus)):
            covered |= set(
                pending.filter(Q(entity_a_id__in=chunk) | Q(entity_b_id__in=chunk)).values_list(
                    "pair_key", flat=True
                )
            )
    for chunk in _chunks(sorted(covered - set(keys))):
        stats["withdrawn"] += pending.filter(pair_key__in=chunk).delete()[0]
    return stats


def duplicate_scan_request(
    *, entity_ids: Iterable[str] | None = None
) -> tuple[DuplicateScan, bool]:
    """Ask for a scan; joins the scan already queued and not started, if any (saves in a
    burst, such as a book's ingestion, become one job). Returns (scan, newly queued)."""
    ids = sorted(set(entity_ids)) if entity_ids is not None else None
    with transaction.atomic():
        queued = (
            DuplicateScan.objects.select_for_update()
            .filter(status=DuplicateScan.Status.QUEUED)
            .order_by("pk")
            .first()
        )
        if queued is not None:
            if ids is None or queued.entity_ids is None:
                queued.entity_ids = None
            else:
                queued.entity_ids = sorted(set(queued.entity_ids) | set(ids))
            queued.save(update_fields=["entity_ids", "updated_at"])
            return queued, False
        return DuplicateScan.objects.create(entity_ids=ids), True


def duplicate_scan_run(*, scan_id: int) -> DuplicateScan:
    """The job's work: find candidate pairs (outside any transaction: it reads for a
    while) and store them; progress and outcome go on the scan row."""
    with transaction.atomic():
        scan = DuplicateScan.objects.select_for_update().get(pk=scan_id)
        if scan.status in (DuplicateScan.Status.RUNNING, DuplicateScan.Status.DONE):
            return scan  # a retried job: idempotent
        scan.status, scan.started_at = DuplicateScan.Status.RUNNING, timezone.now()
        scan.total = len(scan.entity_ids) if scan.entity_ids is not None else Entity.objects.count()
        scan.save(update_fields=["status", "started_at", "total", "updated_at"])

    def progress(done: int) -> None:
        DuplicateScan.objects.filter(pk=scan_id).update(done=done)

    try:
        candidates = duplicate_candidates(entity_ids=scan.entity_ids, progress=progress)
        result = duplicate_suggestions_store(candidates=candidates, entity_ids=scan.entity_ids)
    except Exception as exc:
        DuplicateScan.objects.filter(pk=scan_id).update(
            status=DuplicateScan.Status.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        raise
    result["embedding_checked"] = candidates.embedding_checked
    DuplicateScan.objects.filter(pk=scan_id).update(
        status=DuplicateScan.Status.DONE,
        done=scan.total,
        result=result,
        finished_at=timezone.now(),
    )
    scan.refresh_from_db()
    return scan


@transaction.atomic
def entities_candidates_mark(
    *, evidence: dict[str, int], aliases: dict[str, list[str]], source: str
) -> None:
    """Entities a machine created on its own are candidates until a curator confirms
    them or another source proposes them again: flag them with their evidence count and
    add the other spellings the text gave them (machine aliases, never taken ones)."""
    if not evidence and not aliases:
        return
    Entity.objects.bulk_update(
        [Entity(pk=pk, candidate=True, evidence=count) for pk, count in evidence.items()],
        ["candidate", "evidence"],
        batch_size=BULK_BATCH,
    )
    types = dict(Entity.objects.filter(pk__in=list(aliases)).values_list("pk", "type"))
    rows = [
        Alias(
            entity_id=pk,
            alias=clean_display(form)[:512],
            alias_norm=normalize(form)[:512],
            type=types[pk],
            manual=False,
        )
        for pk, forms in aliases.items()
        if pk in types
        for form in forms
        if normalize(form)
    ]
    Alias.objects.bulk_create(rows, batch_size=BULK_BATCH, ignore_conflicts=True)
    _entities_saved(sorted(set(evidence) | set(aliases)))


@transaction.atomic
def entities_candidates_confirm(*, entity_ids: Iterable[str], source: str, actor=None) -> int:
    """Candidates seen again elsewhere (or confirmed by a curator) become ordinary
    entities, matched like curated ones; one audit row lists them."""
    ids = sorted(
        Entity.objects.filter(pk__in=list(entity_ids), candidate=True).values_list("pk", flat=True)
    )
    if not ids:
        return 0
    Entity.objects.filter(pk__in=ids).update(candidate=False)
    audit_many(
        actor=actor,
        action="entity.candidate_confirm",
        model=Entity,
        payload={"source": source, "ids": ids},
    )
    _entities_saved(ids)
    return len(ids)
