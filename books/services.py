"""Book ingestion and deletion: parse, chunk, extract, write in one transaction, embed.

Phases (each reported as done/total chunks to the job and to ``progress``):

* parse: decode and outline the file, split it into chunks (no database);
* extract: structural definitions, gazetteer and NER (or the LLM) per chunk;
* write: one transaction replaces the book's chunks and mentions, creating the
  entities the book introduces in bulk;
* embed: after commit, chunks are indexed for semantic search in batches.

Everything before "write" leaves the database untouched, so a failure there leaves
the previous version of the book (if any) as it was.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from django_q import tasks as queue
from django_q.models import Schedule

from entities.extraction import Gazetteer, GazetteerEntry
from entities.models import Alias, Entity
from entities.names import normalize_type, validate_name
from entities.services import (
    EntityDraft,
    entities_candidates_confirm,
    entities_candidates_mark,
    entities_ensure,
    entity_gc,
)
from kgsite.errors import Conflict, DomainError, InvalidInput, NotFound
from kgsite.models import audit
from kgsite.text import clean_display, normalize
from kgsite.vectors.index import KINDS
from kgsite.vectors.service import vector_delete, vector_index, vector_upsert
from notifications.services import notification_create, notification_mark_read_by_key

from .chunking import ChunkDraft, chunk_sections, sentence_spans
from .excerpts import context_excerpt
from .extraction.base import (
    DEFINES,
    NEW_PREFIX,
    BookLexicon,
    Extractor,
    FoundMention,
)
from .extraction.candidates import candidates_merge
from .extraction.registry import get_extractor
from .extraction.structure import KnownName, defined_entities, resolve_definitions
from .models import Book, Chunk, IngestJob, Mention
from .parsing import ParsedDocument, detect_format, parse_document, pdf_check

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


# --- input -----------------------------------------------------------------------------


def _read_source(path: str | Path | None, data: bytes | None, filename: str) -> tuple[bytes, str]:
    if data is not None:
        if not filename:
            raise InvalidInput("A file name is needed to tell the format.", field="file")
        return data, filename
    if path is None:
        raise InvalidInput("Give a file to ingest.", field="file")
    source = Path(path)
    if not source.is_file():
        raise InvalidInput(f"No such file: {source}", field="path")
    return source.read_bytes(), filename or source.name


def _parse_chunks(raw: bytes, fmt: str) -> tuple[ParsedDocument, list[ChunkDraft]]:
    document = parse_document(raw, fmt=fmt)
    chunks = chunk_sections(document.sections, max_chars=int(settings.KGSITE_CHUNK_MAX_CHARS))
    if not chunks:
        raise InvalidInput("The uploaded document is empty.", field="file")
    return document, chunks


@dataclass(frozen=True)
class _Checked:
    """What ``_ingest_check`` learnt; a text format's parse is kept for an inline ingest."""

    fmt: str
    extractor: Extractor
    parsed: tuple[ParsedDocument, list[ChunkDraft]] | None = None
    parse_seconds: float = 0.0


def _ingest_check(
    *, raw: bytes, filename: str, title: str | None, extractor: str | None
) -> _Checked:
    """Fail now, before a job is queued or recorded, on what the ingest would refuse:
    an unknown format or extractor, a bad title, or a file holding nothing to ingest
    (an empty or marker-only text, a broken PDF, a PDF without a text layer).

    Text formats are parsed and chunked (cheap); a PDF is read to its first text page.
    """
    fmt = detect_format(filename)
    chosen = get_extractor(extractor)
    if title:
        _validate_title(title)
    if fmt == "pdf":
        pdf_check(raw)
        return _Checked(fmt=fmt, extractor=chosen)
    started = time.perf_counter()
    parsed = _parse_chunks(raw, fmt)
    return _Checked(
        fmt=fmt, extractor=chosen, parsed=parsed, parse_seconds=time.perf_counter() - started
    )


def title_from_filename(filename: str) -> str:
    """ "11-spells.md" → "11-spells": the file's stem, tidied."""
    stem = Path(filename).stem
    return clean_display(stem.replace("_", " ")) or filename


