"""ingest_book, delete_book and eval_defines: idempotent, one readable line on bad input."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from books.models import Book, IngestJob
from entities.models import Entity

CONDITIONS = "15-appendix-ph-a-conditions.md"


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_ingest_sync_then_again_is_unchanged(db, book_path):
    first = run("ingest_book", str(book_path(CONDITIONS)), "--sync", "--title", "Conditions")
    assert first.startswith("created: book")
    again = run("ingest_book", str(book_path(CONDITIONS)), "--sync", "--title", "Conditions")
    assert again.startswith("unchanged: book")
    assert Book.objects.get().title == "Conditions"
    # The counts of the book as stored, not of the nothing this run wrote.
    counts = re.compile(r"\d+ chunks, \d+ mentions \(\d+ defines\)")
    stored = counts.search(first).group()
    assert stored != "0 chunks, 0 mentions (0 defines)" and counts.search(again).group() == stored


def test_ingest_sync_parses_the_file_once(db, book_path, monkeypatch):
    from books import services

    parses = []
    real_parse = services.ingest.parse_document

    def counted(data, *, fmt):
        parses.append(fmt)
        return real_parse(data, fmt=fmt)

    monkeypatch.setattr(services.ingest, "parse_document", counted)
    out = run("ingest_book", str(book_path(CONDITIONS)), "--sync")
    assert out.startswith("created: book")
    assert parses == ["markdown"]
    job = IngestJob.objects.get()
    assert job.status == IngestJob.Status.DONE
    assert job.result["chunks"] == Book.objects.get().chunk_count > 0


def test_ingest_queued_runs_in_sync_queue(transactional_db, book_path):
    out = run("ingest_book", str(book_path(CONDITIONS)), "--author", "WotC")
    job = IngestJob.objects.get()
    assert f"job {job.pk}" in out
    assert job.status == IngestJob.Status.DONE
    assert Book.objects.get().author == "WotC"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (None, None, "No such file"),
        ("book.docx", b"# Title\n\nText.", "Unsupported file type (.docx)"),
        ("empty.md", b"  \n", "empty"),
    ],
)
@pytest.mark.parametrize("sync", [True, False])
def test_bad_input_exits_with_one_line(db, tmp_path, name, content, message, sync):
    path = tmp_path / (name or "missing.md")
    if content is not None:
        path.write_bytes(content)
    args = ["ingest_book", str(path)] + (["--sync"] if sync else [])
    with pytest.raises(CommandError) as caught:
        call_command(*args)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert not Book.objects.exists()


def test_delete_book_by_title_and_id(db, book_path):
    run("ingest_book", str(book_path(CONDITIONS)), "--sync")
    book = Book.objects.get()
    assert Entity.objects.filter(type="condition").exists()
    out = run("delete_book", book.title)
    assert "entities removed" in out
    assert not Book.objects.exists()
    assert not Entity.objects.filter(type="condition").exists()
    with pytest.raises(CommandError, match="No book"):
        call_command("delete_book", str(book.pk))


def test_eval_defines_reports_recall_precision_and_misses(db, book_path, tmp_path):
    run("ingest_book", str(book_path(CONDITIONS)), "--sync")
    tsv = tmp_path / "dev.tsv"
    tsv.write_text(
        "entity_name\tentity_type\tdefining_file\tdefining_heading\n"
        f"Blinded\tcondition\t{CONDITIONS}\tBlinded\n"
        f"Prone\tcondition\t{CONDITIONS}\tProne\n"
        f"Fireball\tspell\t11-spells.md\tFireball\n",
        encoding="utf-8",
    )
    out = run("eval_defines", str(tsv))
    assert "recall           0.667" in out
    assert "precision        1.000" in out
    assert "MISS 'Fireball' (spell)" in out


def test_eval_defines_rejects_missing_file(db):
    with pytest.raises(CommandError, match="No such file"):
        call_command("eval_defines", "/nonexistent.tsv")


@pytest.mark.parametrize("sync", [True, False])
def test_book_with_nothing_to_ingest_exits_with_one_line_and_no_job(
    transactional_db, unreadable_book, sync, caplog
):
    path, message = unreadable_book
    args = ["ingest_book", str(path)] + (["--sync"] if sync else [])
    with caplog.at_level("WARNING"), pytest.raises(CommandError) as caught:
        call_command(*args)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    # Nothing queued, no failed job row, no book; pypdf's own repair warnings
    # ("EOF marker not found") are not printed before our line.
    assert not IngestJob.objects.exists()
    assert not Book.objects.exists()
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]


def test_unknown_extractor_exits_with_one_line(db, book_path):
    with pytest.raises(CommandError) as caught:
        call_command("ingest_book", str(book_path(CONDITIONS)), "--extractor", "magic")
    assert str(caught.value) == "Unknown extractor 'magic': expected one of offline, llm."
    assert not IngestJob.objects.exists()


def test_two_files_of_one_name_in_a_folder_make_two_books(db, tmp_path):
    """A book is known by its title: a/notes.md and b/notes.md both titled "notes" made
    the second replace the first, and the first file's text was lost."""
    for folder, text in (("a", "The mill grinds barley."), ("b", "The lane ends at a chapel.")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.md").write_text(f"# Notes\n\n{text}\n", encoding="utf-8")
    out = run("ingest_book", str(tmp_path), "--sync")
    assert "replaced" not in out and out.count("created: book") == 2
    books = {b.title: b for b in Book.objects.all()}
    assert set(books) == {"a/notes", "b/notes"}
    assert "barley" in books["a/notes"].chunks.get().text
    assert "chapel" in books["b/notes"].chunks.get().text
    again = run("ingest_book", str(tmp_path), "--sync")
    assert again.count("unchanged: book") == 2 and Book.objects.count() == 2


def test_a_file_in_the_common_folder_keeps_its_plain_name(db, tmp_path):
    """notes.md beside sub/notes.md was titled "./notes"."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "notes.md").write_text("# Notes\n\nThe mill grinds barley.\n", encoding="utf-8")
    (tmp_path / "sub" / "notes.md").write_text("# Notes\n\nThe lane ends.\n", encoding="utf-8")
    out = run("ingest_book", str(tmp_path), "--sync")
    assert out.count("created: book") == 2, out
    assert sorted(Book.objects.values_list("title", flat=True)) == ["notes", "sub/notes"]


def test_two_files_of_one_stem_side_by_side_keep_their_extensions_apart(db, tmp_path):
    (tmp_path / "notes.md").write_text("# Notes\n\nThe mill grinds barley.\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("The lane ends at a chapel.\n", encoding="utf-8")
    out = run("ingest_book", str(tmp_path), "--sync")
    assert out.count("created: book") == 2, out
    assert sorted(Book.objects.values_list("title", flat=True)) == ["notes.md", "notes.txt"]
