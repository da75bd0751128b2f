"""The operators' commands given several files, directories, patterns and wrong arguments:
what they print, what they leave in the database, and that a mistake is one line with a
non-zero exit.

``ingest_book`` runs in-process with ``--sync`` (the queue is synchronous in tests too)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command, get_commands, load_command_class

from books.models import Book, Chunk, IngestJob, Mention
from entities.models import Entity
from tests.commands import command_fails as fails

pytestmark = pytest.mark.django_db

KITES = b"# Kites\n\n## Box kite\n\nThe Box kite flies in strong wind.\n"
SPOOLS = b"# Spools\n\n## Reel\n\nA Reel keeps the line of the Box kite.\n"


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def shelf(tmp_path):
    """A folder of books as an operator keeps them: two books, a sub-folder, a note in a
    format nobody reads and a hidden file."""
    (tmp_path / "kites.md").write_bytes(KITES)
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "spools.md").write_bytes(SPOOLS)
    (tmp_path / "more" / "notes.docx").write_bytes(b"not read")
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x01")
    return tmp_path


# --- ingest_book --------------------------------------------------------------------------------


def test_a_folder_is_ingested_recursively_and_what_is_skipped_is_said(shelf):
    out, err = run("ingest_book", str(shelf), "--sync")
    assert sorted(Book.objects.values_list("title", flat=True)) == ["kites", "spools"]
    assert out.count("created: book") == 2
    assert "notes.docx: not a supported format" in err
    assert ".DS_Store" not in err  # hidden files are not worth a line


def test_a_pattern_and_a_file_named_twice_ingest_each_book_once(shelf):
    out, _err = run("ingest_book", str(shelf / "*.md"), str(shelf / "kites.md"), "--sync")
    assert out.count("created: book") == 1
    assert list(Book.objects.values_list("title", flat=True)) == ["kites"]
    assert IngestJob.objects.count() == 1


def test_a_pattern_matching_nothing_is_one_line(shelf):
    assert fails("ingest_book", str(shelf / "*.epub"), "--sync").startswith("No file matches")
    assert not Book.objects.exists()


def test_a_folder_with_nothing_supported_is_one_line(tmp_path):
    (tmp_path / "notes.docx").write_bytes(b"x")
    assert "No supported file to ingest" in fails("ingest_book", str(tmp_path))
    assert not IngestJob.objects.exists()


def test_title_and_author_name_one_book(shelf):
    message = fails("ingest_book", str(shelf), "--title", "Everything", "--sync")
    assert message == "--title and --author name one book: give a single file."
    assert not Book.objects.exists() and not IngestJob.objects.exists()


def test_one_bad_file_among_several_fails_the_command_but_not_the_others(shelf):
    (shelf / "empty.md").write_bytes(b"  \n")
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("ingest_book", str(shelf), "--sync", stdout=out, stderr=err)
    assert str(caught.value) == "1 of 3 files could not be ingested"
    assert "empty.md: The uploaded document is empty." in err.getvalue()
    assert Book.objects.count() == 2


def test_ingesting_a_changed_file_says_replaced_and_leaves_no_stale_rows(tmp_path):
    path = tmp_path / "kites.md"
    path.write_bytes(KITES)
    run("ingest_book", str(path), "--sync")
    box = Entity.objects.get(name_norm="box kite")
    path.write_bytes(b"# Kites\n\n## Delta kite\n\nThe Delta kite flies in light wind.\n")
    out, _err = run("ingest_book", str(path), "--sync")
    assert out.startswith("replaced: book")
    book = Book.objects.get()
    assert not Entity.objects.filter(pk=box.pk).exists()  # only the old version named it
    assert Mention.objects.filter(book=book).exclude(chunk__book=book).count() == 0
    surfaces = set(Mention.objects.values_list("surface", flat=True))
    assert "Delta kite" in surfaces and "Box kite" not in surfaces
    assert Chunk.objects.filter(book=book).count() == book.chunk_count


def test_the_command_line_exits_non_zero_with_one_line_for_a_missing_file(tmp_path, capsys):
    command = load_command_class(get_commands()["ingest_book"], "ingest_book")
    with pytest.raises(SystemExit) as caught:
        command.run_from_argv(["manage.py", "ingest_book", str(tmp_path / "gone.md"), "--sync"])
    assert caught.value.code not in (0, None)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines == [f"CommandError: No such file or directory: {tmp_path / 'gone.md'}"]


@pytest.mark.django_db(transaction=True)
def test_a_file_the_queue_refuses_is_one_line_and_a_non_zero_exit(tmp_path, monkeypatch, capsys):
    """With the broker down the command printed a traceback (or, its job failed,
    'job 1 failed' and exit 0)."""
    from books.services import jobs

    def refused(*args, **kwargs):
        raise ConnectionError("Connection refused")

    monkeypatch.setattr(jobs.queue, "async_task", refused)
    (tmp_path / "kites.md").write_bytes(KITES)
    command = load_command_class(get_commands()["ingest_book"], "ingest_book")
    with pytest.raises(SystemExit) as caught:
        command.run_from_argv(["manage.py", "ingest_book", str(tmp_path / "kites.md")])
    assert caught.value.code not in (0, None)
    err = capsys.readouterr().err
    assert "CommandError: job " in err and "could not be queued" in err
    assert "Traceback" not in err


def test_no_path_at_all_is_a_usage_error(capsys):
    command = load_command_class(get_commands()["ingest_book"], "ingest_book")
    with pytest.raises(SystemExit) as caught:
        command.run_from_argv(["manage.py", "ingest_book"])
    assert caught.value.code == 2
    assert "the following arguments are required: PATH" in capsys.readouterr().err


# --- delete_book -------------------------------------------------------------------------------


def test_delete_prints_what_went_and_what_stayed(tmp_path):
    (tmp_path / "kites.md").write_bytes(KITES)
    (tmp_path / "spools.md").write_bytes(SPOOLS)
    run("ingest_book", str(tmp_path), "--sync")
    spools = Book.objects.get(title="spools")
    box = Entity.objects.get(name_norm="box kite")
    assert Mention.objects.filter(book=spools, entity=box).exists()
    out, _err = run("delete_book", "  SPOOLS ")  # the title as normalised
    assert out == (
        f"deleted book {spools.pk} 'spools': {spools.chunk_count} chunks, "
        "0 entities removed, 1 kept\n"
    )
    assert Entity.objects.filter(pk=box.pk).exists()  # the other book still names it
    assert not Mention.objects.filter(book_id=spools.pk).exists()
    assert not Chunk.objects.filter(book_id=spools.pk).exists()
    out, _err = run("delete_book", "kites")
    assert out.endswith("1 entity removed, 0 kept\n")
    assert not Entity.objects.exists() and not Mention.objects.exists()


def test_delete_by_a_number_that_is_also_a_title_takes_the_id_first(tmp_path):
    (tmp_path / "1984.md").write_bytes(KITES)
    run("ingest_book", str(tmp_path / "1984.md"), "--sync")
    book = Book.objects.get()
    assert book.title == "1984"
    assert "No book" in fails("delete_book", str(book.pk + 5000))
    out, _err = run("delete_book", "1984")
    assert f"deleted book {book.pk} '1984'" in out


@pytest.mark.parametrize("raw", ["²", "①", "9" * 25])
def test_delete_by_digits_that_are_no_id_is_one_line(tmp_path, raw):
    (tmp_path / "kites.md").write_bytes(KITES)
    run("ingest_book", str(tmp_path / "kites.md"), "--sync")
    assert f"No book titled or numbered {raw!r}" in fails("delete_book", raw)
    assert Book.objects.count() == 1


# --- the graph and vector commands ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("rebuild_vectors", "--kind", "books"), "unknown kind 'books'; known kinds: "),
        (("calibrate_vectors", "--kind", "nope"), "unknown kind 'nope'"),
        (("calibrate_vectors", "--target", "0"), "--target must be above 0 and at most 1"),
        (("calibrate_vectors", "--target", "1.5"), "--target must be above 0 and at most 1"),
        (("calibrate_vectors", "--k", "0"), "--k and --queries must be at least 1"),
        (("calibrate_vectors", "--queries", "-4"), "--k and --queries must be at least 1"),
    ],
)
def test_a_wrong_vector_argument_is_one_line(args, says):
    assert says in fails(*args)


def test_export_to_standard_output_is_json_lines_with_the_counts_first(tmp_path, capsys):
    (tmp_path / "kites.md").write_bytes(KITES)
    run("ingest_book", str(tmp_path / "kites.md"), "--sync")
    call_command("export_graph", "-", verbosity=0)
    lines = capsys.readouterr().out.splitlines()
    header = json.loads(lines[0])
    assert header["tables"] and sum(header["tables"].values()) == len(lines) - 1
    assert all(json.loads(line) for line in lines[1:])


def test_an_import_into_a_graph_with_rows_is_refused_and_changes_nothing(tmp_path):
    (tmp_path / "kites.md").write_bytes(KITES)
    run("ingest_book", str(tmp_path / "kites.md"), "--sync")
    export = tmp_path / "graph.jsonl"
    run("export_graph", str(export), "--verbosity", "0")
    before = (Entity.objects.count(), Book.objects.count(), Mention.objects.count())
    message = fails("import_graph", str(export), "--verbosity", "0")
    assert "graph" in message.lower() or "empty" in message.lower()
    assert (Entity.objects.count(), Book.objects.count(), Mention.objects.count()) == before


def test_a_file_whose_name_looks_like_a_pattern_is_taken_by_its_name(tmp_path):
    odd = tmp_path / "[draft] kites?.md"
    odd.write_bytes(KITES)
    (tmp_path / "d kites!.md").write_bytes(SPOOLS)  # what "[draft]" would match as a pattern
    out, _err = run("ingest_book", str(odd), "--sync")
    assert out.count("created: book") == 1
    assert list(Book.objects.values_list("source_name", flat=True)) == ["[draft] kites?.md"]