def _validate_title(title: str) -> str:
    if not isinstance(title, str) or not clean_display(title):
        raise InvalidInput("title must not be empty", field="title")
    display = clean_display(title)
    if len(display) > 512:
        raise InvalidInput("title is longer than 512 characters", field="title")
    return display


# --- lexicon ---------------------------------------------------------------------------


def _new_id(norm: str, entity_type: str) -> str:
    return f"{NEW_PREFIX}{entity_type}:{norm}"


def _lexicon(chunks: Sequence[ChunkDraft], document_text: str, title_norm: str) -> BookLexicon:
    """Stored names plus what the book's structure defines, in one private gazetteer.

    The structure sees the whole document (a table split across chunks keeps its
    header and group rows) and the stored names (a heading naming a known entity
    defines it).
    """
    gazetteer = Gazetteer.from_db()
    # Entities another book defines: one query, then a set lookup per name.
    defined_elsewhere = set(
        Mention.objects.filter(mention_type=Mention.Type.DEFINES)
        .exclude(book__title_norm=title_norm)
        .order_by()
        .values_list("entity_id", flat=True)
        .distinct()
    )
    memo: dict[str, list[KnownName]] = {}

    def known(name: str) -> list[KnownName]:
        if name not in memo:
            memo[name] = [
                KnownName(e.entity_type, e.entity_id in defined_elsewhere)
                for e in gazetteer.get(name)
            ]
        return memo[name]

    definitions = resolve_definitions(
        [defined_entities(c, document_text=document_text, known=known) for c in chunks]
    )
    rejected: set[str] = set()
    found = candidates_merge(chunks, definitions, rejected)
    wanted: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    for entities in definitions:
        for entity in entities:
            try:
                display = validate_name(entity.name)
                entity_type = normalize_type(entity.type)
            except InvalidInput:
                continue
            key = (normalize(display), entity_type)
            seen = wanted.get(key)
            aliases = tuple(entity.aliases) + (seen[1] if seen else ())
            wanted[key] = (seen[0] if seen else display, aliases)
    norms = {norm for norm, _type in wanted}
    # The candidates' names are looked up in the same queries (one pair per 500 names).
    candidate_norms = {normalize(c.name) for c in found}
    stored, existing = _stored_names(sorted(norms | candidate_norms), norms)
    defined_ids: dict[tuple[str, str], str] = {}
    defined_names: dict[str, tuple[str, str]] = {}
    for (norm, entity_type), (display, aliases) in wanted.items():
        if (norm, entity_type) in existing:
            entity_id, name = existing[(norm, entity_type)]
        else:
            entity_id, name = _new_id(norm, entity_type), display
            entry = GazetteerEntry(entity_id, name, entity_type)
            gazetteer.add(name, entry)
            for alias in aliases:
                gazetteer.add(alias, entry)
        defined_ids[(norm, entity_type)] = entity_id
        defined_names[entity_id] = (name, entity_type)
    _definitions_relax(gazetteer, definitions, defined_ids)
    return BookLexicon(
        gazetteer=gazetteer,
        defined_ids=defined_ids,
        defined_names=defined_names,
        definitions=definitions,
        candidates=_candidates_lexicon(found, gazetteer, defined_ids, stored),
        rejected=frozenset(rejected - {norm for norm, _t in defined_ids}),
    )


def _stored_names(lookup: list[str], norms: set[str]) -> tuple[dict, dict]:
    """Stored entities named by ``lookup`` (by name), and those named by ``norms`` by name
    or alias: (norm, type) -> (entity id, canonical name); two queries per 500 names."""
    stored: dict[tuple[str, str], tuple[str, str]] = {}
    existing: dict[tuple[str, str], tuple[str, str]] = {}
    for start in range(0, len(lookup), 500):
        batch = lookup[start : start + 500]
        for pk, name, norm, entity_type in Entity.objects.filter(name_norm__in=batch).values_list(
            "pk", "canonical_name", "name_norm", "type"
        ):
            stored[(norm, entity_type)] = (pk, name)
            if norm in norms:
                existing[(norm, entity_type)] = (pk, name)
        for pk, name, norm, entity_type in Alias.objects.filter(alias_norm__in=batch).values_list(
            "entity_id", "entity__canonical_name", "alias_norm", "type"
        ):
            if norm in norms:
                existing.setdefault((norm, entity_type), (pk, name))
    return stored, existing


