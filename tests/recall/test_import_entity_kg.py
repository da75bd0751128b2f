"""manage.py import_entity_kg on hand-built v3 and v4 stores."""

from __future__ import annotations

import io
import sqlite3
import unicodedata

import pytest
from django.core.management import CommandError, call_command

from entities import services
from entities.models import Alias, Entity, EntityFact, ExternalFactLink, Fact
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db(transaction=True)

NFC = unicodedata.normalize("NFC", "Café Lumière")
NFD = unicodedata.normalize("NFD", "Café Lumière")

V3 = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (3);
CREATE TABLE entities (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
    entity_type TEXT NOT NULL DEFAULT 'unknown', created_at TEXT NOT NULL);
CREATE TABLE entity_aliases (entity_id INTEGER NOT NULL, alias TEXT NOT NULL);
CREATE TABLE entity_facts (entity_id INTEGER NOT NULL, fact_id TEXT NOT NULL);
"""

V4 = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (4);
CREATE TABLE entities (id INTEGER PRIMARY KEY, name TEXT NOT NULL,
    name_normalized TEXT NOT NULL UNIQUE, entity_type TEXT, description TEXT,
    created_at TEXT NOT NULL, updated_at TEXT);
CREATE TABLE entity_aliases (id INTEGER PRIMARY KEY, entity_id INTEGER NOT NULL,
    alias TEXT NOT NULL, alias_normalized TEXT NOT NULL);
CREATE TABLE entity_facts (entity_id INTEGER NOT NULL, fact_id TEXT NOT NULL,
    role TEXT NOT NULL DEFAULT 'mention');
CREATE TABLE facts (id TEXT PRIMARY KEY, content TEXT NOT NULL, confidence REAL);
"""


def build(path, schema: str, rows: dict[str, list[tuple]]):
    db = sqlite3.connect(path)
    db.executescript(schema)
    for table, values in rows.items():
        for row in values:
            marks = ", ".join("?" * len(row))
            db.execute(f"INSERT INTO {table} VALUES ({marks})", row)
    db.commit()
    db.close()
    return path


@pytest.fixture
def v3(tmp_path):
    return build(
        tmp_path / "memory_v3.sqlite",
        V3,
        {
            "entities": [
                (1, NFC, "venue", "2021-03-01T10:00:00"),
                (2, NFD, "venue", "2022-01-01T10:00:00"),
                (3, "café lumière", "venue", "2020-06-01T10:00:00"),  # the oldest
                (4, "Postgres", "database", "2020-01-01T00:00:00"),
                (5, "PostgreSQL", "database", "2020-02-01T00:00:00"),
                (6, "Redis", "unknown", "2020-02-01T00:00:00"),
            ],
            "entity_aliases": [
                (1, "Lumière"),
                (2, unicodedata.normalize("NFD", "Lumière")),  # collides after folding
                (2, "Lumiere Cafe"),
                (3, "CAFÉ LUMIÈRE"),  # the canonical name itself, once folded
                (4, "pg"),
                (5, "pg"),  # taken by Postgres among databases
            ],
            "entity_facts": [(1, "f-1"), (2, "f-2"), (3, "f-1"), (4, "f-3")],
        },
    )


def snapshot() -> dict[str, int]:
    return {
        "entities": Entity.objects.count(),
        "aliases": Alias.objects.count(),
        "facts": Fact.objects.count(),
        "links": EntityFact.objects.count(),
        "external": ExternalFactLink.objects.count(),
        "confirmations": sum(Fact.objects.values_list("confirmations", flat=True)),
    }


