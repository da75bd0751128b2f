"""import_graph / export_graph on files an operator might really hand them: every refusal
is one readable line, and a refused import leaves the database as it was."""

from __future__ import annotations

import errno
import io
import json
import threading
from collections import Counter

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connections

from entities.models import Alias, Entity
from entities.services import alias_add, entity_store
from kgsite.graph_io import graph_export
from kgsite.models import AuditEntry
from tests.commands import command_fails

pytestmark = pytest.mark.django_db(transaction=True)


def exported(tmp_path, name: str = "graph.jsonl"):
    path = tmp_path / name
    call_command("export_graph", str(path), verbosity=0, stdout=io.StringIO())
    return path


@pytest.fixture
def one_entity_export(tmp_path, settings):
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    entity_store(name="Ankara", type="place", description="capital city")
    path = exported(tmp_path)
    Entity.objects.all().delete()
    AuditEntry.objects.all().delete()  # entity_store's row: the graph must be empty
    return path


def test_an_empty_graph_exports_a_header_that_imports_back_to_nothing(tmp_path, settings):
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    path = exported(tmp_path)
    header = json.loads(path.read_text().splitlines()[0])
    assert header["format"] == "kgsite-graph" and set(header["tables"].values()) == {0}
    out = io.StringIO()
    call_command("import_graph", str(path), "--skip-derived", verbosity=0, stdout=out)
    assert "0 rows imported" in out.getvalue()


def test_an_export_to_standard_output_is_the_same_file(tmp_path, settings, capsys):
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    entity_store(name="Bursa", type="place")
    path = exported(tmp_path)
    call_command("export_graph", "-", verbosity=0)
    assert capsys.readouterr().out == path.read_text()


def test_an_export_into_a_missing_folder_is_one_line(tmp_path):
    assert "cannot write" in command_fails("export_graph", str(tmp_path / "no" / "g.jsonl"))


def test_a_failed_export_leaves_the_previous_backup_whole(tmp_path, settings, monkeypatch):
    """The file was truncated first: a full disk half-way lost last night's backup too,
    and the failure was a traceback."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    entity_store(name="Izmir", type="place")
    path = exported(tmp_path)
    backup = path.read_bytes()
    entity_store(name="Konya", type="place")

    def disk_full(*, out, progress=None):
        out.write('{"format": "kgsite-graph"}\n')
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("kgsite.management.commands.export_graph.graph_export", disk_full)
    says = command_fails("export_graph", str(path))
    assert says == f"cannot write {path}: No space left on device"
    assert path.read_bytes() == backup
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.jsonl", "vectors"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "not a kgsite-graph export"),
        ("hello\n", "not a kgsite-graph export"),
        ("[1, 2]\n", "not a kgsite-graph export"),
        ('{"format": "other"}\n', "not a kgsite-graph export"),
        ('{"format": "kgsite-graph", "version": 99}\n', "version 99"),
    ],
)
def test_a_file_that_is_no_export_is_refused_by_its_first_line(tmp_path, text, says):
    path = tmp_path / "odd.jsonl"
    path.write_text(text)
    assert says in command_fails("import_graph", str(path), "--skip-derived", "--verbosity=0")


def test_a_missing_file_and_a_folder_are_one_line(tmp_path):
    assert "cannot read" in command_fails("import_graph", str(tmp_path / "absent.jsonl"))
    assert "cannot read" in command_fails("import_graph", str(tmp_path))


@pytest.mark.parametrize(
    "header_change",
    [{"tables": ["entities.Entity"]}, {"tables": {"entities.Entity": "one"}}, {"users": "bob"}],
)
def test_a_header_of_the_wrong_shape_is_refused_and_creates_no_user(
    one_entity_export, header_change
):
    lines = one_entity_export.read_text().splitlines()
    header = json.loads(lines[0]) | header_change
    one_entity_export.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    message = command_fails("import_graph", str(one_entity_export), "--skip-derived", "-v0")
    assert "header" in message
    assert not Entity.objects.exists() and not User.objects.exists()


def test_a_file_in_another_code_page_is_one_line_and_writes_nothing(one_entity_export):
    text = one_entity_export.read_text().replace("capital city", "başkent")
    one_entity_export.write_bytes(text.encode("latin-1", errors="replace").replace(b"?", b"\xfe"))
    message = command_fails("import_graph", str(one_entity_export), "--skip-derived", "-v0")
    assert "UTF-8" in message
    assert not Entity.objects.exists()


def test_blank_lines_between_rows_are_no_rows(one_entity_export):
    lines = one_entity_export.read_text().splitlines()
    one_entity_export.write_text("\n\n".join(lines) + "\n\n")
    call_command(
        "import_graph", str(one_entity_export), "--skip-derived", verbosity=0, stdout=io.StringIO()
    )
    assert Entity.objects.get().canonical_name == "Ankara"


@pytest.mark.parametrize(
    "row",
    [
        '"just a string"',
        '{"model": "auth.user", "pk": 5, "fields": {"username": "mallory"}}',
        '{"model": "nosuch.table", "pk": 1, "fields": {}}',
        '{"model": "entities.entity", "pk": 1}',
    ],
)
def test_a_row_that_is_no_graph_row_names_its_line(one_entity_export, row):
    lines = one_entity_export.read_text().splitlines()
    one_entity_export.write_text("\n".join([*lines, row]) + "\n")
    message = command_fails("import_graph", str(one_entity_export), "--skip-derived", "-v0")
    assert f"line {len(lines) + 1}" in message
    assert not Entity.objects.exists() and not User.objects.filter(username="mallory").exists()


def test_an_export_while_the_site_writes_holds_what_its_header_counts(tmp_path, settings):
    """The header counted the tables first, the rows were read later: a row written in
    between made a backup that import_graph refused ("a truncated export?")."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    ankara, _ = entity_store(name="Ankara", type="place")
    entity_store(name="Bursa", type="place")
    failures: list[BaseException] = []

    def another_request_adds_an_alias() -> None:
        try:
            alias_add(entity=Entity.objects.get(pk=ankara.pk), alias="Angora")
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            failures.append(exc)
        finally:
            connections.close_all()

    writers: list[threading.Thread] = []

    def meanwhile(_rows: int) -> None:
        if not writers:  # once, after the first row (an entity) is written
            writers.append(threading.Thread(target=another_request_adds_an_alias))
            writers[0].start()
            writers[0].join()

    out = io.StringIO()
    graph_export(out=out, progress=meanwhile)
    assert not failures, failures  # the export held no writer off
    lines = out.getvalue().splitlines()
    promised = {label: n for label, n in json.loads(lines[0])["tables"].items() if n}
    held = Counter(apps.get_model(json.loads(line)["model"])._meta.label for line in lines[1:])
    assert dict(held) == promised
    assert Alias.objects.filter(alias="Angora").exists()


