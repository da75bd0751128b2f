"""Management commands given bad input: one readable line, a non-zero exit, nothing written.

An operator runs these by hand or from cron. A missing file, a file of the wrong kind,
an unknown id or an empty name must end the command with one line that says what was
wrong (and which file or argument), never a traceback, and must leave the database as
it was. One case goes through the command line entry point to check the exit status.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command, get_commands, load_command_class
from django.core.management.base import CommandError

from books.models import Book, Chunk, Mention
from entities.models import Alias, Entity, Fact

pytestmark = pytest.mark.django_db

CONTENT = {
    "bad.json": "{not json\n",
    "empty.json": "",
    "list.json": "[1, 2, 3]\n",
    "one-column.tsv": "just a name\n",
    "notes.jsonl": '{"text": "not a database"}\n',
    "no-queries.json": '{"memories": [], "queries": []}\n',
    "gold-header.tsv": "doc\tkind\tnames\ttype\tdefining_heading\n",
}


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Entity, Alias, Fact, Book, Chunk, Mention))


def fail(tmp_path: Path, *args: str) -> str:
    """Run a command that must fail; its one line, with file names made relative."""
    real = []
    for arg in args:
        if arg in CONTENT:
            (tmp_path / arg).write_text(CONTENT[arg], encoding="utf-8")
            arg = str(tmp_path / arg)
        real.append(arg)
    before = counts()
    with pytest.raises(CommandError) as caught:
        call_command(*real)
    message = str(caught.value)
    assert message.strip() and "\n" not in message, message
    assert "Traceback" not in message
    assert counts() == before, "a failed command wrote to the database"
    return message.replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("import_graph", "/nonexistent/graph.json"), "cannot read /nonexistent/graph.json"),
        (("import_graph", "bad.json"), "not a kgsite-graph export"),
        (("import_graph", "empty.json"), "not a kgsite-graph export"),
        (("import_graph", "list.json"), "not a kgsite-graph export"),
        (("export_graph", "/nonexistent/dir/graph.json"), "cannot write /nonexistent/dir"),
        (("import_entity_kg", "/nonexistent/kg.db"), "/nonexistent/kg.db is not a file"),
        (("import_entity_kg", "notes.jsonl"), "notes.jsonl is not an SQLite database"),
        (("load_gazetteer", "/nonexistent/names.tsv"), "no such file: /nonexistent/names.tsv"),
        (("load_gazetteer", "one-column.tsv"), "one-column.tsv:1: expected 3"),
        (("ingest_book", "/nonexistent/book.md", "--sync"), "No such file"),
        (("eval_contradictions", "/nonexistent/pairs.jsonl"), "/nonexistent/pairs.jsonl"),
        (("eval_contradictions", "bad.json"), "bad.json:1: invalid JSON"),
        # An empty pair file: a table of zeros (eval), a numpy traceback (train).
        (("eval_contradictions", "empty.json"), "empty.json: holds no pairs"),
        (
            ("train_pair_model", "empty.json", "--encoders", "none", "--dry-run"),
            "empty.json: holds no pairs",
        ),
        (("eval_recall", "/nonexistent/recall.json"), "/nonexistent/recall.json"),
        (("eval_recall", "list.json"), "expected an object with memories and queries"),
        (("eval_recall", "no-queries.json"), "no-queries.json: holds no queries"),
        # A gold file with its header only: zeros (eval), a numpy traceback (train).
        (("eval_extraction", "gold-header.tsv"), "gold-header.tsv: no gold rows"),
        (("train_extraction", "gold-header.tsv", "--no-save"), "gold-header.tsv: no gold rows"),
    ],
    ids=lambda value: value[0] if isinstance(value, tuple) else None,
)
def test_a_bad_file_is_one_line_naming_it(tmp_path, args, says) -> None:
    assert says in fail(tmp_path, *args)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("entity_get", ""), "name must not be empty"),
        (("entity_get", "Port\x00Crane"), "control characters"),
        (("entity_get", "Crane", "--type", "\u200b"), "U+200B"),
        (("find_duplicates", "no-such-entity"), "no entity with id 'no-such-entity'"),
        (("delete_book", ""), "Give a book title or id."),
        (("delete_book", "Unwritten Manual"), "'Unwritten Manual'"),
        (("delete_book", "999999"), "'999999'"),
    ],
    ids=lambda value: value[0] if isinstance(value, tuple) else None,
)
def test_a_bad_name_or_id_is_one_line_naming_it(tmp_path, args, says) -> None:
    assert says in fail(tmp_path, *args)


def test_a_broken_development_file_is_one_line_naming_it(tmp_path) -> None:
    """train_duplicates read its JSON files unchecked: a traceback."""
    (tmp_path / "recall_dev.json").write_text("{not json\n", encoding="utf-8")
    says = fail(tmp_path, "train_duplicates", "--eval-dir", str(tmp_path), "--dry-run")
    assert "recall_dev.json" in says


def test_an_unknown_option_is_one_line_naming_it(tmp_path) -> None:
    assert "--limit" in fail(tmp_path, "check_pending_facts", "--limit", "3")


def test_the_command_line_exits_non_zero_with_the_one_line(tmp_path, capsys) -> None:
    """What ``manage.py`` does with a command's error (``run_from_argv``), in this process:
    a second Django start costs seconds and would set logging up again."""
    missing = tmp_path / "graph.json"
    command = load_command_class(get_commands()["import_graph"], "import_graph")
    with pytest.raises(SystemExit) as caught:
        command.run_from_argv(["manage.py", "import_graph", str(missing)])
    assert caught.value.code not in (0, None)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [f"CommandError: cannot read {missing}: No such file or directory"], err
