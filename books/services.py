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
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from entities.models import Alias, Entity, EntityFact, Fact
from entities.services import normalize_type, validate_name
from kgsite.errors import DomainError, InvalidInput, NotFound
from kgsite.models import AuditEntry, audit
from kgsite.text import clean_display, normalize

from .chunking import ChunkDraft, chunk_sections, sentence_spans
from .excerpts import context_excerpt
from .extraction.base import (
    DEFINES,
    NEW_PREFIX,
    BookLexicon,
    Extractor,
    FoundMention,
    get_extractor,
)
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
    from entities.extraction import Gazetteer, GazetteerEntry

    from .extraction.candidates import candidates_merge
    from .extraction.structure import KnownName, defined_entities, resolve_definitions

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
    found = candidates_merge(chunks, definitions)
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
    existing: dict[tuple[str, str], tuple[str, str]] = {}
    for start in range(0, len(norms), 500):
        batch = list(norms)[start : start + 500]
        for pk, name, norm, entity_type in Entity.objects.filter(name_norm__in=batch).values_list(
            "pk", "canonical_name", "name_norm", "type"
        ):
            existing[(norm, entity_type)] = (pk, name)
        for pk, name, norm, entity_type in Alias.objects.filter(alias_norm__in=batch).values_list(
            "entity_id", "entity__canonical_name", "alias_norm", "type"
        ):
            existing.setdefault((norm, entity_type), (pk, name))
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
        candidates=_candidates_lexicon(found, gazetteer, defined_ids),
    )


def _definitions_relax(gazetteer, definitions, defined_ids) -> None:
    """The book's own structure defines these names: match them as its terms (stored
    candidates would otherwise be matched strictly)."""
    for entities in definitions:
        for entity in entities:
            if entity.via != "candidate":
                key = (normalize(entity.name), normalize_type(entity.type))
                if key in defined_ids:
                    gazetteer.relax(defined_ids[key])


def _candidates_lexicon(found, gazetteer, defined_ids) -> dict:
    """Put the names the text introduces into the book's gazetteer (a stored entity of
    the same name and type is reused; a new one is matched strictly, as a candidate)."""
    from entities.extraction import GazetteerEntry

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
    stored: dict[tuple[str, str], tuple[str, str]] = {}
    norms = sorted({norm for norm, _t in wanted if (norm, _t) not in defined_ids})
    for start in range(0, len(norms), 500):
        rows = Entity.objects.filter(name_norm__in=norms[start : start + 500]).values_list(
            "pk", "canonical_name", "name_norm", "type"
        )
        for pk, name, norm, entity_type in rows:
            stored[(norm, entity_type)] = (pk, name)
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