def _definitions_relax(gazetteer, definitions, defined_ids) -> None:
    """The book's own structure defines these names: match them as its terms (stored
    candidates would otherwise be matched strictly)."""
    for entities in definitions:
        for entity in entities:
            if entity.via != "candidate":
                key = (normalize(entity.name), normalize_type(entity.type))
                if key in defined_ids:
                    gazetteer.relax(defined_ids[key])


def _candidates_lexicon(found, gazetteer, defined_ids, stored) -> dict:
    """Put the names the text introduces into the book's gazetteer (a stored entity of
    the same name and type is reused; a new one is matched strictly, as a candidate)."""

    info: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = {}
    wanted: dict[tuple[str, str], object] = {}
    for candidate in found:
        try:
            key = (normalize(validate_name(candidate.name)), normalize_type(candidate.type))
        except InvalidInput:
            continue
        if key not in info:
            info[key] = (candidate.evidence, candidate.aliases)
            wanted[key] = candidate
    for key, candidate in wanted.items():
        entity_id = defined_ids.get(key) or (stored[key][0] if key in stored else None)
        if entity_id is not None and not entity_id.startswith(NEW_PREFIX):
            continue  # a stored entity: the gazetteer has it, with its own matching
        entity_id = entity_id or _new_id(*key)
        entry = GazetteerEntry(entity_id, candidate.name, key[1])
        for form in (candidate.name, *candidate.aliases):
            gazetteer.add(form, entry, strict=True)
    return info


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
    return entities_ensure(drafts=drafts.values(), source=source)


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
    _candidates_record(
        book=book, new_ids=ensured.ids, created=ensured.created, lexicon=lexicon, found=found
    )
    mentions: list[Mention] = []
    for index, (chunk, row) in enumerate(zip(chunks, rows, strict=True)):
        mentions += _chunk_mentions(book, chunk, row, found[index], ensured.ids)
        if (index + 1) % WRITE_BATCH == 0:
            report("write", index + 1, len(chunks))
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


# --- public services -------------------------------------------------------------------


def book_ingest(
    *,
    path: str | Path | None = None,
    data: bytes | None = None,
    filename: str = "",
    title: str | None = None,
    author: str = "",
    extractor: str | None = None,
    job: IngestJob | None = None,
    progress: PhaseProgress | None = None,
    embed: bool = True,
) -> IngestResult:
    """Ingest one book file; idempotent per title and content.

    The same title with the same bytes and the same extractor is skipped
    ("unchanged"); otherwise its chunks and mentions are replaced in one transaction.
    Bad input (missing file, unknown format, empty book, unknown extractor) raises
    ``InvalidInput``.
    """
    started = time.perf_counter()
    raw, filename = _read_source(path, data, filename)
    checked = _Checked(fmt=detect_format(filename), extractor=get_extractor(extractor))
    return _book_ingest_bytes(
        raw=raw,
        filename=filename,
        checked=checked,
        title=title,
        author=author,
        job=job,
        progress=progress,
        embed=embed,
        started=started,
    )


