"""Entities and their names: check, create, update, delete; aliases; the gazetteer."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_noop

from kgsite.errors import Conflict, InvalidInput, NotFound
from kgsite.models import audit
from kgsite.text import normalize

from .. import hooks
from ..models import (
    Alias,
    Entity,
    EntityFact,
)
from ..name_index import name_index_refresh
from ..names import normalize_type, validate_description, validate_name


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
        raise InvalidInput(gettext_noop("canonical_name is required"), field="canonical_name")
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
            gettext_noop("another %(type)s entity is named '%(name)s'"),
            params={"type": entity_type or "untyped", "name": clash.canonical_name},
            field="canonical_name",
            extra={"candidates": _candidates_payload([clash])},
        )
    if not saved and not entity_type:
        # Without a type a name stands for the one entity of that name, whatever its type.
        found = list(others.filter(name_norm=norm)[:10])
        if found:
            raise Conflict(
                gettext_noop(
                    "'%(name)s' already names an entity of type '%(type)s'; "
                    "give a type or edit that entity"
                ),
                params={"name": display, "type": found[0].type},
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
                gettext_noop(
                    "alias '%(alias)s' already points to '%(name)s' among %(type)s entities"
                ),
                params={"alias": taken.alias, "name": taken.entity.canonical_name, "type": label},
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
                gettext_noop("alias '%(alias)s' is the canonical name of another %(type)s entity"),
                params={"alias": owner.canonical_name, "type": label},
                field="type",
                extra={"candidates": _candidates_payload([owner])},
            )


def _description_fill(entity: Entity, description: str, *, actor) -> None:
    """Give an undescribed entity the description a writer brought (audited as an edit)."""
    filled = Entity.objects.filter(pk=entity.pk, description=entity.description).update(
        description=description
    )
    if not filled:  # another writer described it in between: theirs stays
        entity.refresh_from_db(fields=["description"])
        return
    # The same payload as a curator's edit, so the entity's history can put it back.
    before = {f: getattr(entity, f) for f in ("canonical_name", "type", "description")}
    entity.description = description
    after = {**before, "description": description}
    audit(
        actor=actor,
        action="entity.update",
        target=entity,
        payload={"before": before, "after": after},
    )
    _entity_saved(entity.id)


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
    Race-safe: insert, and on IntegrityError re-select. An existing entity without a
    description gets the one given; one it already has is kept (a curator changes it).
    """
    display = validate_name(name)
    norm = normalize(display)
    entity_type = normalize_type(type) if type is not None else ""
    description = validate_description(description)

    def select() -> Entity | None:
        qs = Entity.objects.filter(name_norm=norm)
        if entity_type:
            return qs.filter(type=entity_type).first()
        found = list(qs[:10])
        if len(found) > 1:
            raise Conflict(
                gettext_noop("'%(name)s' names several entities; give a type"),
                params={"name": display},
                field="type",
                code="ambiguous",
                extra={"candidates": _candidates_payload(found)},
            )
        return found[0] if found else None

    for _attempt in range(3):
        existing = select()
        if existing is not None:
            if description.strip() and not existing.description.strip():
                _description_fill(existing, description, actor=actor)
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
        # Also without an actor (a gazetteer, an agent, an import): the row says somebody
        # stored it on purpose, so deleting a book that mentions it never collects it.
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
    description = validate_description(description)
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
            gettext_noop("'%(name)s' was just created by someone else"),
            params={"name": plan.display},
            field="canonical_name",
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
    if description is not None:
        description = validate_description(description)
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
            gettext_noop("'%(name)s' clashes with another %(type)s entity"),
            params={"name": plan.display, "type": plan.type or "untyped"},
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
        raise InvalidInput(gettext_noop("alias is the entity's canonical name"), field="alias")
    owners = Entity.objects.filter(name_norm=norm, type=entity_type)
    if entity.pk is not None:
        owners = owners.exclude(pk=entity.pk)
    owner = owners.first()
    if owner is not None:
        raise Conflict(
            gettext_noop("'%(name)s' is the canonical name of another entity"),
            params={"name": display},
            field="alias",
            extra={"candidates": _candidates_payload([owner])},
        )
    found = Alias.objects.select_related("entity").filter(alias_norm=norm, type=entity_type).first()
    if found is not None and found.entity_id != entity.pk:
        raise Conflict(
            gettext_noop("alias '%(alias)s' already points to '%(name)s'"),
            params={"alias": display, "name": found.entity.canonical_name},
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
        raise InvalidInput(gettext_noop("alias must not be empty"), field="alias")
    stored = Alias.objects.filter(entity=entity, alias_norm=norm).values_list("alias", flat=True)
    rows = [] if "\x00" in norm else list(stored)  # no column holds a NUL (PostgreSQL)
    if not rows:
        raise NotFound(
            gettext_noop("'%(name)s' has no alias '%(alias)s'"),
            params={"name": entity.canonical_name, "alias": alias},
            field="alias",
        )
    Alias.objects.filter(entity=entity, alias_norm=norm).delete()
    if actor is not None:
        audit(actor=actor, action="alias.remove", target=entity, payload={"alias": rows[0]})
    _entity_saved(entity.id)


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
