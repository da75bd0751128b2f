"""Facts: validation, store (with the duplicate guard), confirmation."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext_noop

from kgsite.errors import InvalidInput
from kgsite.models import audit
from kgsite.text import clean_display, has_control_chars, normalize, shows_nothing
from kgsite.vectors.service import embed_query

from .. import hooks
from ..models import (
    FACT_TEXT_HEAD,
    Entity,
    EntityFact,
    Fact,
    FactConfirmation,
)
from ..scopes import key_clean, scope_clean
from .merge import _stamp


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
    if not isinstance(text, str) or shows_nothing(text):  # a zero-width space shows nothing
        raise InvalidInput(gettext_noop("text must not be empty"), field="text")
    if has_control_chars(text):
        raise InvalidInput(gettext_noop("text contains control characters"), field="text")
    if len(text) > 10_000:
        raise InvalidInput(gettext_noop("text is longer than 10000 characters"), field="text")
    return clean_display(text)


def _validate_confidence(confidence: object) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not 0 <= confidence <= 1
    ):
        raise InvalidInput(gettext_noop("confidence must be between 0 and 1"), field="confidence")
    return float(confidence)


def _validate_period(valid_from: datetime | None, valid_to: datetime | None) -> None:
    if valid_from and valid_to and valid_to < valid_from:
        raise InvalidInput(gettext_noop("valid_to is before valid_from"), field="valid_to")


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
    predicate: str = "",
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
    predicate = _fact_column(predicate, "predicate")
    predicate_words_check(predicate)
    triple_check(
        subject=subject,
        predicate=predicate,
        object_entity=object_entity,
        object_value=object_value,
    )
    return display


def predicate_words_check(predicate: str) -> None:
    """A predicate names its relation in words: one of punctuation only ("->", "!!!")
    would state a triple no relation reads, so the graph would never show it (the
    TransE endpoints refuse it the same way)."""
    if predicate and not any(c.isalnum() for c in predicate):
        raise InvalidInput(gettext_noop("predicate has no words"), field="predicate")


def triple_check(
    *,
    subject: object,
    predicate: str,
    object_entity: object,
    object_value: str,
    blame: str = "subject",
) -> None:
    """A triple has one object, an entity or a literal value, and neither a predicate
    nor an object without a subject (``blame``: the field named when it is missing)."""
    if object_entity is not None and object_value:
        raise InvalidInput(
            gettext_noop("give an object entity or a value, not both"), field="object_value"
        )
    if (predicate or object_entity is not None or object_value) and subject is None:
        raise InvalidInput(gettext_noop("a triple needs a subject"), field=blame)


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
    if "entity_facts" in getattr(fact, "_prefetched_objects_cache", {}):
        links = [(link.entity_id, link.role) for link in fact.entity_facts.all()]
    else:
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
    """Link the named entities to a fact that may have links already (a confirmation);
    returns the links this call added, as [entity id, role]. An entity named twice keeps
    its first role. One read of the fact's links and one insert of the missing ones;
    should another writer link one of them meanwhile, each link is made apart."""
    roles = _roles(subject, object_entity, entities)
    linked = set(EntityFact.objects.filter(fact=fact).values_list("entity_id", flat=True))
    missing = {pk: role for pk, role in roles.items() if pk not in linked}
    if not missing:
        return []
    try:
        with transaction.atomic():
            EntityFact.objects.bulk_create(
                [EntityFact(fact=fact, entity_id=pk, role=role) for pk, role in missing.items()]
            )
    except IntegrityError:
        by_pk = {e.pk: e for e in (subject, object_entity, *entities) if e is not None}
        created = [
            [pk, role]
            for pk, role in missing.items()
            if fact_link(fact=fact, entity=by_pk[pk], role=role)[1]
        ]
        return created
    return [[pk, role] for pk, role in missing.items()]


def _roles(
    subject: Entity | None, object_entity: Entity | None, entities: Iterable[Entity]
) -> dict[str, str]:
    """Entity id -> the role of its first mention: subject, object, then mentions."""
    roles: dict[str, str] = {}
    if subject is not None:
        roles.setdefault(subject.pk, EntityFact.Role.SUBJECT)
    if object_entity is not None:
        roles.setdefault(object_entity.pk, EntityFact.Role.OBJECT)
    for entity in entities:
        roles.setdefault(entity.pk, EntityFact.Role.MENTION)
    return roles


def _link_new(
    fact: Fact, subject: Entity | None, object_entity: Entity | None, entities: Iterable[Entity]
) -> None:
    """Link a fact created in this transaction: no link can exist yet, so one INSERT for
    all (``_link_all`` spends a savepoint, a read and an insert per entity). An entity
    named twice keeps its first role, as there. The new links, with their entities, are
    remembered on ``fact`` as if prefetched: whoever shows it reads none of them back."""
    entities = list(entities)
    roles = _roles(subject, object_entity, entities)
    by_pk = {e.pk: e for e in (subject, object_entity, *entities) if e is not None}
    links = EntityFact.objects.bulk_create(
        [EntityFact(fact=fact, entity=by_pk[pk], role=role) for pk, role in roles.items()]
    )
    shown = fact.entity_facts.all()  # as prefetch_related leaves it: evaluated, no read
    shown._result_cache, shown._prefetch_done = links, True
    fact._prefetched_objects_cache = {"entity_facts": shown}


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
        predicate=predicate,
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
    ai_id = key_clean(ai_id, field="ai_id")
    session_id = key_clean(session_id, field="session_id")
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


def _same_text_lock(norm: str, *, scope: str, kind: str) -> None:
    """Writers of one text (in one scope and kind) take turns until they commit, so the
    second one sees the first's fact and confirms it. SQLite's write lock already does
    this (transactions begin IMMEDIATE); PostgreSQL's reads do not wait for a writer."""
    if connection.vendor == "postgresql":
        key = f"entities_fact:{scope}:{kind}:{norm[:FACT_TEXT_HEAD]}"
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [key])


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
    _same_text_lock(norm, scope=scope, kind=kinds.kind)
    duplicate = _exact_duplicate(display, norm, scope=scope, kind=kinds.kind, named=named)
    if duplicate is None and near is not None:
        duplicate = Fact.objects.filter(pk=near.pk, status=Fact.Status.ACTIVE).first()
    if duplicate is not None and duplicate.goal_status != kinds.goal_status:
        # A goal set again after it was done is a goal of its own: confirming the done one
        # dropped the status asked for, and session start showed no active goal.
        duplicate = None
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
        # Its confidence rose: the edge it supports weighs it anew (the text stays, so
        # the vector and full-text hooks leave a confirmation alone).
        hooks.fact_saved_fire(fact.id, "confirmed")
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
    _link_new(fact, subject, object_entity, entities)
    if getattr(actor, "is_authenticated", False):  # a person or a token, not a machine
        audit(actor=actor, action="fact.create", target=fact, payload={"text": display[:200]})
    hooks.fact_saved_fire(fact.id, "created")
    return FactStoreResult("created", fact)