def _book_ingest_bytes(
    *,
    raw: bytes,
    filename: str,
    checked: _Checked,
    title: str | None,
    author: str,
    job: IngestJob | None,
    progress: PhaseProgress | None,
    embed: bool,
    started: float,
) -> IngestResult:
    """``book_ingest`` once the file is read, its format and extractor known (and, after
    ``_ingest_check``, a text format parsed)."""
    report = _Reporter(job, progress)
    chosen = checked.extractor
    display_title = _validate_title(title if title else title_from_filename(filename))
    digest = hashlib.sha256(raw).hexdigest()
    existing = Book.objects.filter(title_norm=normalize(display_title)).first()
    if (
        existing is not None
        and existing.content_hash == digest
        and existing.extractor == chosen.name  # another extractor finds other mentions
        and existing.status == Book.Status.READY
    ):
        if embed and not existing.embedded:  # a run died while embedding: finish it
            _embed_missing(existing, report)
            return IngestResult(book=existing, action="resumed", chunks=existing.chunk_count)
        return IngestResult(book=existing, action="unchanged", chunks=existing.chunk_count)

    if existing is not None:
        # Readers see a new version is on its way; its chunks stay until it commits.
        Book.objects.filter(pk=existing.pk).update(
            status=Book.Status.INGESTING, updated_at=timezone.now()
        )
    try:
        return _book_ingest(
            raw=raw,
            filename=filename,
            checked=checked,
            display_title=display_title,
            digest=digest,
            author=author,
            report=report,
            embed=embed,
            started=started,
        )
    except BaseException:
        if existing is not None:  # the previous version is intact: ready again
            try:
                Book.objects.filter(pk=existing.pk).update(status=Book.Status.READY)
            except Exception:  # a broken connection must not hide the first error
                logger.exception("could not mark book %s ready again", existing.pk)
        raise


