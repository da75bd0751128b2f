"""Entities found by machines (book ingestion): bulk ensure, garbage collection, candidates."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction

from kgsite.errors import InvalidInput
from kgsite.models import AuditEntry, audit_many
from kgsite.text import clean_display, normalize

from .. import hooks
from ..models import (
    Alias,
    Entity,
    EntityFact,
    Fact,
)
from ..names import normalize_type, validate_name
from .lifecycle import _chunks, _entities_saved

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
    # Stored entities made anew from their drafts (``renew``): name and machine aliases.
    renewed: list[str] = field(default_factory=list)


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


def _entity_names_among(keys: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (norm, type) keys among ``keys`` that are an entity's canonical name: an alias
    may not shadow one (``alias_add`` refuses it too)."""
    wanted = set(keys)
    return {key for key in _ids_by_norm(wanted) if key in wanted}


def _machine_aliases(drafts: dict[tuple[str, str], EntityDraft], ids, created) -> list[Alias]:
    """Aliases read with new entities ("Staff (arcane focus)"), never a taken one nor
    another entity's name."""
    created_set = set(created)
    seen: set[tuple[str, str]] = set(
        Alias.objects.filter(entity_id__in=created).values_list("alias_norm", "type")
    )
    seen |= _entity_names_among(
        (normalize(alias), key[1])
        for key, draft in drafts.items()
        if ids.get(key) in created_set
        for alias in draft.aliases
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
def entities_ensure(
    *, drafts: Iterable[EntityDraft], source: str, actor=None, renew: Iterable[str] = ()
) -> EnsureResult:
    """Map each draft to a stored entity of that normalised name and type, creating the
    missing ones in bulk (with the aliases read with them). Drafts with a bad name or
    type are skipped. One audit row names what was created and by which ``source``.

    A stored entity in ``renew`` (one only a machine made, from a source now read again)
    keeps its id but is made as its draft would make it: its name, its machine aliases
    and no candidate mark (the caller marks it again).

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
    renewed = _entities_renew(wanted, ids, set(renew))
    ids.update(_ids_by_norm(missing))
    Alias.objects.bulk_create(
        _machine_aliases(wanted, ids, created + renewed),
        batch_size=BULK_BATCH,
        ignore_conflicts=True,
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
    return EnsureResult(ids=ids, created=created, renewed=renewed)


def _entities_renew(wanted: dict[tuple[str, str], EntityDraft], ids, renew: set[str]):
    """Reset the stored entities in ``renew`` that a draft names to what the draft would
    create (unless a curator touched one meanwhile); return their ids."""
    named = [pk for pk in ids.values() if pk in renew]
    still = entities_machine_only(named)
    renewed = {key: pk for key, pk in ids.items() if pk in still}
    if not renewed:
        return []
    Alias.objects.filter(entity_id__in=list(renewed.values()), manual=False).delete()
    Entity.objects.bulk_update(
        [
            Entity(pk=pk, canonical_name=wanted[key].name, candidate=False, evidence=0)
            for key, pk in renewed.items()
        ],
        ["canonical_name", "candidate", "evidence"],
        batch_size=BULK_BATCH,
    )
    ids_renewed = sorted(renewed.values())
    _entities_saved(ids_renewed)
    return ids_renewed


def entities_machine_only(entity_ids: Iterable[str]) -> set[str]:
    """The ids among ``entity_ids`` that nothing but a machine's reading holds on to (no
    fact, hand-made alias, curator's flag or edit): what ``entity_gc`` would remove once
    no source names them."""
    ids = sorted(set(entity_ids))
    out: set[str] = set()
    for batch in _chunks(ids):
        out.update(set(batch) - _entities_held(batch))
    return out


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
    names = _entity_names_among(
        (normalize(form), types[pk])
        for pk, forms in aliases.items()
        if pk in types
        for form in forms
    )
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
        if normalize(form) and (normalize(form), types[pk]) not in names
    ]
    Alias.objects.bulk_create(rows, batch_size=BULK_BATCH, ignore_conflicts=True)
    _entities_saved(sorted(set(evidence) | set(aliases)))


@transaction.atomic
def entities_candidates_confirm(
    *, entity_ids: Iterable[str], source: str, actor=None, curated: bool = False
) -> int:
    """Candidates seen again elsewhere (or confirmed by a curator: ``curated``) become
    ordinary entities, matched like curated ones; one audit row lists them."""
    ids = sorted(
        Entity.objects.filter(pk__in=list(entity_ids), candidate=True).values_list("pk", flat=True)
    )
    if not ids:
        return 0
    # A curator's acceptance is kept like a curated entity when the book that proposed
    # it goes (garbage collection keeps curated entities); another book's does not.
    Entity.objects.filter(pk__in=ids).update(
        candidate=False, **({"curated": True} if curated else {})
    )
    audit_many(
        actor=actor,
        action="entity.candidate_confirm",
        model=Entity,
        payload={"source": source, "ids": ids},
    )
    _entities_saved(ids)
    return len(ids)