def _entities_for(
    found: Iterable[FoundMention], lexicon: BookLexicon
) -> tuple[dict[tuple[str, str], str], list[str]]:
    """Map every new (norm, type) a mention needs to a stored entity id, creating the
    missing entities in bulk. Returns the map and the ids created."""
    wanted: dict[tuple[str, str], str] = {}
    for mention in found:
        if mention.entity_id and not mention.entity_id.startswith(NEW_PREFIX):
            continue
        try:
            display = validate_name(mention.name)
            entity_type = normalize_type(mention.entity_type)
        except InvalidInput:
            continue
        wanted.setdefault((normalize(display), entity_type), display)
    if not wanted:
        return {}, []
    ids: dict[tuple[str, str], str] = {}
    norms = list({norm for norm, _t in wanted})
    for start in range(0, len(norms), 500):
        rows = Entity.objects.filter(name_norm__in=norms[start : start + 500]).values_list(
            "pk", "name_norm", "type"
        )
        for pk, norm, entity_type in rows:
            if (norm, entity_type) in wanted:
                ids[(norm, entity_type)] = pk
    missing = [key for key in wanted if key not in ids]
    Entity.objects.bulk_create(
        [Entity(canonical_name=wanted[key], name_norm=key[0], type=key[1]) for key in missing],
        batch_size=WRITE_BATCH,
        ignore_conflicts=True,  # another writer created it meanwhile: re-selected below
    )
    created: list[str] = []
    if missing:
        wanted_missing = set(missing)
        missing_norms = list({norm for norm, _t in missing})
        for start in range(0, len(missing_norms), 500):
            rows = Entity.objects.filter(
                name_norm__in=missing_norms[start : start + 500]
            ).values_list("pk", "name_norm", "type")
            for pk, norm, entity_type in rows:
                if (norm, entity_type) in wanted_missing and (norm, entity_type) not in ids:
                    ids[(norm, entity_type)] = pk
                    created.append(pk)
    # Aliases the structure reads for new definitions ("Staff (arcane focus)").
    aliases: list[Alias] = []
    seen: set[tuple[str, str]] = set(
        Alias.objects.filter(entity_id__in=created).values_list("alias_norm", "type")
    )
    for entities in lexicon.definitions:
        for entity in entities:
            key = (normalize(entity.name), normalize_type(entity.type))
            entity_id = ids.get(key)
            if entity_id is None or entity_id not in created:
                continue
            for alias in entity.aliases:
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
    Alias.objects.bulk_create(aliases, batch_size=WRITE_BATCH, ignore_conflicts=True)
    return ids, created


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
    confirmed."""
    chunks_of: dict[str, int] = {}
    for mentions in found:
        for m in mentions:
            chunks_of[m.entity_id or ""] = chunks_of.get(m.entity_id or "", 0) + 1
    created_set = set(created)
    evidence: dict[str, int] = {}
    aliases: list[Alias] = []
    for key, pk in new_ids.items():
        if pk not in created_set:
            continue
        score, forms = lexicon.candidates.get(key, (0, ()))
        evidence[pk] = max(score, chunks_of.get(_new_id(*key), 0), 1)
        for form in forms:
            norm = normalize(form)
            if norm and norm != key[0]:
                aliases.append(
                    Alias(
                        entity_id=pk,
                        alias=clean_display(form)[:512],
                        alias_norm=norm[:512],
                        type=key[1],
                        manual=False,
                    )
                )
    rows = [Entity(pk=pk, candidate=True, evidence=score) for pk, score in evidence.items()]
    Entity.objects.bulk_update(rows, ["candidate", "evidence"], batch_size=WRITE_BATCH)
    Alias.objects.bulk_create(aliases, batch_size=WRITE_BATCH, ignore_conflicts=True)
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
        Entity.objects.filter(pk__in=set(elsewhere), candidate=True).update(candidate=False)


def _entities_saved(entity_ids: list[str]) -> None:
    """On commit: one batched index update instead of one hook call per entity."""
    if not entity_ids:
        return

    def run() -> None:
        from entities.extraction import gazetteer_invalidate

        gazetteer_invalidate()
        try:
            from django_q.tasks import async_task

            async_task("entities.tasks.vector_upsert_task", "entities", list(entity_ids))
        except Exception:  # a broken queue must not fail the ingest; rebuild restores
            logger.exception("could not enqueue the entity index update")

    transaction.on_commit(run)


def _book_entity_ids(book: Book) -> set[str]:
    """The entities a book mentions (no ordering: only the set is wanted)."""
    return set(
        Mention.objects.filter(book=book).order_by().values_list("entity_id", flat=True).distinct()
    )


def _mentions_build(
    *,
    book: Book,
    chunks: Sequence[ChunkDraft],
    rows: list[Chunk],
    found: list[list[FoundMention]],
    new_ids: dict[tuple[str, str], str],
    report: _Reporter,
) -> tuple[list[Mention], int]:
    """One Mention per (chunk, entity) at its first occurrence, with its context."""
    mentions: list[Mention] = []
    defines = 0
    for index, (chunk, row) in enumerate(zip(chunks, rows, strict=True)):
        seen: set[str] = set()
        spans = sentence_spans(chunk.text) if found[index] else []
        for m in found[index]:
            entity_id = m.entity_id
            if not entity_id or entity_id.startswith(NEW_PREFIX):
                try:
                    key = (normalize(validate_name(m.name)), normalize_type(m.entity_type))
                except InvalidInput:
                    continue
                entity_id = new_ids.get(key)
            if entity_id is None or entity_id in seen:
                continue
            seen.add(entity_id)
            start = max(0, min(m.start, len(chunk.text)))
            end = max(start, min(m.end, len(chunk.text)))
            defines += m.mention_type == DEFINES
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
        if (index + 1) % WRITE_BATCH == 0:
            report("write", index + 1, len(chunks))
    return mentions, defines


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
    book.char_count = len(text)
    book.word_count = len(text.split())
    book.chunk_count = len(chunks)
    book.ingested_at = timezone.now()
    book.save()

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

    new_ids, created = _entities_for((m for ms in found for m in ms), lexicon)
    _candidates_record(book=book, new_ids=new_ids, created=created, lexicon=lexicon, found=found)
    mentions, defines = _mentions_build(
        book=book, chunks=chunks, rows=rows, found=found, new_ids=new_ids, report=report
    )
    Mention.objects.bulk_create(mentions, batch_size=WRITE_BATCH)
    report("write", len(chunks), len(chunks))
    _entities_saved(created)
    stale = previous - {m.entity_id for m in mentions}
    removed = entity_gc(entity_ids=stale) if stale else []
    stats = {
        "mentions": len(mentions),
        "defines": defines,
        "entities_created": len(created),
        "entities_removed": len(removed),
        "chunk_ids": [r.pk for r in rows],
    }
    return book, action, stats


# --- vector index ----------------------------------------------------------------------


def _search_available() -> bool:
    try:
        from entities.search.index import KINDS
    except ImportError:  # pragma: no cover - the search app is optional
        return False
    return "chunks" in KINDS


def chunks_embed(*, chunk_ids: Sequence[int], progress: Callable[[int], None] | None = None) -> int:
    """Index chunks for semantic search in batches (the embedder batches within)."""
    if not chunk_ids or not _search_available():
        return 0
    from entities.search.service import vector_upsert

    changed = 0
    for start in range(0, len(chunk_ids), EMBED_BATCH):
        changed += vector_upsert("chunks", list(chunk_ids[start : start + EMBED_BATCH]))
        if progress is not None:
            progress(min(len(chunk_ids), start + EMBED_BATCH))
    return changed


def _chunks_unindex(chunk_ids: Sequence[int]) -> None:
    if not chunk_ids or not _search_available():
        return
    try:
        from entities.search.service import vector_delete

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
        warnings=extracted.warnings,
        timings=timings,
    )


def entity_gc(*, entity_ids: Iterable[str]) -> list[str]:
    """Delete the given entities that nothing else holds on to; return their ids.

    An entity stays if it has any mention, any fact (linked, as subject or object), an
    alias added by hand, the ``curated`` flag, or an audit row (a curator created or
    edited it).
    """
    candidates = list(set(entity_ids))
    removed: list[str] = []
    for start in range(0, len(candidates), 500):
        batch = candidates[start : start + 500]
        kept = set(Mention.objects.filter(entity_id__in=batch).values_list("entity_id", flat=True))
        kept |= set(
            EntityFact.objects.filter(entity_id__in=batch).values_list("entity_id", flat=True)
        )
        kept |= set(Fact.objects.filter(subject_id__in=batch).values_list("subject_id", flat=True))
        kept |= set(
            Fact.objects.filter(object_entity_id__in=batch).values_list(
                "object_entity_id", flat=True
            )
        )
        kept |= set(
            Alias.objects.filter(entity_id__in=batch, manual=True).values_list(
                "entity_id", flat=True
            )
        )
        kept |= set(Entity.objects.filter(pk__in=batch, curated=True).values_list("pk", flat=True))
        kept |= set(
            AuditEntry.objects.filter(
                target_type=Entity._meta.label_lower, target_id__in=batch
            ).values_list("target_id", flat=True)
        )
        doomed = [pk for pk in batch if pk not in kept]
        if doomed:
            Entity.objects.filter(pk__in=doomed).delete()
            removed.extend(doomed)
    if removed:

        def run(ids: list[str] = removed) -> None:
            from entities.extraction import gazetteer_invalidate

            gazetteer_invalidate()
            if _search_available():
                try:
                    from entities.search.service import vector_delete

                    vector_delete("entities", ids)
                except Exception:
                    logger.exception("could not remove entities from the vector index")

        transaction.on_commit(run)
    return removed


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
    removed = entity_gc(entity_ids=entity_ids)
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


def _enqueue(job_id: int) -> None:
    from django_q.tasks import async_task

    async_task("books.tasks.ingest_job_task", job_id, group="books")


def ingest_job_run(*, job_id: int, progress: PhaseProgress | None = None) -> IngestJob:
    """Run a queued job; record progress, the result, or the failure on the job."""
    job = IngestJob.objects.get(pk=job_id)
    if job.status == IngestJob.Status.DONE:
        return job  # idempotent: a re-delivered task does nothing
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestJob.Status.RUNNING, started_at=timezone.now(), error=""
    )
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
        warnings=result.warnings[:500],
        done=max(job.total, result.chunks),
        total=max(job.total, result.chunks),
        finished_at=timezone.now(),
    )
    job.refresh_from_db()
    return job


def _notify_failure(job: IngestJob, message: str) -> None:
    try:
        from notifications.services import notification_create
    except ImportError:  # pragma: no cover
        return
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


__all__ = [
    "IngestResult",
    "book_delete",
    "book_ingest",
    "book_ingest_now",
    "book_resolve",
    "chunks_embed",
    "context_excerpt",
    "entity_gc",
    "ingest_job_create",
    "ingest_job_run",
]