def _book_ingest(
    *,
    raw: bytes,
    filename: str,
    checked: _Checked,
    display_title: str,
    digest: str,
    author: str,
    report: _Reporter,
    embed: bool,
    started: float,
) -> IngestResult:
    timings: dict[str, float] = {}
    fmt, chosen = checked.fmt, checked.extractor
    report("parse", 0, 1)
    if checked.parsed is not None:  # parsed by _ingest_check already
        document, chunks = checked.parsed
        timings["parse"] = checked.parse_seconds
    else:
        document, chunks = _parse_chunks(raw, fmt)
        timings["parse"] = time.perf_counter() - started
    report("parse", 1, 1)

    t0 = time.perf_counter()
    report("extract", 0, len(chunks))
    lexicon = _lexicon(chunks, document.text, normalize(display_title))
    extracted = chosen.extract(
        chunks, lexicon=lexicon, progress=lambda done: report("extract", done, len(chunks))
    )
    timings["extract"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    report("write", 0, len(chunks))
    book, action, stats = _book_write(
        title=display_title,
        author=clean_display(author or "")[:512],
        filename=filename[:512],
        fmt=fmt,
        digest=digest,
        extractor=chosen.name,
        text=document.text,
        chunks=chunks,
        found=extracted.mentions,
        lexicon=lexicon,
        report=report,
    )
    timings["write"] = time.perf_counter() - t0

    if embed:
        t0 = time.perf_counter()
        chunk_ids = stats["chunk_ids"]
        report("embed", 0, len(chunk_ids))
        chunks_embed(
            chunk_ids=chunk_ids, progress=lambda done: report("embed", done, len(chunk_ids))
        )
        Book.objects.filter(pk=book.pk).update(embedded=True)
        timings["embed"] = time.perf_counter() - t0
    timings["total"] = time.perf_counter() - started
    return IngestResult(
        book=book,
        action=action,
        chunks=len(chunks),
        mentions=stats["mentions"],
        defines=stats["defines"],
        entities_created=stats["entities_created"],
        entities_removed=stats["entities_removed"],
        words=book.word_count,
        # What the reader could not take whole comes first: it is about the whole book.
        warnings=[*document.warnings, *extracted.warnings],
        timings=timings,
    )


@transaction.atomic
def book_delete(*, book: Book, actor=None) -> dict:
    """Remove a book, its chunks and mentions, then entities only it was holding."""
    book = Book.objects.select_for_update().get(pk=book.pk)
    entity_ids = _book_entity_ids(book)
    chunk_ids = list(Chunk.objects.filter(book=book).values_list("pk", flat=True))
    Mention.objects.filter(book=book).delete()  # no cascades: one DELETE
    Chunk.objects.filter(book=book).delete()
    summary = {"book_id": book.pk, "title": book.title, "chunks": len(chunk_ids)}
    audit(actor=actor, action="book.delete", target=book, payload=summary)
    book.delete()
    removed = entity_gc(entity_ids=entity_ids, source=f"book:{summary['book_id']}", actor=actor)
    summary["entities_removed"] = len(removed)
    summary["entities_kept"] = len(entity_ids) - len(removed)
    transaction.on_commit(lambda: _chunks_unindex(chunk_ids))
    return summary


def book_resolve(*, title_or_id: str) -> Book:
    """The book with this id, else this (normalised) title."""
    value = (title_or_id or "").strip()
    if not value:
        raise InvalidInput("Give a book title or id.", field="book")
    book = None
    if value.isdigit():
        book = Book.objects.filter(pk=int(value)).first()
    if book is None:
        book = Book.objects.filter(title_norm=normalize(value)).first()
    if book is None:
        raise NotFound(f"No book titled or numbered {value!r}.", field="book")
    return book


# --- jobs ------------------------------------------------------------------------------


def uploads_dir() -> Path:
    folder = Path(settings.DATA_DIR) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@transaction.atomic
def ingest_job_create(
    *,
    filename: str,
    data: bytes | None = None,
    path: str | Path | None = None,
    title: str = "",
    author: str = "",
    extractor: str | None = None,
) -> IngestJob:
    """Check the request, keep the file where the worker will read it, queue the job.

    Bad input fails here, before anything is queued: the uploader hears at once.
    """
    if data is None:
        raw, filename = _read_source(path, None, filename)
        source = Path(path).resolve()  # type: ignore[arg-type]
    else:
        raw = data
        source = None
    checked = _ingest_check(raw=raw, filename=filename, title=title, extractor=extractor)
    if source is None:
        digest = hashlib.sha256(raw).hexdigest()
        source = uploads_dir() / f"{digest}{Path(filename).suffix.lower()}"
        if not source.exists():
            source.write_bytes(raw)
    job = IngestJob.objects.create(
        title=title or title_from_filename(filename),
        author=author,
        source_name=filename[:512],
        source_path=str(source),
        extractor=checked.extractor.name,
    )
    transaction.on_commit(lambda: _enqueue(job.pk))
    return job


# The job function lives in books/tasks.py, which imports this module: the queue takes
# its dotted path (tests/test_architecture.py checks that it resolves).
INGEST_JOB_TASK = "books.tasks.ingest_job_task"
RECOVER_TASK = "books.tasks.ingest_jobs_recover_task"
BOOKS_GROUP = "books"


def _enqueue(job_id: int) -> None:
    # On the ingestion queue when there is one (KGSITE_INGEST_CLUSTER).
    cluster = settings.KGSITE_INGEST_CLUSTER or None
    queue.async_task(INGEST_JOB_TASK, job_id, group=BOOKS_GROUP, cluster=cluster)
    _recovery_scheduled()


def _recovery_scheduled() -> None:
    """Once: a django-q2 schedule that runs ``ingest_jobs_recover`` every minute."""
    try:
        Schedule.objects.get_or_create(
            name="kgsite: recover ingest jobs",
            defaults={
                "func": RECOVER_TASK,
                "schedule_type": Schedule.MINUTES,
                "minutes": 1,
            },
        )
    except Exception:  # the job itself is queued; recovery also runs by command
        logger.exception("could not schedule ingest job recovery")


def _lease() -> timedelta:
    return timedelta(seconds=settings.KGSITE_JOB_LEASE_SECONDS)


def _claim(job: IngestJob) -> bool:
    """Take the job unless a live worker holds it (its heartbeat is within the lease).

    Compare-and-set on ``updated_at``: of two workers handed the same job, one wins.
    """
    if job.status == IngestJob.Status.RUNNING and job.updated_at > timezone.now() - _lease():
        return False
    now = timezone.now()
    return bool(
        IngestJob.objects.filter(pk=job.pk, status=job.status, updated_at=job.updated_at).update(
            status=IngestJob.Status.RUNNING,
            started_at=now,
            updated_at=now,
            error="",
            attempts=F("attempts") + 1,
        )
    )


class _Heartbeat:
    """Touches the running job every quarter lease from a thread of the worker process, so
    a long step (one slow chunk, one big embedding batch) is not taken for a dead worker,
    and a dead worker's job goes stale within one lease."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"job-{job_id}-beat")

    def _run(self) -> None:
        every = max(0.5, settings.KGSITE_JOB_LEASE_SECONDS / 4)
        try:
            while not self.stop.wait(every):
                try:
                    IngestJob.objects.filter(
                        pk=self.job_id, status=IngestJob.Status.RUNNING
                    ).update(updated_at=timezone.now())
                except Exception:  # a busy database: the next beat will do
                    logger.debug("heartbeat of job %s skipped", self.job_id, exc_info=True)
        finally:
            connection.close()

    def __enter__(self) -> _Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=30)


def ingest_jobs_recover() -> list[int]:
    """Find running jobs whose worker died (no heartbeat for a lease) and queue them again,
    up to ``KGSITE_JOB_MAX_ATTEMPTS`` runs; then they fail with a notification."""
    requeued: list[int] = []
    stale = IngestJob.objects.filter(
        status=IngestJob.Status.RUNNING, updated_at__lt=timezone.now() - _lease()
    )
    for job in stale:
        died = f"the worker died during {job.phase or 'the job'} (run {job.attempts})"
        if job.attempts >= settings.KGSITE_JOB_MAX_ATTEMPTS:
            if IngestJob.objects.filter(pk=job.pk, updated_at=job.updated_at).update(
                status=IngestJob.Status.FAILED, error=died, finished_at=timezone.now()
            ):
                _notify_failure(job, died)
            continue
        if IngestJob.objects.filter(
            pk=job.pk, status=IngestJob.Status.RUNNING, updated_at=job.updated_at
        ).update(
            status=IngestJob.Status.QUEUED,
            error=f"{died}; retrying",
            warnings=[*job.warnings, f"{died}; retried"],
            updated_at=timezone.now(),
        ):
            _enqueue(job.pk)
            requeued.append(job.pk)
    return requeued


def ingest_job_run(*, job_id: int, progress: PhaseProgress | None = None) -> IngestJob:
    """Run a queued job; record progress, the result, or the failure on the job.

    Safe to deliver twice: a done job, or one a live worker holds, is left alone; a job
    whose worker died is taken over, and each phase picks up what is missing.
    """
    job = IngestJob.objects.get(pk=job_id)
    if job.status == IngestJob.Status.DONE or not _claim(job):
        return job
    job.refresh_from_db()
    with _Heartbeat(job.pk):
        return _ingest_job_execute(job, progress)


def _ingest_job_execute(job: IngestJob, progress: PhaseProgress | None) -> IngestJob:
    try:
        result = book_ingest(
            path=job.source_path,
            filename=job.source_name,
            title=job.title or None,
            author=job.author,
            extractor=job.extractor or None,
            job=job,
            progress=progress,
        )
    except Exception as exc:  # recorded on the job, then re-raised for the caller
        message = exc.message if isinstance(exc, DomainError) else f"{type(exc).__name__}: {exc}"
        IngestJob.objects.filter(pk=job.pk).update(
            status=IngestJob.Status.FAILED, error=message[:5000], finished_at=timezone.now()
        )
        _notify_failure(job, message)
        raise
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestJob.Status.DONE,
        book=result.book,
        result=result.as_dict(),
        warnings=[*job.warnings, *result.warnings][:500],  # a retry's note stays
        done=max(job.total, result.chunks),
        total=max(job.total, result.chunks),
        finished_at=timezone.now(),
    )
    job.refresh_from_db()
    return job


def _notify_failure(job: IngestJob, message: str) -> None:
    try:
        notification_create(
            type="job_failed",
            urgency="high",
            title=f"Ingesting {job.title or job.source_name} failed",
            payload={"job_id": job.pk, "error": message[:1000]},
            link=f"/api/v1/jobs/{job.pk}/",
            key=f"ingest-job-failed:{job.pk}",
        )
    except Exception:
        logger.exception("could not record the job_failed notification")


@transaction.atomic
def ingest_job_retry(*, job: IngestJob, actor=None) -> IngestJob:
    """Queue a failed job again from the file it kept (uploads stay under uploads/) and
    close its failure notice. The notice's key is per job, so a second failure shows on
    the job's page and the dashboard, not as a new notice."""
    job = IngestJob.objects.select_for_update().get(pk=job.pk)
    if job.status != IngestJob.Status.FAILED:
        raise Conflict(
            f"job {job.pk} is {job.status}; only a failed job can be retried",
            field="job_id",
            code="not_failed",
        )
    if not job.source_path or not Path(job.source_path).is_file():
        raise Conflict(
            "the file of this job is gone; upload it again", field="job_id", code="source_missing"
        )
    if actor is not None:
        audit(
            actor=actor, action="ingest_job.retry", target=job, payload={"error": job.error[:500]}
        )
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestJob.Status.QUEUED,
        error="",
        phase="",
        done=0,
        total=0,
        started_at=None,
        finished_at=None,
    )
    notification_mark_read_by_key(key=f"ingest-job-failed:{job.pk}")
    transaction.on_commit(lambda: _enqueue(job.pk))
    job.refresh_from_db()
    return job


