"""Write services the curator pages need beyond ``entities.services``: a fact written by
hand (its object named, not given by id), superseding a fact by a corrected one,
putting back what an audited edit changed, and rejecting extraction's candidates.

Same conventions as ``services``: atomic, keyword-only, ``actor``, one audit row each.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_noop

from kgsite.errors import Conflict, InvalidInput, NotFound, Wording
from kgsite.models import AuditEntry, audit
from kgsite.text import normalize

from . import hooks
from .models import Alias, DuplicateSuggestion, Entity, EntityFact, Fact
from .services import (
    FactStoreResult,
    _check_no_twin,
    _entities_saved,
    _insert_exact,
    _jsonable,
    _rows,
    _unstamp,
    alias_add,
    entity_update,
    fact_changes,
    fact_store,
    fact_text_embed_ahead,
    fact_update,
)


def entity_by_name(*, name: str, field: str = "object") -> Entity:
    """The one entity a curator means by a name (canonical or alias, any type); an
    unknown or ambiguous name is an error on ``field``."""
    norm = normalize(name) if isinstance(name, str) else ""
    if not norm:
        raise InvalidInput(gettext_noop("name the entity"), field=field)
    if "\x00" in norm:  # no name holds one (and PostgreSQL refuses to look it up)
        raise InvalidInput(gettext_noop("the name contains a NUL character"), field=field)
    found = {e.pk: e for e in Entity.objects.filter(name_norm=norm)[:5]}
    if not found:
        found = {e.pk: e for e in Entity.objects.filter(aliases__alias_norm=norm)[:5]}
    if not found:
        raise InvalidInput(
            gettext_noop("no entity is named '%(name)s'"),
            params={"name": name.strip()},
            field=field,
        )
    if len(found) > 1:
        kinds = ", ".join(sorted(e.type or "untyped" for e in found.values()))
        raise InvalidInput(
            gettext_noop("'%(name)s' names several entities (%(types)s)"),
            params={"name": name.strip(), "types": kinds},
            field=field,
        )
    return next(iter(found.values()))


@transaction.atomic
def fact_create(
    *,
    entity: Entity,
    text: str,
    actor,
    predicate: str = "",
    object_name: str = "",
    object_value: str = "",
    confidence: float = 1.0,
    source: str = "",
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
) -> FactStoreResult:
    """A curator writes a fact about ``entity`` on its page. With a predicate the fact is
    a triple whose subject is the entity and whose object is another entity (named) or a
    literal value; without one it only mentions the entity. The same text already stored
    is confirmed, as ``fact_store`` does (its confirmation says who): the result says
    which, since only a created fact is undone by retracting it."""
    predicate = (predicate or "").strip()
    if (object_name or object_value) and not predicate:
        raise InvalidInput(gettext_noop("a triple needs a predicate"), field="predicate")
    if object_name and object_value:
        raise InvalidInput(
            gettext_noop("give an object entity or a value, not both"), field="object_value"
        )
    obj = entity_by_name(name=object_name) if object_name else None
    return fact_store(
        text=text,
        subject=entity if predicate else None,
        predicate=predicate,
        object_entity=obj,
        object_value=object_value,
        entities=() if predicate else (entity,),
        confidence=confidence,
        source=source,
        valid_from=valid_from,
        valid_to=valid_to,
        actor=actor,
    )


def fact_supersede(*, fact: Fact, text: str, actor, source: str | None = None) -> Fact:
    """Replace a fact by a corrected one: the new fact keeps the old one's entities,
    triple and confidence; the old one is superseded (it stays in history, valid until
    now). Undone by ``fact_supersede_undo``. The new text is embedded before the
    transaction opens (the write lock is never held for the encoder)."""
    fact_text_embed_ahead(text=text)
    return _fact_supersede(fact=fact, text=text, actor=actor, source=source)


@transaction.atomic
def _fact_supersede(*, fact: Fact, text: str, actor, source: str | None) -> Fact:
    old = Fact.objects.select_for_update().get(pk=fact.pk)
    if old.status != Fact.Status.ACTIVE:
        raise Conflict(
            gettext_noop("this fact is %(status)s; only an active fact can be superseded"),
            params={"status": old.status},
        )
    if normalize(text or "") == old.text_norm:
        raise InvalidInput(gettext_noop("the new text says the same as the old one"), field="text")
    links = list(EntityFact.objects.filter(fact=old).select_related("entity"))
    before = {"status": old.status, "valid_to": _jsonable(old.valid_to)}
    now = timezone.now()
    old.status, old.valid_to = Fact.Status.SUPERSEDED, now
    old.save(update_fields=["status", "valid_to", "updated_at"])
    stored = fact_store(
        text=text,
        subject=old.subject,
        predicate=old.predicate,
        object_entity=old.object_entity,
        object_value=old.object_value,
        entities=[link.entity for link in links if link.role == EntityFact.Role.MENTION],
        confidence=old.confidence,
        source=old.source if source is None else source,
        valid_from=now,
        kind=old.kind,
        scope=old.scope,
        actor=None,  # one audit row, below, for the whole replacement
    )
    if stored.action != "created":
        # An active fact already says it: undo would retract a fact this never made.
        raise Conflict(
            gettext_noop("fact %(id)s already says this; retract this one instead"),
            params={"id": stored.fact.pk},
            field="text",
            code="already_stated",
        )
    new = stored.fact
    audit(
        actor=actor,
        action="fact.supersede",
        target=old,
        payload={"old": old.pk, "new": new.pk, "before": before, "text": new.text[:200]},
    )
    hooks.fact_saved_fire(old.pk, "updated")
    return new


def _supersede_problems(entry: AuditEntry) -> tuple[Fact | None, Fact | None, str]:
    payload = entry.payload or {}
    old = Fact.objects.filter(pk=payload.get("old")).first()
    new = Fact.objects.filter(pk=payload.get("new")).first()
    if old is None or new is None:
        return old, new, Wording(gettext_noop("one of the two facts was deleted since"))
    if old.status != Fact.Status.SUPERSEDED or new.status != Fact.Status.ACTIVE:
        return old, new, Wording(gettext_noop("one of the two facts changed since"))
    try:  # the old words stored again meanwhile: two active facts would say them
        _check_no_twin(old, {"status": Fact.Status.ACTIVE})
    except Conflict as exc:
        return old, new, Wording(exc.template, exc.params)
    return old, new, ""


def fact_supersede_undoable(*, entry: AuditEntry) -> bool:
    return not _supersede_problems(entry)[2]


@transaction.atomic
def fact_supersede_undo(*, entry: AuditEntry, actor) -> Fact:
    """The old fact is active again as it was; the replacement is retracted."""
    old, new, problem = _supersede_problems(entry)
    if problem:
        raise Conflict(
            gettext_noop("the replacement cannot be undone: %(problem)s"),
            params={"problem": problem},
            code="undo_refused",
        )
    before = entry.payload["before"]
    old.status, old.valid_to = before["status"], _unstamp(before["valid_to"])
    old.save(update_fields=["status", "valid_to", "updated_at"])
    new.status, new.valid_to = Fact.Status.RETRACTED, timezone.now()
    new.save(update_fields=["status", "valid_to", "updated_at"])
    audit(actor=actor, action="fact.supersede_undo", target=old, payload={"new": new.pk})
    hooks.fact_saved_fire(old.pk, "updated")
    hooks.fact_saved_fire(new.pk, "updated")
    return old


# --- putting back an audited edit -----------------------------------------------------------

_DATES = ("valid_from", "valid_to")


def _revert_fields(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (parse_datetime(v) if k in _DATES and v else v) for k, v in values.items()}


def fact_update_revertible(*, entry: AuditEntry) -> bool:
    """A fact edit can be put back while the fact still holds what the edit wrote."""
    fact = Fact.objects.filter(pk=entry.target_id).first()
    after = (entry.payload or {}).get("after", {})
    if fact is None or not after:
        return False
    return all(_jsonable(getattr(fact, k, None)) == v for k, v in after.items())


@transaction.atomic
def fact_update_revert(*, entry: AuditEntry, actor) -> Fact:
    """Give a fact back the values an audited edit (``fact.update``) replaced."""
    if not fact_update_revertible(entry=entry):
        raise Conflict(
            gettext_noop("the fact changed again since this edit; edit it instead"), code="stale"
        )
    fact = Fact.objects.get(pk=entry.target_id)
    before = _revert_fields(entry.payload["before"])
    fact_changes(fact=fact, **before)  # the old values are still valid (no twin since)
    return fact_update(fact=fact, actor=actor, **before)


def fact_create_undoable(*, entry: AuditEntry) -> bool:
    return Fact.objects.filter(pk=entry.target_id, status=Fact.Status.ACTIVE).exists()


@transaction.atomic
def fact_create_undo(*, entry: AuditEntry, actor) -> Fact:
    """A fact written by mistake is retracted (it stays in history, as every fact does)."""
    fact = Fact.objects.filter(pk=entry.target_id).first()
    if fact is None or fact.status != Fact.Status.ACTIVE:
        raise Conflict(gettext_noop("this fact is no longer active"), code="stale")
    return fact_update(fact=fact, actor=actor, status=Fact.Status.RETRACTED)


_ENTITY_FIELDS = ("canonical_name", "type", "description")


def entity_update_revertible(*, entry: AuditEntry) -> bool:
    entity = Entity.objects.filter(pk=entry.target_id).first()
    after = (entry.payload or {}).get("after", {})
    if entity is None or not after:
        return False
    return all(getattr(entity, k) == after.get(k) for k in _ENTITY_FIELDS)


@transaction.atomic
def entity_update_revert(*, entry: AuditEntry, actor) -> Entity:
    """Give an entity back the name, type and description an audited edit replaced, and
    the aliases it dropped for repeating the new name."""
    if not entity_update_revertible(entry=entry):
        raise Conflict(
            gettext_noop("the entity changed again since this edit; edit it instead"), code="stale"
        )
    entity = Entity.objects.get(pk=entry.target_id)
    before = entry.payload["before"]
    entity = entity_update(
        entity=entity,
        actor=actor,
        canonical_name=before["canonical_name"],
        type=before["type"],
        description=before["description"],
    )
    for alias in entry.payload.get("removed_aliases", []):
        alias_add(entity=entity, alias=alias, actor=actor)
    return entity


def alias_restorable(*, entry: AuditEntry) -> bool:
    alias = (entry.payload or {}).get("alias", "")
    entity = Entity.objects.filter(pk=entry.target_id).first()
    if entity is None or not alias:
        return False
    return not Alias.objects.filter(alias_norm=normalize(alias), type=entity.type).exists()


# --- rejecting extraction's candidates ------------------------------------------------------

_ENTITY_ROW = ("id", "canonical_name", "name_norm", "type", "description", "curated")
_ALIAS_ROW = ("id", "entity_id", "alias", "alias_norm", "type", "manual")
_LINK_ROW = ("id", "entity_id", "fact_id", "role")


@transaction.atomic
def entities_reject(
    *, entity_ids: Iterable[str], actor, extra: dict[str, Any] | None = None
) -> AuditEntry:
    """Delete candidates a curator rejects, keeping in one audit row everything needed
    to put them back exactly (rows, aliases, fact links, subject and object references);
    ``extra`` is the calling app's own part (books: the mentions). Only candidates: a
    confirmed entity is deleted from its own page."""
    ids = sorted(set(entity_ids))
    found = list(Entity.objects.select_for_update().filter(pk__in=ids, candidate=True))
    if len(found) != len(ids):
        raise NotFound(
            gettext_noop("some of these are no longer candidates (accepted, merged or gone)")
        )
    if not ids:
        raise InvalidInput(gettext_noop("choose at least one candidate"), field="ids")
    payload = {
        "entities": _rows(
            Entity.objects.filter(pk__in=ids).order_by("pk"),
            (*_ENTITY_ROW, "evidence"),
            ("created_at", "updated_at"),
        ),
        "aliases": _rows(
            Alias.objects.filter(entity_id__in=ids).order_by("pk"),
            _ALIAS_ROW,
            ("created_at", "updated_at"),
        ),
        "links": _rows(
            EntityFact.objects.filter(entity_id__in=ids).order_by("pk"), _LINK_ROW, ("created_at",)
        ),
        "subjects": list(Fact.objects.filter(subject_id__in=ids).values_list("pk", "subject_id")),
        "objects": list(
            Fact.objects.filter(object_entity_id__in=ids).values_list("pk", "object_entity_id")
        ),
        "names": [e.canonical_name for e in found],
        **(extra or {}),
    }
    entry = AuditEntry.objects.create(
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        action="entity.reject",
        target_type=Entity._meta.label_lower,
        target_id=ids[0] if len(ids) == 1 else "",
        payload=payload,
    )
    Entity.objects.filter(pk__in=ids).delete()
    _entities_saved(ids)
    return entry


def entities_reject_problems(*, entry: AuditEntry) -> list[str]:
    """Why rejected candidates cannot come back exactly (a name taken since)."""
    problems = []
    for row in entry.payload.get("entities", []):
        if Entity.objects.filter(pk=row["id"]).exists():
            problems.append(
                Wording(gettext_noop("'%(name)s' is back already"), {"name": row["canonical_name"]})
            )
        elif Entity.objects.filter(name_norm=row["name_norm"], type=row["type"]).exists():
            problems.append(
                Wording(
                    gettext_noop("another entity is now named '%(name)s'"),
                    {"name": row["canonical_name"]},
                )
            )
    if not entry.payload.get("entities"):
        problems.append(Wording(gettext_noop("nothing was recorded")))
    return problems


@transaction.atomic
def entities_reject_undo(*, entry: AuditEntry, actor) -> dict[str, Any]:
    """Put rejected candidates back with the same ids, aliases and links; returns the
    payload so the calling app restores its own part. Refused when a name was taken."""
    problems = entities_reject_problems(entry=entry)
    if problems:
        raise Conflict(
            gettext_noop("cannot bring them back: %(problem)s"),
            params={"problem": problems[0]},
            code="undo_refused",
        )
    payload = entry.payload
    stamps = ("created_at", "updated_at")
    _insert_exact(
        Entity,
        [
            Entity(
                **{k: row[k] for k in (*_ENTITY_ROW, "evidence")},
                candidate=True,
                **{k: _unstamp(row[k]) for k in stamps},
            )
            for row in payload["entities"]
        ],
    )
    taken = set(
        Alias.objects.filter(
            alias_norm__in=[r["alias_norm"] for r in payload["aliases"]]
        ).values_list("alias_norm", "type")
    )
    _insert_exact(
        Alias,
        [
            Alias(**{k: row[k] for k in _ALIAS_ROW}, **{k: _unstamp(row[k]) for k in stamps})
            for row in payload["aliases"]
            if (row["alias_norm"], row["type"]) not in taken
        ],
    )
    facts = set(
        Fact.objects.filter(pk__in=[r["fact_id"] for r in payload["links"]]).values_list(
            "pk", flat=True
        )
    )
    _insert_exact(
        EntityFact,
        [
            EntityFact(**{k: row[k] for k in _LINK_ROW}, created_at=_unstamp(row["created_at"]))
            for row in payload["links"]
            if row["fact_id"] in facts
        ],
    )
    relinked: set[int] = set()
    for key, column in (("subjects", "subject_id"), ("objects", "object_entity_id")):
        for fact_id, entity_id in payload[key]:
            if Fact.objects.filter(pk=fact_id, **{f"{column}__isnull": True}).update(
                **{column: entity_id}
            ):
                relinked.add(fact_id)
    # The edges these facts drew went with the rejected entities: they draw them again.
    for fact_id in sorted(relinked):
        hooks.fact_saved_fire(fact_id, "relinked")
    ids = [row["id"] for row in payload["entities"]]
    audit(
        actor=actor,
        action="entity.reject_undo",
        target=entry,
        payload={"entry": entry.pk, "ids": ids, "names": payload.get("names", [])},
    )
    _entities_saved(ids)
    return payload


@transaction.atomic
def duplicate_undismiss(*, suggestion, actor):
    """Take back a dismissal: the pair waits in the queue again."""
    suggestion = DuplicateSuggestion.objects.select_for_update().get(pk=suggestion.pk)
    if suggestion.status != DuplicateSuggestion.Status.DISMISSED:
        raise Conflict(gettext_noop("this pair is not dismissed"), code="not_dismissed")
    suggestion.status = DuplicateSuggestion.Status.PENDING
    suggestion.decided_by, suggestion.decided_at = None, None
    suggestion.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
    audit(actor=actor, action="duplicate.undismiss", target=suggestion, payload={})
    return suggestion


def duplicate_reopened(*, suggestion) -> bool:
    """Whether the pair waits because its dismissal was just taken back (the last thing
    done to it): a second Undo of that dismissal asks for what is already so."""
    last = (
        AuditEntry.objects.filter(target_type="entities.duplicatesuggestion")
        .filter(target_id=str(suggestion.pk))
        .order_by("-id")
        .values_list("action", flat=True)
        .first()
    )
    pending = DuplicateSuggestion.objects.filter(
        pk=suggestion.pk, status=DuplicateSuggestion.Status.PENDING
    ).exists()
    return pending and last == "duplicate.undismiss"