def run(path, *extra) -> str:
    out = io.StringIO()
    call_command("import_entity_kg", str(path), *extra, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_v3_with_nfc_nfd_and_case_duplicates_imports_cleanly(v3, vector_dir):
    output = run(v3)
    assert "schema v3" in output
    cafe = Entity.objects.get(type="venue")
    assert cafe.canonical_name == "café lumière"  # the oldest row survives
    assert sorted(cafe.aliases.values_list("alias", flat=True)) == ["Lumiere Cafe", "Lumière"]
    refs = ExternalFactLink.objects.filter(entity=cafe)
    assert sorted(refs.values_list("external_id", flat=True)) == ["f-1", "f-2"]
    assert not refs.exclude(fact=None).exists()  # no facts table: external references
    assert "names_folded: 2" in output
    postgres = Entity.objects.get(canonical_name="Postgres")
    assert list(postgres.aliases.values_list("alias", flat=True)) == ["pg"]
    assert "aliases_skipped: 1" in output
    assert Entity.objects.get(canonical_name="Redis").type == ""  # "unknown" is no type
    assert AuditEntry.objects.filter(action="entity_kg.import").count() == 1


def test_a_second_run_changes_nothing(v3, vector_dir):
    run(v3)
    before = snapshot()
    output = run(v3)
    assert snapshot() == before
    assert "entities_created" not in output and "aliases_created" not in output
    assert "external_refs_existing: 3" in output


def test_an_existing_entity_is_reused_not_duplicated(v3, vector_dir):
    existing, _ = services.entity_store(name="CAFÉ LUMIÈRE", type="venue")
    run(v3)
    assert list(Entity.objects.filter(type="venue")) == [existing]


@pytest.fixture
def v4(tmp_path):
    return build(
        tmp_path / "memory_v4.sqlite",
        V4,
        {
            "entities": [
                (1, "Kubernetes", "kubernetes", "cloud", "Container orchestration", "2020", None),
                (2, "KUBERNETES ", "kubernetes ", "cloud", "", "2021", None),
            ],
            "entity_aliases": [(1, 1, "k8s", "k8s"), (2, 2, "K8S", "k8s")],
            "entity_facts": [(1, "a", "subject"), (2, "b", "mention"), (1, "zz", "mention")],
            "facts": [
                ("a", "Kubernetes schedules pods", 0.9),
                ("b", "K8s runs on every node", None),
            ],
        },
    )


def test_v4_maps_fact_ids_to_the_stores_facts(v4, vector_dir):
    output = run(v4, "--scope", "infra")
    assert "schema v4" in output
    kube = Entity.objects.get()
    assert kube.description == "Container orchestration"
    assert list(kube.aliases.values_list("alias", flat=True)) == ["k8s"]
    links = {link.fact.text: link.role for link in EntityFact.objects.select_related("fact")}
    assert links == {"Kubernetes schedules pods": "subject", "K8s runs on every node": "mention"}
    scheduled = Fact.objects.get(text="Kubernetes schedules pods")
    assert scheduled.confidence == 0.9 and scheduled.scope == "infra"
    # An id the facts table lacks stays an external reference.
    assert ExternalFactLink.objects.get(external_id="zz").fact is None
    before = snapshot()
    run(v4, "--scope", "infra")
    assert snapshot() == before


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (V3.replace("VALUES (3)", "VALUES (5)"), "schema v5; only v3 and v4"),
        ("CREATE TABLE notes (id INTEGER);", "no table entities"),
        (V4.replace("role TEXT NOT NULL DEFAULT 'mention'", "kind TEXT"), "lacks role"),
    ],
)
def test_anything_else_is_refused_with_one_clear_line(tmp_path, schema, message, vector_dir):
    path = build(tmp_path / "other.sqlite", schema, {})
    with pytest.raises(CommandError, match=message):
        run(path)
    assert Entity.objects.count() == 0


def test_a_file_that_is_not_sqlite_is_refused(tmp_path, vector_dir):
    path = tmp_path / "notes.sqlite"
    path.write_text("just some text, not a database " * 50)
    with pytest.raises(CommandError, match="not an SQLite database"):
        run(path)
    with pytest.raises(CommandError, match="is not a file"):
        run(tmp_path / "missing.sqlite")