def book_ingest_now(
    *,
    path: str | Path | None = None,
    data: bytes | None = None,
    filename: str = "",
    title: str | None = None,
    author: str = "",
    extractor: str | None = None,
    progress: PhaseProgress | None = None,
    embed: bool = True,
) -> tuple[IngestJob, IngestResult]:
    """Ingest inline, still recording a job (for ``--sync`` and scripts).

    The file is read once, and a text format is parsed once: the check's parse is the
    ingest's.
    """
    started = time.perf_counter()
    # Bad input fails before a job row is written: an empty book leaves no failed job.
    raw, filename = _read_source(path, data, filename)
    checked = _ingest_check(raw=raw, filename=filename, title=title, extractor=extractor)
    job = IngestJob.objects.create(
        title=title or "",
        author=author or "",
        source_name=filename,
        source_path=str(path or ""),
        extractor=extractor or "",
        status=IngestJob.Status.RUNNING,
        started_at=timezone.now(),
    )
    try:
        result = _book_ingest_bytes(
            raw=raw,
            filename=filename,
            checked=checked,
            title=title,
            author=author,
            job=job,
            progress=progress,
            embed=embed,
            started=started,
        )
    except Exception as exc:
        message = exc.message if isinstance(exc, DomainError) else f"{type(exc).__name__}: {exc}"
        IngestJob.objects.filter(pk=job.pk).update(
            status=IngestJob.Status.FAILED, error=message[:5000], finished_at=timezone.now()
        )
        if not isinstance(exc, InvalidInput):
            _notify_failure(job, message)
        raise
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestJob.Status.DONE,
        book=result.book,
        title=result.book.title,
        extractor=result.book.extractor,
        result=result.as_dict(),
        warnings=result.warnings[:500],
        finished_at=timezone.now(),
    )
    job.refresh_from_db()
    return job, result


