"""The review queue of extraction's candidate entities: what a book proposed and no
curator confirmed yet, with the evidence (mentions and their contexts) beside each, and
the curator's decisions on them in bulk: accept, retype, merge into an existing entity,
reject (with undo, mentions included)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Count, QuerySet
from django.utils.translation import gettext_noop

from entities import curation
from entities.models import Entity
from entities.services import entities_candidates_confirm, entity_merge, entity_update
from kgsite.errors import Conflict, InvalidInput, Wording
from kgsite.models import AuditEntry

from .models import Book, Chunk, Mention

EVIDENCE_PER_CANDIDATE = 3
_MENTION_FIELDS = (
    "id",
    "entity_id",
    "book_id",
    "chunk_id",
    "mention_type",
    "surface",
    "start",
    "end",
    "count",
    "context",
)


def candidates_pending(*, book_id: int | None = None, type: str = "") -> QuerySet[Entity]:  # noqa: A002
    """Candidates waiting for a curator, those with the most evidence first; narrowed to
    one book's and one type's when asked."""
    qs = Entity.objects.filter(candidate=True)
    if book_id is not None:
        qs = qs.filter(mentions__book_id=book_id)
    if type:
        qs = qs.filter(type=type)
    return qs.annotate(mention_count=Count("mentions", distinct=True)).order_by(
        "-evidence", "-mention_count", "name_norm"
    )


def candidate_types() -> list[str]:
    return list(
        Entity.objects.filter(candidate=True)
        .order_by("type")
        .values_list("type", flat=True)
        .distinct()
    )


def candidate_books() -> list[Book]:
    """Books that proposed a candidate still waiting."""
    ids = Mention.objects.filter(entity__candidate=True).values("book_id").distinct()
    return list(Book.objects.filter(pk__in=ids).order_by("title_norm"))


def candidates_evidence(entity_ids: list[str]) -> dict[str, list[Mention]]:
    """A few mentions of each candidate (defining ones first) with their contexts."""
    found: dict[str, list[Mention]] = defaultdict(list)
    mentions = (
        Mention.objects.filter(entity_id__in=entity_ids)
        .select_related("chunk", "book")
        .order_by("entity_id", "mention_type", "-count", "chunk_id")
    )
    for mention in mentions:
        if len(found[mention.entity_id]) < EVIDENCE_PER_CANDIDATE:
            found[mention.entity_id].append(mention)
    return found


def _ids(entity_ids: Iterable[str]) -> list[str]:
    ids = sorted({i for i in entity_ids if i})
    if not ids:
        raise InvalidInput(gettext_noop("choose at least one candidate"), field="ids")
    if any("\x00" in i for i in ids):  # no id holds one (PostgreSQL refuses to look it up)
        raise InvalidInput(gettext_noop("an id contains a NUL character"), field="ids")
    return ids


def candidates_accept(*, entity_ids: Iterable[str], actor) -> int:
    return entities_candidates_confirm(
        entity_ids=_ids(entity_ids), source="curator", actor=actor, curated=True
    )


@transaction.atomic
def candidates_retype(*, entity_ids: Iterable[str], type: str, actor) -> int:  # noqa: A002
    """Give candidates the right type (which also confirms them), each with its audit row."""
    if not (type or "").strip():
        raise InvalidInput(gettext_noop("choose the type to give them"), field="type")
    entities = list(Entity.objects.filter(pk__in=_ids(entity_ids), candidate=True))
    for entity in entities:
        entity_update(entity=entity, actor=actor, type=type)
    return len(entities)


def candidates_merge(*, entity_ids: Iterable[str], target: str, actor):
    """Merge candidates into the existing entity a curator names (any type: the type
    was extraction's guess); undone like any merge."""
    survivor = curation.entity_by_name(name=target, field="target")
    ids = [i for i in _ids(entity_ids) if i != survivor.pk]
    duplicates = list(Entity.objects.filter(pk__in=ids, candidate=True))
    if not duplicates:
        raise InvalidInput(gettext_noop("choose candidates other than the target"), field="ids")
    return entity_merge(
        survivor=survivor, duplicates=duplicates, actor=actor, allow_cross_type=True
    )


@transaction.atomic
def candidates_reject(*, entity_ids: Iterable[str], actor) -> AuditEntry:
    """Delete rejected candidates with their mentions; the audit row keeps both, so the
    rejection can be undone exactly."""
    ids = _ids(entity_ids)
    mentions = list(
        Mention.objects.filter(entity_id__in=ids).order_by("pk").values(*_MENTION_FIELDS)
    )
    return curation.entities_reject(entity_ids=ids, actor=actor, extra={"mentions": mentions})


@transaction.atomic
def candidates_reject_undo(*, entry: AuditEntry, actor) -> list[str]:
    """Bring rejected candidates back, and their mentions in chunks that still exist.

    Refused when a candidate's book was deleted or re-ingested since: it would come back
    mentioned nowhere, an entity the book's deletion would have collected."""
    if problems := _books_gone(entry):
        raise Conflict(
            gettext_noop("cannot bring them back: %(problem)s"),
            params={"problem": problems[0]},
            code="undo_refused",
        )
    payload = curation.entities_reject_undo(entry=entry, actor=actor)
    rows = payload.get("mentions", [])
    chunks = _chunks_there(rows)
    Mention.objects.bulk_create(
        [Mention(**row) for row in rows if row["chunk_id"] in chunks], ignore_conflicts=True
    )
    return [row["id"] for row in payload["entities"]]


def _chunks_there(rows: list[dict]) -> set[int]:
    return set(
        Chunk.objects.filter(pk__in=[r["chunk_id"] for r in rows]).values_list("pk", flat=True)
    )


def _books_gone(entry: AuditEntry) -> list[Wording]:
    """The rejected candidates whose every mention was in chunks that are gone."""
    rows = entry.payload.get("mentions", [])
    chunks = _chunks_there(rows)
    kept = {row["entity_id"] for row in rows if row["chunk_id"] in chunks}
    had = {row["entity_id"] for row in rows}
    return [
        Wording(
            gettext_noop("the book that proposed '%(name)s' was deleted or re-ingested since"),
            {"name": row["canonical_name"]},
        )
        for row in entry.payload.get("entities", [])
        if row["id"] in had and row["id"] not in kept
    ]


def candidates_reject_undoable(entry: AuditEntry) -> bool:
    return not curation.entities_reject_problems(entry=entry) and not _books_gone(entry)


def candidate_count() -> int:
    return Entity.objects.filter(candidate=True).count()
