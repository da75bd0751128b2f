"""import_entity_kg on the files an operator really has: names with "#", "?", "%" or
spaces, facts whose confidence is not a number, rows without a usable name (a NUL in
one), a second store and a project scope (nothing of the import leaks into global
memory)."""

from __future__ import annotations

import io
import sqlite3

import pytest
from django.core.management import CommandError, call_command

from entities.imports.entity_kg import entity_kg_import
from entities.models import Entity, ExternalEntityId, Fact
from entities.scopes import ScopeFilter
from entities.selectors import entity_lookup
from kgsite.errors import InvalidInput
from tests.recall.test_import_entity_kg import SCHEMA

pytestmark = pytest.mark.django_db

FACTS = "CREATE TABLE facts (id INTEGER PRIMARY KEY, content TEXT, confidence);"


def store(path, *, entities=(), links=(), facts=(), version=4):
    db = sqlite3.connect(path)
    db.executescript(SCHEMA + FACTS)
    db.execute(f"PRAGMA user_version = {version}")
    for pk, name, etype in entities:
        db.execute(
            "INSERT INTO entities VALUES (?, ?, ?, ?, ?)",
            (pk, name, (name or "").lower(), etype, "2024-01-01"),
        )
    db.executemany("INSERT INTO entity_facts VALUES (?, ?)", links)
    db.executemany("INSERT INTO facts VALUES (?, ?, ?)", facts)
    db.commit()
    db.close()
    return path


ROWS = {
    "entities": [("e1", "Kubernetes", "cloud"), ("e2", "Helm", "tool")],
    "links": [("e1", "1"), ("e2", "1")],
    "facts": [(1, "Helm charts deploy onto Kubernetes", 0.8)],
}


@pytest.mark.parametrize("name", ["kg #1.db", "what?.db", "100% memory.db", "mémoire.db"])
def test_a_store_whose_name_has_uri_characters_is_imported(tmp_path, vector_dir, name):
    folder = tmp_path / "stores"
    folder.mkdir()
    path = store(folder / name, **ROWS)
    out = io.StringIO()
    call_command("import_entity_kg", str(path), stdout=out, stderr=io.StringIO())
    assert "entities_created: 2" in out.getvalue()
    assert Fact.objects.get().text == "Helm charts deploy onto Kubernetes"
    # Nothing was created beside it (a name cut at "#" or "?" made an empty file).
    assert [p.name for p in folder.iterdir()] == [name]


@pytest.mark.parametrize("confidence", ["high", "", b"\x00"])
def test_a_confidence_that_is_not_a_number_refuses_the_store_naming_the_fact(
    tmp_path, vector_dir, confidence
):
    path = store(
        tmp_path / "kg.db",
        entities=ROWS["entities"],
        links=ROWS["links"],
        facts=[(1, "Helm charts deploy", 0.5), (7, "Pods restart", confidence)],
    )
    with pytest.raises(CommandError) as caught:
        call_command("import_entity_kg", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    assert str(caught.value).startswith("fact 7: confidence ")
    assert "\n" not in str(caught.value)
    assert Entity.objects.count() == 0 and Fact.objects.count() == 0


@pytest.mark.parametrize(("stored", "kept"), [(None, 1.0), (7, 1.0), (-2, 0.0), ("0.25", 0.25)])
def test_a_numeric_confidence_is_clamped_and_a_missing_one_is_certain(
    tmp_path, vector_dir, stored, kept
):
    path = store(tmp_path / "kg.db", **{**ROWS, "facts": [(1, "Helm charts deploy", stored)]})
    entity_kg_import(path=path)
    assert Fact.objects.get().confidence == pytest.approx(kept)


def test_rows_without_a_usable_name_are_left_out_and_the_rest_imported(tmp_path, vector_dir):
    path = store(
        tmp_path / "kg.db",
        entities=[("e1", "Kubernetes", "cloud"), ("e2", "   ", "tool"), ("e3", "Bad\x00Name", "")],
    )
    report = entity_kg_import(path=path)
    assert list(Entity.objects.values_list("canonical_name", flat=True)) == ["Kubernetes"]
    assert report.counts["entities_created"] == 1
    assert report.counts["entities_skipped"] == 1
    # Shown escaped: a raw NUL made PostgreSQL refuse the audit row, and the import.
    assert any("'Bad\\x00Name'" in line for line in report.skipped), report.skipped


def test_two_stores_keep_their_own_ids_for_one_entity(tmp_path, vector_dir):
    first = store(tmp_path / "laptop.db", entities=[("x1", "Kubernetes", "cloud")])
    second = store(tmp_path / "desktop.db", entities=[("x1", "KUBERNETES", "cloud")])
    entity_kg_import(path=first)
    entity_kg_import(path=second)
    kube = Entity.objects.get()
    assert sorted(
        ExternalEntityId.objects.filter(entity=kube).values_list("store", "external_id")
    ) == [("desktop", "x1"), ("laptop", "x1")]


def test_facts_imported_into_a_project_stay_out_of_global_memory(tmp_path, vector_dir):
    path = store(tmp_path / "kg.db", **ROWS)
    entity_kg_import(path=path, scope="alpha")
    assert list(Fact.objects.values_list("scope", flat=True)) == ["alpha"]
    assert entity_lookup(name="Helm", scopes=ScopeFilter()).as_dict()["facts"] == []
    alpha = entity_lookup(name="Helm", scopes=ScopeFilter.of("alpha")).as_dict()
    assert alpha["facts"] == [Fact.objects.get().pk]


@pytest.mark.parametrize(("store_name", "scope"), [("  ", ""), ("kg", "x" * 200)])
def test_a_bad_store_name_or_scope_is_refused_before_anything_is_written(
    tmp_path, vector_dir, store_name, scope
):
    path = store(tmp_path / "kg.db", **ROWS)
    with pytest.raises(InvalidInput):
        entity_kg_import(path=path, store=store_name, scope=scope)
    assert Entity.objects.count() == 0