# --- entity merges: books' part (registered in BooksConfig.ready() as a merge mover) -----

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


def _mentions_set(values: list[tuple[int, str, int]]) -> None:
    """Set (mention_type, count) per row with one UPDATE per distinct pair: a CASE per
    row (``bulk_update``) takes seconds on thousands of rows."""
    groups: dict[tuple[str, int], list[int]] = {}
    for pk, kind, count in values:
        groups.setdefault((kind, count), []).append(pk)
    for (kind, count), pks in groups.items():
        for start in range(0, len(pks), 500):
            Mention.objects.filter(pk__in=pks[start : start + 500]).update(
                mention_type=kind, count=count
            )


def mentions_count(entity_ids: list[str]) -> int:
    """How many mentions a merge of these duplicates would move (the preview)."""
    return Mention.objects.filter(entity_id__in=entity_ids).count()


def mentions_merge(survivor_id: str, duplicate_ids: list[str]) -> dict:
    """Point the duplicates' mentions at the survivor, inside the merge's transaction.

    A chunk holds one mention per entity: where it already mentions the survivor (or an
    earlier duplicate), that row absorbs the other one (counts add up, "defines" wins)
    and the absorbed row is kept whole in the payload, so undo can recreate it.
    """
    order = {pk: i for i, pk in enumerate(duplicate_ids)}
    rows = list(Mention.objects.filter(entity_id__in=duplicate_ids).values(*_MENTION_FIELDS))
    rows.sort(key=lambda r: (order[r["entity_id"]], r["id"]))
    kept: dict[int, dict] = {}
    chunk_ids = sorted({r["chunk_id"] for r in rows})
    for start in range(0, len(chunk_ids), 500):
        for row in Mention.objects.filter(
            entity_id=survivor_id, chunk_id__in=chunk_ids[start : start + 500]
        ).values("id", "chunk_id", "mention_type", "count"):
            kept[row["chunk_id"]] = row
    moved, absorbed, before = [], [], {}
    for row in rows:
        target = kept.get(row["chunk_id"])
        if target is None:
            kept[row["chunk_id"]] = dict(row)
            moved.append([row["id"], row["entity_id"], row["book_id"]])
            continue
        absorbed.append(row)
        before.setdefault(target["id"], [target["mention_type"], target["count"]])
        target["count"] += row["count"]
        if row["mention_type"] == Mention.Type.DEFINES:
            target["mention_type"] = Mention.Type.DEFINES
    absorbed_ids = [r["id"] for r in absorbed]
    for start in range(0, len(absorbed_ids), 500):
        Mention.objects.filter(pk__in=absorbed_ids[start : start + 500]).delete()
    _mentions_set(
        [
            (row["id"], row["mention_type"], row["count"])
            for row in kept.values()
            if row["id"] in before
        ]
    )
    moved_ids = [pk for pk, _e, _b in moved]
    for start in range(0, len(moved_ids), 500):
        Mention.objects.filter(pk__in=moved_ids[start : start + 500]).update(entity_id=survivor_id)
    return {"moved": moved, "absorbed": absorbed, "changed": [[k, *v] for k, v in before.items()]}


