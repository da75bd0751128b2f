"""Writing a book's chunks, mentions and entities in one transaction, and its vectors after."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from entities.models import Entity
from entities.names import normalize_type, validate_name
from entities.selectors import entity_redirect_target
from entities.services import (
    EntityDraft,
    entities_candidates_confirm,
    entities_candidates_mark,
    entities_ensure,
    entity_gc,
)
from kgsite.errors import InvalidInput
from kgsite.text import normalize
from kgsite.vectors.index import KINDS
from kgsite.vectors.service import vector_delete, vector_index, vector_upsert

from ..chunking import ChunkDraft, sentence_spans
from ..excerpts import context_excerpt
from ..extraction.base import (
    DEFINES,
    NEW_PREFIX,
    BookLexicon,
    FoundMention,
)
from ..models import Book, Chunk, IngestJob, Mention
from .lexicon import _new_id

logger = logging.getLogger(__name__)

# progress(phase, done, total)
PhaseProgress = Callable[[str, int, int], None]

WRITE_BATCH = 1000
EMBED_BATCH = 256


@dataclass
class IngestResult:
    book: Book
    action: str  # "created" | "replaced" | "unchanged"
    chunks: int = 0
    mentions: int = 0
    defines: int = 0
    entities_created: int = 0
    entities_removed: int = 0
    words: int = 0
    warnings: list[dict] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "book_id": self.book.pk,
            "title": self.book.title,
            "action": self.action,
            "chunks": self.chunks,
            "mentions": self.mentions,
            "defines": self.defines,
            "entities_created": self.entities_created,
            "entities_removed": self.entities_removed,
            "words": self.words,
            "warnings": len(self.warnings),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


# --- progress --------------------------------------------------------------------------


class _Reporter:
    """Fans progress out to the job row (one UPDATE per batch) and a caller's callback."""

    def __init__(self, job: IngestJob | None, progress: PhaseProgress | None) -> None:
        self.job = job
        self.progress = progress

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self.job is not None:
            IngestJob.objects.filter(pk=self.job.pk).update(
                phase=phase, done=done, total=total, updated_at=timezone.now()
            )
            self.job.phase, self.job.done, self.job.total = phase, done, total
        if self.progress is not None:
            self.progress(phase, done, total)


# --- writing ---------------------------------------------------------------------------


def _entities_for(found: Iterable[FoundMention], lexicon: BookLexicon, *, source: str):
    """Ask the entity graph for the entities the new mentions name (created in bulk when
    missing, with the aliases the structure read for their definitions)."""
    aliases: dict[tuple[str, str], tuple[str, ...]] = {}
    for entities in lexicon.definitions:
        for entity in entities:
            try:
                key = (normalize(validate_name(entity.name)), normalize_type(entity.type))
            except InvalidInput:
                continue
            aliases[key] = aliases.get(key, ()) + tuple(entity.aliases)
    drafts: dict[tuple[str, str], EntityDraft] = {}
    for mention in found:
        if mention.entity_id and not mention.entity_id.startswith(NEW_PREFIX):
            continue
        try:
            display = validate_name(mention.name)
            entity_type = normalize_type(mention.entity_type)
        except InvalidInput:
            continue
        key = (normalize(display), entity_type)
        if key not in drafts:
            drafts[key] = EntityDraft(display, entity_type, aliases.get(key, ()))
    return entities_ensure(drafts=drafts.values(), source=source, renew=lexicon.renew)


def _candidates_record(
    *,
    book: Book,
    new_ids: dict[tuple[str, str], str],
    created: list[str],
    lexicon: BookLexicon,
    found: list[list[FoundMention]],
) -> None:
    """Entities this ingest created on its own are candidates, with their evidence and
    the aliases the text gave them; a candidate another book proposes again is
    confirmed. The entity graph writes both (``entities.services``)."""
    chunks_of: dict[str, int] = {}
    for mentions in found:
        for m in mentions:
            chunks_of[m.entity_id or ""] = chunks_of.get(m.entity_id or "", 0) + 1
    created_set = set(created)
    evidence: dict[str, int] = {}
    aliases: dict[str, list[str]] = {}
    for key, pk in new_ids.items():
        if pk not in created_set:
            continue
        score, forms = lexicon.candidates.get(key, (0, ()))
        evidence[pk] = max(score, chunks_of.get(_new_id(*key), 0), 1)
        aliases[pk] = [form for form in forms if normalize(form) not in ("", key[0])]
    source = f"book:{book.pk}"
    entities_candidates_mark(evidence=evidence, aliases=aliases, source=source)
    # Stored entities this book proposes again on its own evidence.
    norms = sorted({norm for norm, _t in lexicon.candidates})
    proposed: list[str] = []
    for start in range(0, len(norms), 500):
        rows = Entity.objects.filter(
            name_norm__in=norms[start : start + 500], candidate=True
        ).values_list("pk", "name_norm", "type")
        proposed += [
            pk
            for pk, norm, entity_type in rows
            if (norm, entity_type) in lexicon.candidates and pk not in created_set
        ]
    if proposed:
        elsewhere = (
            Mention.objects.filter(entity_id__in=proposed)
            .exclude(book=book)
            .values_list("entity_id", flat=True)
        )
        entities_candidates_confirm(entity_ids=set(elsewhere), source=source)


