"""Reads over books, chunks and the mention index."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Case, Count, IntegerField, Min, QuerySet, Value, When

from entities.models import Alias, Entity
from entities.names import normalize_type
from kgsite.errors import InvalidInput, NotFound
from kgsite.text import normalize, shows_nothing
from kgsite.vectors.service import similar_items

from .excerpts import chunk_excerpt
from .models import Book, Chunk, IngestJob, Mention

# --- what other rooms ask of books ------------------------------------------------------


def entities_mentioned(entity_ids: list[str]) -> set[str]:
    """The ids among ``entity_ids`` that some chunk mentions (an ``entity_referrers``
    hook: garbage collection keeps them)."""
    return set(
        Mention.objects.filter(entity_id__in=entity_ids)
        .order_by()
        .values_list("entity_id", flat=True)
        .distinct()
    )


def chunk_links(entity_ids: list[str], per_entity: int) -> list[tuple[int, str, float, str]]:
    """Chunks naming these entities, defining chunks and frequent mentions first (a
    ``passage_links`` hook: the graph's PageRank walks through them)."""
    rows: list[tuple[int, str, float, str]] = []
    taken: dict[str, int] = defaultdict(int)
    mentions = (
        Mention.objects.filter(entity_id__in=entity_ids)
        .order_by("entity_id", "mention_type", "-count", "chunk_id")
        .values_list(
            "chunk_id", "entity_id", "mention_type", "count", "book__title", "chunk__ordinal"
        )
    )
    for chunk_id, entity_id, mention_type, count, title, ordinal in mentions.iterator():
        if taken[entity_id] >= per_entity:
            continue
        taken[entity_id] += 1
        weight = (2.0 if mention_type == Mention.Type.DEFINES else 1.0) * math.log1p(count)
        rows.append((chunk_id, entity_id, weight, f"{title} #{ordinal}"))
    return rows


# --- books and jobs --------------------------------------------------------------------


def book_list() -> QuerySet[Book]:
    return Book.objects.all()


def book_get(*, book_id: int) -> Book:
    book = Book.objects.filter(pk=book_id).first()
    if book is None:
        raise NotFound(f"No book {book_id}.", field="book_id")
    return book


def job_get(*, job_id: int) -> IngestJob:
    job = IngestJob.objects.filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"No ingest job {job_id}.", field="job_id")
    return job


def job_list() -> QuerySet[IngestJob]:
    return IngestJob.objects.all()


def chunk_get(*, chunk_id: int) -> Chunk:
    chunk = Chunk.objects.select_related("book").filter(pk=chunk_id).first()
    if chunk is None:
        raise NotFound(f"No chunk {chunk_id}.", field="chunk_id")
    return chunk


def book_chunks(*, book_id: int) -> QuerySet[Chunk]:
    """A book's chunks in reading order."""
    return Chunk.objects.filter(book_id=book_id).order_by("ordinal")


# --- semantic search over chunks ---------------------------------------------------------


@dataclass(frozen=True)
class ChunkHit:
    chunk: Chunk
    score: float

    @property
    def excerpt(self) -> str:
        return chunk_excerpt(self.chunk.text)


def chunk_search(*, q: str, k: int = 10, book_id: int | None = None) -> list[ChunkHit]:
    """Chunks closest in meaning to ``q`` (cosine, best first), optionally in one book.

    Reads the "chunks" kind of the semantic index, which the ingest fills; an empty
    store (or a book without chunks) gives no hits.
    """
    if not isinstance(q, str) or shows_nothing(q):  # zero-width characters read as blank
        raise InvalidInput("q must not be empty", field="q")
    if k < 1:
        raise InvalidInput("k must be positive", field="k")
    filter_ids = None
    if book_id is not None:
        filter_ids = list(Chunk.objects.filter(book_id=book_id).values_list("pk", flat=True))
        if not filter_ids:
            return []
    hits = similar_items("chunks", q, k, filter_ids=filter_ids)
    chunks = Chunk.objects.select_related("book").in_bulk([int(key) for key, _s in hits])
    return [
        ChunkHit(chunks[int(key)], round(float(score), 4))
        for key, score in hits
        if int(key) in chunks
    ]


# --- the mention index -----------------------------------------------------------------

_DEFINES_FIRST = Case(
    When(mention_type=Mention.Type.DEFINES, then=Value(0)),
    default=Value(1),
    output_field=IntegerField(),
)