def mentions_merge_problems(survivor_id: str, duplicate_ids: list[str], payload: dict) -> list[str]:
    """Books changed since the merge (re-ingested or deleted): their mentions cannot
    be put back as they were."""
    expected = {pk: book_id for pk, _e, book_id in payload["moved"]}
    expected.update({pk: None for pk, _m, _c in payload["changed"]})
    present: set[int] = set()
    ids = sorted(expected)
    for start in range(0, len(ids), 500):
        present |= set(
            Mention.objects.filter(
                pk__in=ids[start : start + 500], entity_id=survivor_id
            ).values_list("pk", flat=True)
        )
    chunks = sorted({row["chunk_id"] for row in payload["absorbed"]})
    chunks_there: set[int] = set()
    for start in range(0, len(chunks), 500):
        chunks_there |= set(
            Chunk.objects.filter(pk__in=chunks[start : start + 500]).values_list("pk", flat=True)
        )
    books = {b for pk, b in expected.items() if pk not in present and b is not None}
    books |= {r["book_id"] for r in payload["absorbed"] if r["chunk_id"] not in chunks_there}
    missing = len(ids) - len(present)
    if not missing and not books and len(chunks_there) == len(chunks):
        return []
    titles = sorted(Book.objects.filter(pk__in=books).values_list("title", flat=True))
    named = ", ".join(f"'{t}'" for t in titles) if titles else "a deleted book"
    return [f"mentions in {named} changed since the merge (book re-ingested or deleted)"]


def mentions_merge_undo(survivor_id: str, duplicate_ids: list[str], payload: dict) -> None:
    """Put the mentions back as ``mentions_merge`` found them (same ids)."""
    _mentions_set([(pk, kind, count) for pk, kind, count in payload["changed"]])
    by_entity: dict[str, list[int]] = {}
    for pk, entity_id, _book_id in payload["moved"]:
        by_entity.setdefault(entity_id, []).append(pk)
    for entity_id, pks in by_entity.items():
        for start in range(0, len(pks), 500):
            Mention.objects.filter(pk__in=pks[start : start + 500]).update(entity_id=entity_id)
    Mention.objects.bulk_create([Mention(**row) for row in payload["absorbed"]], batch_size=1000)


__all__ = [
    "IngestResult",
    "book_delete",
    "book_ingest",
    "book_ingest_now",
    "book_resolve",
    "chunks_embed",
    "context_excerpt",
    "ingest_job_create",
    "ingest_job_retry",
    "ingest_job_run",
    "mentions_count",
    "mentions_merge",
    "mentions_merge_problems",
    "mentions_merge_undo",
]
