"""Book ingestion: chunks, defines vs references, re-ingest, delete and GC, PDF, jobs."""

from __future__ import annotations

from pathlib import Path

import pytest

from books.models import Book, Chunk, IngestJob, Mention
from books.selectors import chunk_related, entity_books, entity_mentions
from books.services import book_delete, book_ingest, ingest_job_create
from entities.models import Entity
from entities.services import alias_add, entity_store, fact_store
from kgsite.errors import InvalidInput
from notifications.models import Notification

CONDITIONS = "15-appendix-ph-a-conditions.md"
SPELLS = "srd-spells-excerpt.md"
EQUIPMENT = "srd-equipment-excerpt.md"


def entity(name: str, type_: str) -> Entity:
    return Entity.objects.get(name_norm=name.casefold(), type=type_)


def test_defining_chunk_marked_defines_and_other_books_reference(ingest):
    ingest(CONDITIONS)
    ingest(SPELLS)
    blinded = entity("Blinded", "condition")
    mentions = list(entity_mentions(entity=blinded))
    assert mentions[0].mention_type == "defines"
    assert mentions[0].chunk.heading_path[-1] == "Blinded"
    assert mentions[0].book.source_name == CONDITIONS
    assert [m for m in mentions if m.mention_type == "defines"] == [mentions[0]]
    referring = {m.chunk.heading_path[-1] for m in mentions[1:]}
    assert "Blindness/Deafness" in referring
    assert all(m.mention_type == "references" for m in mentions[1:])
    # Offsets point into the chunk's source text and the excerpt quotes the sentence.
    m = next(m for m in mentions if m.chunk.heading_path[-1] == "Blindness/Deafness")
    chunk_text = m.chunk.text
    local = m.start - m.chunk.start
    assert chunk_text[local : local + len(m.surface)].casefold() == "blinded"
    assert m.surface.casefold() in m.context.casefold()


def test_spell_headings_create_typed_entities(ingest):
    result = ingest(SPELLS)
    acid = entity("Acid Arrow", "spell")
    defines = Mention.objects.get(entity=acid, mention_type="defines")
    assert defines.chunk.heading_path[-1] == "Acid Arrow"
    assert result.defines >= 40
    assert Mention.objects.filter(entity=acid, mention_type="defines").count() == 1


def test_same_name_two_types_stay_two_entities(ingest):
    spell, _ = entity_store(name="Shield", type="spell")
    ingest(EQUIPMENT)
    shields = Entity.objects.filter(name_norm="shield")
    assert {e.type for e in shields} == {"spell", "equipment"}
    armour = shields.get(type="equipment")
    assert Mention.objects.filter(entity=armour, mention_type="defines").count() == 1
    # Inside the armour chapter the ambiguous "shield" goes to the armour, not the spell.
    assert not Mention.objects.filter(entity=spell, mention_type="defines").exists()


def test_reingest_unchanged_file_is_skipped(ingest):
    first = ingest(CONDITIONS)
    counts = (Chunk.objects.count(), Mention.objects.count(), Entity.objects.count())
    again = ingest(CONDITIONS)
    assert again.action == "unchanged"
    assert again.book.pk == first.book.pk
    assert (Chunk.objects.count(), Mention.objects.count(), Entity.objects.count()) == counts


def test_the_same_file_again_with_an_author_keeps_the_author(ingest):
    ingest(CONDITIONS)
    again = ingest(CONDITIONS, author="Jane Roe")
    assert again.action == "unchanged"
    assert Book.objects.get(pk=again.book.pk).author == "Jane Roe"
    ingest(CONDITIONS)  # no author given: the one stored stays
    assert Book.objects.get(pk=again.book.pk).author == "Jane Roe"


def test_reingest_changed_file_replaces_without_duplicates(ingest, book_path):
    first = ingest(CONDITIONS)
    counts = (Chunk.objects.count(), Mention.objects.count(), Entity.objects.count())
    changed = book_path(CONDITIONS).read_bytes() + b"\n\nOne more closing sentence.\n"
    second = book_ingest(data=changed, filename=CONDITIONS, extractor="offline")
    assert second.action == "replaced"
    assert second.book.pk == first.book.pk
    assert Book.objects.count() == 1
    assert (Chunk.objects.count(), Mention.objects.count(), Entity.objects.count()) == counts
    assert Mention.objects.filter(mention_type="defines").count() == first.defines