def entity_mentions(
    *, entity: Entity, book_id: int | None = None, mention_type: str | None = None
) -> QuerySet[Mention]:
    """Every mention of ``entity``, defining chunks first, then by book and position."""
    if mention_type is not None and mention_type not in Mention.Type.values:
        raise InvalidInput(
            f"mention_type must be one of {', '.join(Mention.Type.values)}",
            field="mention_type",
        )
    qs = Mention.objects.filter(entity=entity)
    if book_id is not None:
        qs = qs.filter(book_id=book_id)
    if mention_type is not None:
        qs = qs.filter(mention_type=mention_type)
    # "defines" < "references" alphabetically, so the index order already puts
    # definitions first; the explicit CASE keeps that true whatever the labels.
    return (
        qs.select_related("book", "chunk")
        .annotate(_rank=_DEFINES_FIRST)
        .order_by("_rank", "book_id", "start", "pk")
    )


@dataclass(frozen=True)
class BookMentions:
    book: Book
    mentions: int
    defines: int
    first_start: int


def entity_books(*, entity: Entity) -> list[BookMentions]:
    """The books that mention ``entity``: defining books first, then by mention count.

    One query: the books joined to the entity's mentions (the ``(entity, book)`` index),
    grouped per book.
    """
    books = (
        Book.objects.filter(mentions__entity=entity)
        .annotate(
            n_mentions=Count("mentions"),
            n_defines=Count(Case(When(mentions__mention_type=Mention.Type.DEFINES, then=Value(1)))),
            first_start=Min("mentions__start"),
        )
        .order_by("-n_defines", "-n_mentions", "title_norm", "pk")
    )
    return [BookMentions(b, b.n_mentions, b.n_defines, b.first_start) for b in books]


MENTIONS_PER_BOOK = 20


def entity_mention_groups(entity_id: str) -> list[dict]:
    """The entity page's mentions (a ``mention_reader`` hook): grouped by book, books
    with a defining chunk first, and within a book defining chunks first, then in
    reading order; at most ``MENTIONS_PER_BOOK`` per book (``count`` says how many)."""
    entity = Entity(pk=entity_id)
    groups = []
    for found in entity_books(entity=entity):
        rows = entity_mentions(entity=entity, book_id=found.book.pk)[:MENTIONS_PER_BOOK]
        groups.append(
            {
                "book_id": found.book.pk,
                "title": found.book.title,
                "count": found.mentions,
                "defines": found.defines,
                "mentions": [
                    {
                        "chunk_id": m.chunk_id,
                        "ordinal": m.chunk.ordinal,
                        "heading": m.chunk.heading,
                        "mention_type": m.mention_type,
                        "surface": m.surface,
                        "context": m.context,
                    }
                    for m in rows
                ],
            }
        )
    return groups


def book_mentions(*, book_id: int) -> QuerySet[Mention]:
    """Every mention in one book, in reading order (the ``(book, entity)`` index)."""
    return Mention.objects.filter(book_id=book_id).order_by("start", "pk")


@dataclass(frozen=True)
class RelatedChunk:
    chunk: Chunk
    score: float
    shared: list[Entity]


# Entities considered per source chunk: the most specific ones (fewest chunks).
RELATED_ENTITY_LIMIT = 25


def chunk_related(*, chunk: Chunk, limit: int = 10) -> list[RelatedChunk]:
    """Chunks of other books that mention this chunk's entities, best first.

    Each shared entity adds an IDF-like weight (rare entities say more than ones named
    everywhere), doubled where the other chunk defines it; the cross-book hop of
    multi-hop retrieval.
    """
    if limit < 1:
        raise InvalidInput("limit must be positive", field="limit")
    entity_ids = list(
        Mention.objects.filter(chunk=chunk).values_list("entity_id", flat=True).distinct()
    )
    if not entity_ids:
        return []
    frequency = dict(
        Mention.objects.filter(entity_id__in=entity_ids)
        .order_by()
        .values("entity_id")
        .annotate(n=Count("pk"))
        .values_list("entity_id", "n")
    )
    chosen = sorted(entity_ids, key=lambda e: (frequency.get(e, 0), e))[:RELATED_ENTITY_LIMIT]
    scores: dict[int, float] = defaultdict(float)
    shared: dict[int, list[str]] = defaultdict(list)
    others = (
        Mention.objects.filter(entity_id__in=chosen)
        .exclude(book_id=chunk.book_id)
        .values_list("chunk_id", "entity_id", "mention_type", "count")
    )
    for other_chunk, entity_id, mention_type, count in others.iterator(chunk_size=5000):
        weight = 1.0 / math.log(2 + frequency.get(entity_id, 1))
        if mention_type == Mention.Type.DEFINES:
            weight *= 2
        scores[other_chunk] += weight * (1 + math.log(max(1, count)) / 4)
        shared[other_chunk].append(entity_id)
    best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    chunks = Chunk.objects.select_related("book").in_bulk([pk for pk, _s in best])
    entities = Entity.objects.in_bulk({e for pk, _s in best for e in shared[pk]})
    return [
        RelatedChunk(
            chunk=chunks[pk],
            score=round(score, 4),
            shared=[entities[e] for e in shared[pk] if e in entities],
        )
        for pk, score in best
        if pk in chunks
    ]