def _book_entity_ids(book: Book) -> set[str]:
    """The entities a book mentions (no ordering: only the set is wanted)."""
    return set(
        Mention.objects.filter(book=book).order_by().values_list("entity_id", flat=True).distinct()
    )


def _book_row(
    *, title: str, author: str, filename: str, fmt: str, digest: str, extractor: str, text: str
) -> tuple[Book, str, set[str]]:
    """The book's row, created or emptied for a new version (its chunks and mentions
    go); returns it, "created" or "replaced", and the entities the old version named."""
    title_norm = normalize(title)
    book = Book.objects.select_for_update().filter(title_norm=title_norm).first()
    action = "replaced" if book is not None else "created"
    previous: set[str] = set()
    if book is None:
        book = Book.objects.create(title=title, title_norm=title_norm, format=fmt)
    else:
        previous = _book_entity_ids(book)
        old_chunks = list(Chunk.objects.filter(book=book).values_list("pk", flat=True))
        Mention.objects.filter(book=book).delete()  # no cascades: one DELETE
        Chunk.objects.filter(book=book).delete()
        transaction.on_commit(lambda ids=old_chunks: _chunks_unindex(ids))
    book.title = title
    book.author = author
    book.source_name = filename
    book.content_hash = digest
    book.format = fmt
    book.extractor = extractor
    book.status = Book.Status.READY
    book.embedded = False  # until every chunk of this version has its vector
    book.char_count = len(text)
    book.word_count = len(text.split())
    book.ingested_at = timezone.now()
    return book, action, previous


def _chunk_rows(book: Book, chunks: Sequence[ChunkDraft]) -> list[Chunk]:
    rows = Chunk.objects.bulk_create(
        [
            Chunk(
                book=book,
                ordinal=c.ordinal,
                heading_path=list(c.heading_path),
                text=c.text,
                start=c.start,
                end=c.end,
            )
            for c in chunks
        ],
        batch_size=WRITE_BATCH,
    )
    if any(r.pk is None for r in rows):  # backends without RETURNING
        ids = dict(Chunk.objects.filter(book=book).values_list("ordinal", "pk"))
        for r in rows:
            r.pk = ids[r.ordinal]
    return rows


def _mention_entity(m: FoundMention, new_ids: dict[tuple[str, str], str]) -> str | None:
    """The stored entity a found mention names (new names through the ensured ids)."""
    if m.entity_id and not m.entity_id.startswith(NEW_PREFIX):
        return m.entity_id
    try:
        key = (normalize(validate_name(m.name)), normalize_type(m.entity_type))
    except InvalidInput:
        return None
    return new_ids.get(key)


def _chunk_mentions(
    book: Book, chunk: ChunkDraft, row: Chunk, found: list[FoundMention], new_ids
) -> list[Mention]:
    """One mention row per entity the chunk names (its first occurrence)."""
    mentions: list[Mention] = []
    seen: set[str] = set()
    spans = sentence_spans(chunk.text) if found else []
    for m in found:
        entity_id = _mention_entity(m, new_ids)
        if entity_id is None or entity_id in seen:
            continue
        seen.add(entity_id)
        start = max(0, min(m.start, len(chunk.text)))
        end = max(start, min(m.end, len(chunk.text)))
        mentions.append(
            Mention(
                entity_id=entity_id,
                book=book,
                chunk_id=row.pk,
                mention_type=m.mention_type,
                surface=chunk.text[start:end][:512],
                start=chunk.start + start,
                end=chunk.start + end,
                count=max(1, m.count),
                context=context_excerpt(chunk.text, start, end, spans=spans),
            )
        )
    return mentions