def test_delete_collects_only_orphaned_entities(ingest):
    conditions = ingest(CONDITIONS).book
    ingest(SPELLS)
    blinded = entity("Blinded", "condition")  # also referenced by the spells book
    charmed = entity("Charmed", "condition")
    fact_store(text="Charmed creatures cannot attack the charmer.", subject=charmed)
    frightened = entity("Frightened", "condition")
    alias_add(entity=frightened, alias="Scared")
    prone = entity("Prone", "condition")
    prone.curated = True
    prone.save()
    protected = {blinded.pk, charmed.pk, frightened.pk, prone.pk}
    only_here = set(
        Mention.objects.filter(book=conditions).values_list("entity_id", flat=True)
    ) - set(Mention.objects.exclude(book=conditions).values_list("entity_id", flat=True))
    orphans = only_here - protected
    assert orphans  # e.g. "Stunned", named by no other book

    summary = book_delete(book=conditions, actor=None)

    assert not Book.objects.filter(pk=conditions.pk).exists()
    assert not Chunk.objects.filter(book_id=conditions.pk).exists()
    assert not Mention.objects.filter(book_id=conditions.pk).exists()
    assert not Entity.objects.filter(pk__in=orphans).exists()
    assert set(Entity.objects.filter(pk__in=protected).values_list("pk", flat=True)) == protected
    assert summary["entities_removed"] == len(orphans)
    assert Mention.objects.filter(entity=blinded, mention_type="references").exists()
    assert entity("Acid Arrow", "spell")  # the other book's entities are untouched


def test_entity_books_and_related_chunks_cross_books(ingest):
    ingest(CONDITIONS)
    ingest(SPELLS)
    blinded = entity("Blinded", "condition")
    books = entity_books(entity=blinded)
    assert [b.book.source_name for b in books][0] == CONDITIONS
    assert {b.book.source_name for b in books} == {CONDITIONS, SPELLS}
    spell_chunk = next(
        c
        for c in Chunk.objects.filter(book__source_name=SPELLS)
        if c.heading_path[-1:] == ["Blindness/Deafness"]
    )
    related = chunk_related(chunk=spell_chunk, limit=3)
    assert related and all(r.chunk.book.source_name == CONDITIONS for r in related)
    headings = [r.chunk.heading_path[-1] for r in related]
    assert "Blinded" in headings[:2]


def _pdf(text: str) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def test_pdf_book_is_ingested(db):
    entity_store(name="Sherlock Holmes", type="person")
    text = (
        "CHAPTER I\n\nSherlock Holmes took his bottle from the corner of the mantelpiece. "
        "Watson watched him. Sherlock Holmes was silent for a long while.\n\n"
        "CHAPTER II\n\nThe next morning Sherlock Holmes went out early."
    )
    result = book_ingest(data=_pdf(text), filename="holmes.pdf", title="Holmes PDF")
    assert result.book.format == "pdf"
    assert result.chunks >= 1
    holmes = entity("Sherlock Holmes", "person")
    found = Mention.objects.filter(entity=holmes, book=result.book)
    assert found.exists()
    assert all(m.mention_type == "references" for m in found)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"data": b"", "filename": "empty.md"}, "file"),
        ({"data": b"   \n\n", "filename": "blank.txt"}, "file"),
        ({"data": b"# Title\n\ntext", "filename": "book.docx"}, "format"),
        ({"path": "/nonexistent/book.md"}, "path"),
    ],
)
def test_bad_input_is_rejected_and_stores_nothing(db, kwargs, field):
    with pytest.raises(InvalidInput) as caught:
        book_ingest(**kwargs)
    assert caught.value.field == field
    assert not Book.objects.exists()


