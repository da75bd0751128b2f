"""import_graph folds names again: a file written by an older normalisation or by hand
cannot bring in two names that fold the same ("Straße" / "STRASSE"), an alias that is
another entity's name, or a name no lookup finds. Such a file is refused in one line
naming the row, and nothing of it is imported."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from entities.models import Alias, Entity
from entities.selectors import entity_lookup
from entities.services import alias_add, entity_store
from kgsite.models import AuditEntry
from tests.commands import command_fails
from tests.kgsite.test_graph_io_input import exported

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def rows(tmp_path, settings):
    """The header and rows of an export of one entity "Straße" with alias "Wegchen"."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    entity, _ = entity_store(name="Straße", type="place")
    alias_add(entity=entity, alias="Wegchen")
    lines = exported(tmp_path).read_text(encoding="utf-8").splitlines()
    Entity.objects.all().delete()
    AuditEntry.objects.all().delete()  # entity_store's row: the graph must be empty
    return [json.loads(line) for line in lines]


def _write(tmp_path, rows) -> str:
    header, body = rows[0], rows[1:]
    for label in header["tables"]:
        header["tables"][label] = sum(r["model"] == label.lower() for r in body)
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return str(path)


def _row(rows, model: str) -> dict:
    return next(r for r in rows[1:] if r["model"] == model)


def test_a_name_stored_with_another_folding_is_found_after_the_import(tmp_path, rows):
    _row(rows, "entities.entity")["fields"]["name_norm"] = "straße"  # lower(), not casefold
    _row(rows, "entities.alias")["fields"]["alias_norm"] = "WEGCHEN"
    call_command("import_graph", _write(tmp_path, rows), "--skip-derived", stdout=io.StringIO())
    for name in ("STRASSE", "straße", "wegchen"):
        found = entity_lookup(name=name).as_dict()["entity"]
        assert found and found["canonical_name"] == "Straße", name


def test_two_names_that_fold_the_same_are_refused_and_nothing_is_imported(tmp_path, rows):
    entity = _row(rows, "entities.entity")
    entity["fields"]["name_norm"] = "straße"
    twin = json.loads(json.dumps(entity))
    twin["pk"], twin["fields"]["canonical_name"] = "TwinTwinTwin", "STRASSE"
    twin["fields"]["name_norm"] = "strasse"
    rows.insert(2, twin)
    message = command_fails("import_graph", _write(tmp_path, rows), "--skip-derived")
    assert message.startswith("line 3: ") and "STRASSE" in message and "Straße" in message
    assert not Entity.objects.exists() and not Alias.objects.exists()


def test_an_alias_that_is_another_entitys_name_is_refused(tmp_path, rows):
    entity = _row(rows, "entities.entity")
    other = json.loads(json.dumps(entity))
    other["pk"], other["fields"]["canonical_name"] = "OtherOtherOt", "Wegchen"
    other["fields"]["name_norm"] = "wegchen"
    rows.insert(2, other)
    message = command_fails("import_graph", _write(tmp_path, rows), "--skip-derived")
    assert message.startswith("line 4: ") and "Wegchen" in message
    assert not Entity.objects.exists()


def test_a_type_written_another_way_is_the_same_tag_after_the_import(tmp_path, rows):
    for model in ("entities.entity", "entities.alias"):
        _row(rows, model)["fields"]["type"] = "Place"
    other = json.loads(json.dumps(_row(rows, "entities.entity")))
    other["pk"], other["fields"]["canonical_name"] = "OtherOtherOt", "STRASSE"
    other["fields"]["type"] = "place"
    call_command("import_graph", _write(tmp_path, rows), "--skip-derived", stdout=io.StringIO())
    assert set(Entity.objects.values_list("type", flat=True)) == {"place"}
    assert (
        entity_lookup(name="wegchen", type="Place").as_dict()["entity"]["canonical_name"]
        == "Straße"
    )
    rows.insert(2, other)
    Entity.objects.all().delete()
    AuditEntry.objects.all().delete()  # entity_store's row: the graph must be empty
    message = command_fails("import_graph", _write(tmp_path, rows), "--skip-derived")
    assert message.startswith("line 3: ") and "STRASSE" in message