@pytest.mark.parametrize(
    ("row", "says"),
    [
        ('{"pk": 1, "fields": {}}', "the row has no 'model' field"),
        ('{"model": "entities.entity", "pk": "x1"}', "the row has no 'fields' field"),
        ('["entities.entity", 1]', "not a JSON object"),
    ],
)
def test_a_row_missing_a_part_says_which(one_entity_export, row, says):
    lines = one_entity_export.read_text().splitlines()
    one_entity_export.write_text("\n".join([*lines, row]) + "\n")
    message = command_fails("import_graph", str(one_entity_export), "--skip-derived", "-v0")
    assert message.startswith(f"line {len(lines) + 1}: ") and says in message
    assert not Entity.objects.exists()


def test_a_row_naming_a_row_the_file_lacks_is_one_line_and_writes_nothing(one_entity_export):
    """Foreign keys are checked at commit: an alias of an entity the file does not hold
    (an export edited by hand, rows cut out of it) ended the import in a traceback."""
    lines = one_entity_export.read_text().splitlines()
    header = json.loads(lines[0])
    header["tables"]["entities.Alias"] = 1
    alias = {
        "model": "entities.alias",
        "pk": 7,
        "fields": {
            "entity": "NotInTheFile",
            "alias": "Angora",
            "alias_norm": "angora",
            "type": "place",
            "manual": True,
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
        },
    }
    one_entity_export.write_text("\n".join([json.dumps(header), *lines[1:], json.dumps(alias)]))
    message = command_fails("import_graph", str(one_entity_export), "--skip-derived", "-v0")
    assert "does not hold" in message and "NotInTheFile" in message
    assert not Entity.objects.exists() and not Alias.objects.exists()


def test_two_rows_of_one_id_are_refused_not_one_kept(one_entity_export):
    """The second row overwrote the first and the counts still matched: the file's
    'Ankara' was lost without a word."""
    lines = one_entity_export.read_text().splitlines()
    header = json.loads(lines[0])
    header["tables"]["entities.Entity"] = 2
    twin = json.loads(lines[1])
    twin["fields"] |= {"canonical_name": "Bursa", "name_norm": "bursa"}
    rows = [json.dumps(header), lines[1], json.dumps(twin), *lines[2:]]
    one_entity_export.write_text("\n".join(rows) + "\n")
    message = command_fails("import_graph", str(one_entity_export), "--skip-derived", "-v0")
    assert message.startswith("line 3: ") and "on line 2 already" in message
    assert not Entity.objects.exists()


def test_a_new_export_keeps_the_permissions_of_the_backup_it_replaces(tmp_path, settings):
    """An operator's chmod 600 on the backup (it holds usernames and the audit log) was
    undone by the next export, which came out readable by every user of the host."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    entity_store(name="Ankara", type="place")
    path = exported(tmp_path)
    path.chmod(0o600)
    entity_store(name="Bursa", type="place")
    exported(tmp_path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert "Bursa" in path.read_text()


def test_an_export_through_a_symbolic_link_updates_the_file_it_points_to(tmp_path, settings):
    """graph.jsonl linked to a backup disk: the export replaced the link with a file of
    its own, and the backup it pointed to stayed at the night the link was made."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    entity_store(name="Ankara", type="place")
    (tmp_path / "disk").mkdir()
    backup = exported(tmp_path / "disk", "graph.jsonl")
    link = tmp_path / "graph.jsonl"
    link.symlink_to(backup)
    entity_store(name="Bursa", type="place")
    exported(tmp_path)
    assert link.is_symlink()
    assert "Bursa" in backup.read_text()