def test_job_records_progress_and_result(db, book_path, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = ingest_job_create(
            filename=CONDITIONS, data=book_path(CONDITIONS).read_bytes(), extractor="offline"
        )
    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE
    assert job.total > 0 and job.done == job.total
    assert job.book is not None and job.book.chunk_count > 0
    assert job.result["action"] == "created"
    assert job.finished_at is not None


def test_job_failure_is_recorded_and_notified(
    db, book_path, monkeypatch, django_capture_on_commit_callbacks
):
    from books.extraction import offline

    def boom(self, chunks, *, lexicon, progress=None):
        raise RuntimeError("extractor crashed")

    monkeypatch.setattr(offline.OfflineExtractor, "extract", boom)
    with django_capture_on_commit_callbacks(execute=True):
        job = ingest_job_create(
            filename=CONDITIONS, data=book_path(CONDITIONS).read_bytes(), extractor="offline"
        )
    job.refresh_from_db()
    assert job.status == IngestJob.Status.FAILED
    assert "extractor crashed" in job.error
    assert not Book.objects.exists()
    note = Notification.objects.get(type="job_failed")
    assert note.payload["job_id"] == job.pk


def test_upload_is_kept_for_the_worker(db, book_path, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    job = ingest_job_create(filename="c.md", data=book_path(CONDITIONS).read_bytes())
    assert job.source_path.startswith(str(tmp_path))
    assert Path(job.source_path).read_bytes() == book_path(CONDITIONS).read_bytes()


def test_split_catalogue_table_keeps_its_group_aliases(ingest, settings):
    # At 250 characters the saddle table is cut into several chunks: the rows after
    # the cut still belong to their "*Saddle*" group row.
    settings.KGSITE_CHUNK_MAX_CHARS = 250
    ingest(EQUIPMENT)
    for name in ("Exotic", "Military", "Pack", "Riding"):
        saddle = entity(name, "equipment")
        assert saddle.aliases.filter(alias_norm=f"{name.casefold()} saddle").exists(), name


def test_heading_naming_a_stored_entity_defines_it(db):
    from entities.models import Alias

    glimmerwyrm, _ = entity_store(name="Glimmerwyrm", type="monster")
    text = (
        "# Field Notes\n\n## Glimmerwyrm\n\nWe met one at dusk; it hoarded gems.\n\n"
        "## Dusk\n\nThe Glimmerwyrm flew off.\n"
    )
    book_ingest(data=text.encode(), filename="notes.md", extractor="offline")
    marks = list(entity_mentions(entity=glimmerwyrm))
    assert [(m.mention_type, m.chunk.heading_path[-1]) for m in marks] == [
        ("defines", "Glimmerwyrm"),
        ("references", "Dusk"),
    ]
    assert not Alias.objects.filter(entity=glimmerwyrm).exists()
    # A second book with the same heading only references it: the first defines it.
    book_ingest(data=text.encode(), filename="more-notes.md", extractor="offline")
    assert Mention.objects.filter(entity=glimmerwyrm, mention_type="defines").count() == 1


def _lexicon_queries(names: list[str]) -> int:
    """Queries the lexicon phase runs for a book whose headings name ``names``."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from books.services import _lexicon, _parse_chunks

    text = "# Field Notes\n\n" + "".join(f"## {n}\n\nWe met one at dusk.\n\n" for n in names)
    document, chunks = _parse_chunks(text.encode(), "markdown")
    with CaptureQueriesContext(connection) as queries:
        _lexicon(chunks, document.text, "field notes")
    return len(queries)


def test_lexicon_queries_do_not_grow_with_the_names_a_book_defines(db):
    names = [f"Glimmerwyrm {i}" for i in range(12)]
    for name in names:
        entity_store(name=name, type="monster")
    # Another book defines some of them, so each heading asks "defined elsewhere?".
    book_ingest(
        data="".join(f"## {n}\n\nA shy beast.\n\n" for n in names[:6]).encode(),
        filename="bestiary.md",
        extractor="offline",
    )
    # Two headings (one defined elsewhere, one not) cost what twelve cost.
    assert _lexicon_queries(names[5:7]) == _lexicon_queries(names)


# --- context excerpts -------------------------------------------------------------------


def excerpt_of(text: str, surface: str) -> str:
    from books.services import context_excerpt

    at = text.index(surface)
    return context_excerpt(text, at, at + len(surface))


def test_context_keeps_abbreviations_inside_the_sentence():
    text = "I rang the bell. It was Mr. Holmes himself who opened. He smiled at me. Then he left."
    assert excerpt_of(text, "Holmes") == "It was Mr. Holmes himself who opened. He smiled at me."


def test_context_of_the_last_sentence_and_of_a_heading():
    text = (
        "## Deafened\n\n- A deafened creature can't hear and fails any check that requires hearing"
    )
    # The heading is followed by the sentence under it; the text's end ends a sentence.
    assert excerpt_of(text, "Deafened") == (
        "Deafened — A deafened creature can't hear and fails any check that requires hearing"
    )
    assert excerpt_of(text, "deafened") == (
        "A deafened creature can't hear and fails any check that requires hearing"
    )


def test_context_is_one_or_two_sentences_of_plain_text():
    text = (
        "***Armor Proficiency***. Anyone can put on a suit of armor. Only those "
        "proficient in the armor's use know how to wear it effectively, however. Your "
        "class gives you proficiency with certain types of armor."
    )
    assert (
        excerpt_of(text, "Armor Proficiency")
        == "Armor Proficiency. Anyone can put on a suit of armor."
    )
    row = "| Armor | Cost |\n|---|---|\n| Leather | 10 gp |\n| Padded | 5 gp |"
    assert excerpt_of(row, "Leather") == "Leather | 10 gp"


def test_stored_contexts_have_no_markdown_headings(ingest):
    ingest(CONDITIONS)
    contexts = list(Mention.objects.values_list("context", flat=True))
    assert contexts and not [c for c in contexts if c.startswith("#") or "##" in c]
    deafened = Mention.objects.get(entity=entity("Deafened", "condition"), mention_type="defines")
    assert deafened.context.startswith("Deafened — ")
    assert "can't hear" in deafened.context


# --- novels, failures, garbage collection, progress --------------------------------------


def test_novel_aliases_resolve_to_one_entity_that_is_only_referenced(ingest):
    # What a curator does before feeding the novel: one person, the names used for him.
    holmes, _ = entity_store(name="Sherlock Holmes", type="person")
    alias_add(entity=holmes, alias="Holmes")
    alias_add(entity=holmes, alias="Mr. Holmes")
    book = ingest("holmes-excerpt.txt").book

    assert list(Entity.objects.filter(name_norm__contains="holmes")) == [holmes]
    mentions = Mention.objects.filter(entity=holmes, book=book)
    assert mentions.count() > 20
    assert set(mentions.values_list("mention_type", flat=True)) == {"references"}
    surfaces = {" ".join(s.split()) for s in mentions.values_list("surface", flat=True)}
    assert {"Holmes", "Mr. Holmes", "Sherlock Holmes"} <= surfaces
    # Every occurrence is counted on the one entity, whichever name the text uses.
    text = book_path_text("holmes-excerpt.txt")
    assert sum(mentions.values_list("count", flat=True)) == text.casefold().count("holmes")
    mr = mentions.filter(surface="Mr. Holmes").first()
    assert mr is not None and "Mr. Holmes" in mr.context


def book_path_text(name: str) -> str:
    from tests.books.conftest import DATA

    return " ".join((DATA / name).read_text(encoding="utf-8").split())


def test_failed_write_of_a_reingest_keeps_the_previous_version(ingest, book_path, monkeypatch):
    from books import services

    first = ingest(CONDITIONS).book
    before = (
        list(Chunk.objects.filter(book=first).values_list("pk", "ordinal", "text")),
        list(Mention.objects.filter(book=first).values_list("pk", "entity_id", "mention_type")),
    )
    entities = set(Entity.objects.values_list("pk", flat=True))

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    # Fails in the middle of the write step: old rows deleted, new chunks inserted.
    monkeypatch.setattr(services.writing, "context_excerpt", broken)
    changed = book_path(CONDITIONS).read_bytes() + b"\n\n## Dazed\n\nA dazed creature sways.\n"
    with pytest.raises(RuntimeError, match="disk full"):
        book_ingest(data=changed, filename=CONDITIONS, extractor="offline")

    book = Book.objects.get()
    assert book.pk == first.pk and book.content_hash == first.content_hash
    assert book.status == Book.Status.READY
    after = (
        list(Chunk.objects.filter(book=book).values_list("pk", "ordinal", "text")),
        list(Mention.objects.filter(book=book).values_list("pk", "entity_id", "mention_type")),
    )
    assert after == before
    assert set(Entity.objects.values_list("pk", flat=True)) == entities


def test_gc_spares_entities_a_curator_touched(ingest):
    from kgsite.models import audit

    conditions = ingest(CONDITIONS).book
    # An audit row alone (no curated flag) marks a curator's edit...
    stunned = entity("Stunned", "condition")
    audit(actor=None, action="entity.update", target=stunned, payload={"note": "checked"})
    assert not Entity.objects.get(pk=stunned.pk).curated
    # ...and so does an edit through the entity service (flag and audit row).
    from entities.services import entity_update

    petrified = entity_update(
        entity=entity("Petrified", "condition"), actor=None, description="Stone."
    )
    untouched = entity("Paralyzed", "condition")

    book_delete(book=conditions, actor=None)

    assert Entity.objects.filter(pk__in=[stunned.pk, petrified.pk]).count() == 2
    assert not Entity.objects.filter(pk=untouched.pk).exists()


def test_job_progress_is_visible_while_it_runs(
    db, book_path, monkeypatch, django_capture_on_commit_callbacks
):
    from books.extraction import offline

    seen: list[tuple[str, str, int, int, str]] = []
    original = offline.OfflineExtractor.extract
    monkeypatch.setattr(offline, "BATCH", 1)  # report after every chunk

    def watched(self, chunks, *, lexicon, progress=None):
        def spy(done: int) -> None:
            progress(done)
            job = IngestJob.objects.latest("pk")  # what GET /api/v1/jobs/<id>/ reads
            book = Book.objects.first()
            seen.append((job.status, job.phase, job.done, job.total, book and book.status))

        return original(self, chunks, lexicon=lexicon, progress=spy)

    monkeypatch.setattr(offline.OfflineExtractor, "extract", watched)
    first = ingest_now(book_path(CONDITIONS), django_capture_on_commit_callbacks)
    assert first.status == IngestJob.Status.DONE
    total = first.book.chunk_count
    done = [s[2] for s in seen]
    # Chunk by chunk: the structural pass counts the first half, NER's reading the rest.
    assert done == sorted(done) and done[-1] == total and len(set(done)) > total // 2
    assert {s[:2] for s in seen} == {("running", "extract")}
    assert {s[3] for s in seen} == {total}

    # Re-ingesting a changed file: meanwhile the stored book shows "ingesting".
    seen.clear()
    changed = book_path(CONDITIONS).read_bytes() + b"\n\nOne more closing sentence.\n"
    with django_capture_on_commit_callbacks(execute=True):
        job = ingest_job_create(filename=CONDITIONS, data=changed, extractor="offline")
    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE
    assert seen and {s[4] for s in seen} == {Book.Status.INGESTING}
    assert Book.objects.get().status == Book.Status.READY


def ingest_now(path: Path, capture) -> IngestJob:
    with capture(execute=True):
        job = ingest_job_create(filename=path.name, data=path.read_bytes(), extractor="offline")
    job.refresh_from_db()
    return job


@pytest.mark.django_db
def test_a_name_in_the_possessive_is_the_name_not_a_second_entity():
    """NER read "Orla Brenn's island" as the person "Orla Brenn's": each possessive
    (straight or curly) became one more candidate, and the chunk did not mention Orla
    Brenn. A name whose own word holds the apostrophe stays whole."""
    text = (
        "# Harbour\n\n## Lights\n\nOrla Brenn keeps the lamp at Pope's Court.\n\n"
        "## Ferries\n\nThe Morning Ferry sails to Orla Brenn's island. Orla Brenn’s boat "
        "is red, moored at Pope's Court.\n"
    )
    book = book_ingest(data=text.encode(), filename="harbour.md", extractor="offline").book
    names = set(Entity.objects.values_list("canonical_name", flat=True))
    assert "Orla Brenn" in names
    assert not {n for n in names if n.startswith("Orla Brenn") and n != "Orla Brenn"}
    ferries = next(c for c in Chunk.objects.filter(book=book) if "Ferries" in c.heading_path)
    assert ferries.mentions.filter(entity__canonical_name="Orla Brenn").exists()


def _made_up_name(n: int) -> str:
    """A person's name no dictionary knows, one per ``n`` (each chunk names new people)."""
    syllables = ["ka", "lo", "mi", "ran", "tes", "vo", "qua", "zen"]
    digits = [(n >> shift) & 7 for shift in (0, 3, 6, 9)]
    first = "".join(syllables[d] for d in digits[:2]).capitalize()
    return f"{first} {''.join(syllables[d] for d in digits[2:]).capitalize()}brook"


@pytest.mark.django_db
def test_the_extract_count_moves_while_ner_reads_not_before(monkeypatch):
    """The structural pass counted every chunk done before NER, the long part, began:
    the job page stood at '300 / 300' while NER read the book."""
    from books.chunking import chunk_sections
    from books.extraction import offline
    from books.parsing import parse_document
    from books.services.lexicon import _lexicon

    text = "".join(
        f"## Part {n}\n\n{_made_up_name(n)} met {_made_up_name(n + 300)} at the quay.\n\n"
        for n in range(300)
    )
    document = parse_document(text.encode(), fmt="markdown")
    chunks = chunk_sections(document.sections, max_chars=400)
    seen: list[int] = []
    at_ner: list[int] = []
    real = offline.OfflineExtractor._add_new_names

    def watched(self, *args, **kwargs):
        at_ner.append(seen[-1])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(offline.OfflineExtractor, "_add_new_names", watched)
    lexicon = _lexicon(chunks, document.text, "quay")
    offline.OfflineExtractor().extract(chunks, lexicon=lexicon, progress=seen.append)
    total = len(chunks)
    assert at_ner and at_ner[0] <= total // 2
    assert seen == sorted(seen) and seen[-1] == total
    assert len([n for n in seen if total // 2 < n < total]) >= 2  # counted as NER read on