@transaction.atomic
def _book_write(
    *,
    title: str,
    author: str,
    filename: str,
    fmt: str,
    digest: str,
    extractor: str,
    text: str,
    chunks: Sequence[ChunkDraft],
    found: list[list[FoundMention]],
    lexicon: BookLexicon,
    report: _Reporter,
) -> tuple[Book, str, dict]:
    book, action, previous = _book_row(
        title=title,
        author=author,
        filename=filename,
        fmt=fmt,
        digest=digest,
        extractor=extractor,
        text=text,
    )
    book.chunk_count = len(chunks)
    book.save()
    rows = _chunk_rows(book, chunks)
    ensured = _entities_for((m for ms in found for m in ms), lexicon, source=f"book:{book.pk}")
    # An entity only the previous version made is marked as a first ingest marks it.
    made = ensured.created + ensured.renewed
    _candidates_record(book=book, new_ids=ensured.ids, created=made, lexicon=lexicon, found=found)
    mentions: list[Mention] = []
    for index, (chunk, row) in enumerate(zip(chunks, rows, strict=True)):
        mentions += _chunk_mentions(book, chunk, row, found[index], ensured.ids)
        if (index + 1) % WRITE_BATCH == 0:
            report("write", index + 1, len(chunks))
    mentions = _entities_as_stored(mentions)
    Mention.objects.bulk_create(mentions, batch_size=WRITE_BATCH)
    report("write", len(chunks), len(chunks))
    stale = previous - {m.entity_id for m in mentions}
    removed = entity_gc(entity_ids=stale, source=f"book:{book.pk}") if stale else []
    stats = {
        "mentions": len(mentions),
        "defines": sum(m.mention_type == DEFINES for m in mentions),
        "entities_created": len(ensured.created),
        "entities_removed": len(removed),
        "chunk_ids": [r.pk for r in rows],
    }
    return book, action, stats


def _entities_as_stored(mentions: list[Mention]) -> list[Mention]:
    """The mentions with their entities as stored now. Extraction takes minutes on a big
    book, and a curator may merge or delete an entity it found meanwhile: its mentions
    follow a merge to the survivor (one per chunk), a deleted entity's go."""
    ids = sorted({m.entity_id for m in mentions})
    present: set[str] = set()
    for start in range(0, len(ids), WRITE_BATCH):
        batch = ids[start : start + WRITE_BATCH]
        present.update(Entity.objects.filter(pk__in=batch).values_list("pk", flat=True))
    if len(present) == len(ids):
        return mentions
    targets = {old: entity_redirect_target(entity_id=old) for old in set(ids) - present}
    alive = Entity.objects.filter(pk__in=[t for t in targets.values() if t])
    alive_ids = set(alive.values_list("pk", flat=True))
    moved = {old: target if target in alive_ids else None for old, target in targets.items()}
    kept: dict[tuple[int, str], Mention] = {}
    for mention in mentions:
        entity_id = moved.get(mention.entity_id, mention.entity_id)
        if entity_id is None:
            continue
        if (same := kept.get((mention.chunk_id, entity_id))) is not None:
            same.count += mention.count
            continue
        mention.entity_id = entity_id
        kept[(mention.chunk_id, entity_id)] = mention
    return list(kept.values())


# --- vector index ----------------------------------------------------------------------


def _search_available() -> bool:
    return "chunks" in KINDS


def chunks_embed(*, chunk_ids: Sequence[int], progress: Callable[[int], None] | None = None) -> int:
    """Index chunks for semantic search in batches (the embedder batches within)."""
    if not chunk_ids or not _search_available():
        return 0
    changed = 0
    for start in range(0, len(chunk_ids), EMBED_BATCH):
        changed += vector_upsert("chunks", list(chunk_ids[start : start + EMBED_BATCH]))
        if progress is not None:
            progress(min(len(chunk_ids), start + EMBED_BATCH))
    return changed


def _embed_missing(book: Book, report: _Reporter) -> int:
    """Embed the chunks of a written book that have no vector yet (idempotent)."""
    chunk_ids = list(
        Chunk.objects.filter(book=book).order_by("ordinal").values_list("pk", flat=True)
    )
    missing = chunk_ids
    if _search_available():
        index = vector_index("chunks")
        index.refresh()  # what other processes (the dead worker) wrote before
        missing = [pk for pk in chunk_ids if pk not in index]
    report("embed", len(chunk_ids) - len(missing), len(chunk_ids))
    done_before = len(chunk_ids) - len(missing)
    chunks_embed(
        chunk_ids=missing,
        progress=lambda done: report("embed", done_before + done, len(chunk_ids)),
    )
    Book.objects.filter(pk=book.pk).update(embedded=True)
    return len(missing)


def books_missing_vectors() -> bool:
    """Whether a ready book still has chunks waiting for their vectors."""
    return Book.objects.filter(status=Book.Status.READY, embedded=False).exists()


def _chunks_unindex(chunk_ids: Sequence[int]) -> None:
    if not chunk_ids or not _search_available():
        return
    try:
        vector_delete("chunks", list(chunk_ids))
    except Exception:  # search drops vanished rows itself; this only frees slots sooner
        logger.exception("could not remove chunks from the vector index")