# --- evaluation ------------------------------------------------------------------------


@dataclass
class DefinesEvaluation:
    rows: int
    found: int  # the defining chunk is marked "defines"
    claimed: int  # rows whose entity is marked "defines" somewhere
    precise: int  # ... and only in the defining chunk(s)
    misses: list[str]
    extras: list[str]

    @property
    def recall(self) -> float:
        return self.found / self.rows if self.rows else 0.0

    @property
    def precision(self) -> float:
        return self.precise / self.claimed if self.claimed else 0.0


def _where(mention: Mention) -> str:
    kind = mention.entity.type if mention.entity_id else ""
    return f"{mention.book.source_name} > {' > '.join(mention.chunk.heading_path[-2:])}" + (
        f" [{kind}]" if kind else ""
    )


def _heading_norm(heading: str) -> str:
    return normalize(heading.replace("\u2019", "'"))


def _is_expected_chunk(mention: Mention, *, defining_file: str, heading: str, name: str) -> bool:
    """Whether a defines mark sits in the row's defining chunk.

    The chunk's own heading (the last of its path) must equal the expected heading.
    One allowance: when the expected heading is not the entity's own name it is a
    catalogue section ("Armor", "Sample Poisons"), and a table or entry list of that
    section may sit in one of its sub-sections ("Armor > Heavy Armor"), so a chunk
    below that heading counts too. An item with its own heading ("Aboleth") must be
    defined by exactly that heading's chunk, not by "Aboleth > Legendary Actions".
    """
    if mention.book.source_name != defining_file:
        return False
    path = [_heading_norm(h) for h in mention.chunk.heading_path]
    if path and path[-1] == heading:
        return True
    return heading != _heading_norm(name) and heading in path[:-1]


def defines_evaluate(*, rows: Iterable[dict[str, str]]) -> DefinesEvaluation:
    """Score the mention index against rows of (entity_name, entity_type,
    defining_file, defining_heading).

    Recall: a chunk of the book ingested from ``defining_file`` whose own heading is
    ``defining_heading`` (case and spacing aside; below it when that heading is a
    catalogue section rather than the entity's name) marks the entity (its name or an
    alias, of the row's type) ``defines``.

    Precision, over the rows whose name is marked ``defines`` anywhere: the row is
    precise when every such mark is in an expected chunk. Marks on entities of the
    row's type count, and so do marks on a same-named entity of another type in the
    same file: one chapter defines a name once, so a second type there is a mistyped
    duplicate. A same-named entity of another type defined in another file is a
    homonym (the Shield spell is not the Shield armour) and does not count.
    """
    result = DefinesEvaluation(0, 0, 0, 0, [], [])
    for row in rows:
        result.rows += 1
        name, entity_type = row["entity_name"], normalize_type(row["entity_type"])
        defining_file = row["defining_file"]
        norm = normalize(name)
        heading = _heading_norm(row["defining_heading"])
        types = dict(Entity.objects.filter(name_norm=norm).values_list("pk", "type"))
        types.update(Alias.objects.filter(alias_norm=norm).values_list("entity_id", "type"))
        marks = list(
            Mention.objects.filter(entity_id__in=list(types), mention_type=Mention.Type.DEFINES)
            .select_related("book", "chunk", "entity")
            .order_by("book_id", "start")
        )
        typed = [m for m in marks if types[m.entity_id] == entity_type]
        homonyms = [
            m
            for m in marks
            if types[m.entity_id] != entity_type and m.book.source_name == defining_file
        ]
        right = [
            m
            for m in typed
            if _is_expected_chunk(m, defining_file=defining_file, heading=heading, name=name)
        ]
        label = f"{name!r} ({entity_type})"
        if right:
            result.found += 1
        else:
            where = "; ".join(_where(m) for m in typed) or "nowhere"
            result.misses.append(
                f"MISS {label}: expected in {defining_file} under "
                f"{row['defining_heading']!r}; defined {where}"
            )
        counted = typed + homonyms
        if counted:
            result.claimed += 1
            wrong = [m for m in counted if m not in right]
            if right and not wrong:
                result.precise += 1
            elif wrong:
                where = "; ".join(_where(m) for m in wrong)
                result.extras.append(f"EXTRA {label}: also defined in {where}")
    return result
