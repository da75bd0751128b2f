"""Book ingestion and deletion: read, check, then parse, extract, write and embed a book."""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from entities.services import (
    entity_gc,
)
from kgsite.converters import parse_id
from kgsite.errors import Conflict, InvalidInput, NotFound
from kgsite.models import audit
from kgsite.text import clean_display, has_control_chars, invisible_char, normalize, shows_nothing

from ..chunking import ChunkDraft, chunk_sections
from ..extraction.base import (
    Extractor,
)
from ..extraction.registry import get_extractor
from ..models import Book, Chunk, IngestJob, Mention
from ..parsing import ParsedDocument, detect_format, parse_document, pdf_check
from .lexicon import _lexicon
from .writing import (
    IngestResult,
    PhaseProgress,
    _book_entity_ids,
    _book_write,
    _chunks_unindex,
    _embed_missing,
    _Reporter,
    chunks_embed,
)

logger = logging.getLogger(__name__)
# The length of a book's and an ingest job's title and author columns (all alike).
TEXT_MAX = Book._meta.get_field("title").max_length
# A title's and an author's refusals, each its own sentence (a page says them apart).
_CONTROL_CHARS = {
    "title": gettext_noop("title must not hold control characters"),
    "author": gettext_noop("author must not hold control characters"),
}
_TOO_LONG = {
    "title": gettext_noop("title is longer than %(n)s characters"),
    "author": gettext_noop("author is longer than %(n)s characters"),
}


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
    if not any(_visible(chunk.text) for chunk in chunks):  # none, or only invisible marks
        raise InvalidInput(gettext_noop("The uploaded document is empty."), field="file")
    return document, chunks


def _as_stored(book: Book, action: str) -> IngestResult:
    """The book as stored, for a run that wrote nothing new (the job page and the command
    show these counts)."""
    mentions = Mention.objects.filter(book=book)
    return IngestResult(
        book=book,
        action=action,
        chunks=book.chunk_count,
        mentions=mentions.count(),
        defines=mentions.filter(mention_type=Mention.Type.DEFINES).count(),
        words=book.word_count,
    )


def _visible(text: str) -> bool:
    """Whether ``text`` shows anything: a zero-width space or a byte-order mark is no
    text (Unicode format characters, category Cf, print nothing)."""
    return not shows_nothing(text)


@dataclass(frozen=True)
class _Checked:
    """What ``_ingest_check`` learnt; a text format's parse is kept for an inline ingest."""

    fmt: str
    extractor: Extractor
    parsed: tuple[ParsedDocument, list[ChunkDraft]] | None = None
    parse_seconds: float = 0.0


def _ingest_check(
    *, raw: bytes, filename: str, title: str | None, extractor: str | None, author: str = ""
) -> _Checked:
    """Fail now, before a job is queued or recorded, on what the ingest would refuse:
    an unknown format or extractor, a bad title or author, or a file holding nothing to ingest
    (an empty or marker-only text, a broken PDF, a PDF without a text layer).

    Text formats are parsed and chunked (cheap); a PDF is read to its first text page.
    """
    fmt = detect_format(filename)
    chosen = get_extractor(extractor)
    if title:
        _validate_title(title)
    _validate_author(author)
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
    return clean_display(stem.replace("_", " ")) or clean_display(filename) or filename


def _validate_author(author: str) -> None:
    """An author may be blank, but is otherwise checked as a title is."""
    _check_stored_text(author or "", "author")


def _check_stored_text(value: str, field: str) -> None:
    """A title or an author: no control characters (PostgreSQL stores no NUL) and no
    longer than its column (PostgreSQL refuses the row where SQLite would keep it whole)."""
    if has_control_chars(value):
        raise InvalidInput(_CONTROL_CHARS[field], field=field)
    if len(value) > TEXT_MAX:
        raise InvalidInput(_TOO_LONG[field], params={"n": TEXT_MAX}, field=field)


def _validate_title(title: str) -> str:
    """The title as shown; refused when it would show nothing (only spaces or invisible
    characters) or hold control characters (PostgreSQL stores no NUL)."""
    display = clean_display(title) if isinstance(title, str) else ""
    if not "".join(c for c in display if not invisible_char(c)).strip():
        raise InvalidInput(gettext_noop("title must not be empty"), field="title")
    _check_stored_text(display, "title")
    return display


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
    _validate_author(author)
    digest = hashlib.sha256(raw).hexdigest()
    existing = Book.objects.filter(title_norm=normalize(display_title)).first()
    if (
        existing is not None
        and existing.content_hash == digest
        and existing.extractor == chosen.name  # another extractor finds other mentions
        and existing.status == Book.Status.READY
    ):
        author_given = clean_display(author or "")[:512]
        if author_given and author_given != existing.author:  # the text is the same; the
            existing.author = author_given  # author given with it now is not thrown away
            Book.objects.filter(pk=existing.pk).update(author=author_given)
        if embed and not existing.embedded:  # a run died while embedding: finish it
            _embed_missing(existing, report)
            return _as_stored(existing, "resumed")
        return _as_stored(existing, "unchanged")

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
    """The book with this id, or this (normalised) title.

    Files named by number make titles that read as ids ("01", "2"): a value written
    otherwise than an id ("02") is a title only, and a value that is one book's id and
    another's title is a conflict naming both, not the first found (``delete_book 2``
    deleted book 2 where the curator meant the book titled "2")."""
    value = (title_or_id or "").strip()
    if not value:
        raise InvalidInput("Give a book title or id.", field="book")
    by_id = by_title = None
    book_id = parse_id(value)
    if book_id is not None and str(book_id) == value:
        by_id = Book.objects.filter(pk=book_id).first()
    if "\x00" not in value:  # no title holds a NUL (PostgreSQL refuses it)
        by_title = Book.objects.filter(title_norm=normalize(value)).first()
    if by_id is not None and by_title is not None and by_id != by_title:
        raise Conflict(
            f"{value!r} is the id of book {by_id.pk} {by_id.title!r} and the title of book "
            f"{by_title.pk}: give the title {by_id.title!r} or the id {by_title.pk}.",
            field="book",
        )
    book = by_id or by_title
    if book is None:
        raise NotFound(f"No book titled or numbered {value!r}.", field="book")
    return book
