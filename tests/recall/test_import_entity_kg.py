"""manage.py import_entity_kg on stores built exactly to the original schema (v3, v4),
with every way of stating the version, and what an agent then sees of them."""

from __future__ import annotations

import io
import sqlite3
import unicodedata

import pytest
from django.core.management import CommandError, call_command

from entities import services
from entities.models import Alias, Entity, EntityFact, ExternalEntityId, ExternalFactLink, Fact
from entities.selectors import entity_lookup
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db(transaction=True)

NFC = unicodedata.normalize("NFC", "Café Lumière")
NFD = unicodedata.normalize("NFD", "Café Lumière")
# É composed, È decomposed: a third spelling v3's lower() kept apart.
MIXED = unicodedata.normalize("NFC", "CAFÉ ") + unicodedata.normalize("NFD", "LUMIÈRE")

SCHEMA = """
CREATE TABLE entities (id TEXT PRIMARY KEY, canonical_name TEXT NOT NULL,
    name_norm TEXT NOT NULL UNIQUE, type TEXT, created_at TEXT NOT NULL);
CREATE TABLE entity_aliases (entity_id TEXT NOT NULL, alias TEXT NOT NULL,
    alias_norm TEXT NOT NULL);
CREATE TABLE entity_facts (entity_id TEXT NOT NULL, fact_id TEXT NOT NULL,
    PRIMARY KEY (entity_id, fact_id));
"""


def v3_norm(text: str) -> str:
    return text.lower()  # what v3 stored: no Unicode normalisation


def v4_norm(text: str) -> str:
    return unicodedata.normalize("NFC", text).lower()


def build(path, *, version: int, marker: str, entities, aliases=(), links=(), extra=""):
    """A store as the original wrote it; ``marker``: pragma, table, both or none."""
    norm = v3_norm if version == 3 else v4_norm
    db = sqlite3.connect(path)
    db.executescript(SCHEMA + extra)
    if marker in ("pragma", "both"):
        db.execute(f"PRAGMA user_version = {version}")
    if marker in ("table", "both"):
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (?)", (version,))
    for pk, name, etype, created in entities:
        db.execute(
            "INSERT INTO entities VALUES (?, ?, ?, ?, ?)", (pk, name, norm(name), etype, created)
        )
    for entity_id, alias in aliases:
        db.execute("INSERT INTO entity_aliases VALUES (?, ?, ?)", (entity_id, alias, norm(alias)))
    for entity_id, fact_id in links:
        db.execute("INSERT INTO entity_facts VALUES (?, ?)", (entity_id, fact_id))
    db.commit()
    db.close()
    return path


V3_ROWS = {
    "entities": [
        ("aK3m9QpL2xWz", NFC, "venue", "2021-03-01T10:00:00"),
        ("bT7n1RsM4yVq", NFD, "venue", "2022-01-01T10:00:00"),  # NFD: a second row in v3
        ("cQ2w8ZeX5uJk", MIXED, "venue", "2020-06-01T10:00:00"),  # the oldest
        ("dH4j6KlP9oNb", "Postgres", "database", "2020-01-01T00:00:00"),
        ("eV1c3BnM7qAs", "PostgreSQL", "database", "2020-02-01T00:00:00"),
        ("fG5t2YuI8rEw", "Redis", "unknown", "2020-02-01T00:00:00"),
    ],
    "aliases": [
        ("aK3m9QpL2xWz", "Lumière"),
        ("bT7n1RsM4yVq", unicodedata.normalize("NFD", "Lumière")),  # folds into the first
        ("bT7n1RsM4yVq", "Lumiere Cafe"),
        ("dH4j6KlP9oNb", "pg"),
        ("eV1c3BnM7qAs", "pg"),  # taken by Postgres among databases
    ],
    "links": [
        ("aK3m9QpL2xWz", "fact_0001aaaa"),
        ("bT7n1RsM4yVq", "fact_0002bbbb"),
        ("cQ2w8ZeX5uJk", "fact_0001aaaa"),
        ("dH4j6KlP9oNb", "fact_0003cccc"),
    ],
}


@pytest.fixture
def v3(tmp_path):
    return build(tmp_path / "memory_v3.sqlite", version=3, marker="pragma", **V3_ROWS)


def snapshot() -> dict[str, int]:
    return {
        "entities": Entity.objects.count(),
        "aliases": Alias.objects.count(),
        "facts": Fact.objects.count(),
        "links": EntityFact.objects.count(),
        "external": ExternalFactLink.objects.count(),
        "source_ids": ExternalEntityId.objects.count(),
    }


def run(path, *extra) -> str:
    out = io.StringIO()
    call_command("import_entity_kg", str(path), *extra, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_v3_folds_nfc_nfd_and_case_rows_into_the_oldest(v3, vector_dir):
    output = run(v3)
    assert "schema v3" in output and "names_folded: 2" in output
    cafe = Entity.objects.get(type="venue")
    assert cafe.canonical_name == unicodedata.normalize("NFC", MIXED)  # the oldest survives
    assert sorted(cafe.aliases.values_list("alias", flat=True)) == ["Lumiere Cafe", "Lumière"]
    for spelling in (NFD, NFC, "café lumière"):
        assert entity_lookup(name=spelling).entity == cafe
    refs = ExternalFactLink.objects.filter(entity=cafe)
    assert sorted(refs.values_list("external_id", flat=True)) == ["fact_0001aaaa", "fact_0002bbbb"]
    assert not refs.exclude(fact=None).exists()  # no facts table: external references
    postgres = Entity.objects.get(canonical_name="Postgres")
    assert list(postgres.aliases.values_list("alias", flat=True)) == ["pg"]
    assert "aliases_skipped: 1" in output
    assert Entity.objects.get(canonical_name="Redis").type == ""  # "unknown" is no type
    assert AuditEntry.objects.filter(action="entity_kg.import").count() == 1


def test_every_source_id_resolves_to_the_entity_it_folded_into(v3, api, vector_dir):
    run(v3)
    cafe = Entity.objects.get(type="venue")
    for source_id in ("aK3m9QpL2xWz", "bT7n1RsM4yVq", "cQ2w8ZeX5uJk"):
        result = entity_lookup(name=source_id)
        assert result.match == "external_id" and result.entity == cafe
        body = api.get(f"/api/v1/entities/{source_id}/").json()
        assert body["id"] == cafe.pk
    body = api.get(f"/api/v1/entities/{cafe.pk}/").json()
    assert {ref["id"] for ref in body["external_ids"]} == {
        "aK3m9QpL2xWz",
        "bT7n1RsM4yVq",
        "cQ2w8ZeX5uJk",
    }
    assert {(ref["id"], ref["fact"]) for ref in body["external_facts"]} == {
        ("fact_0001aaaa", None),
        ("fact_0002bbbb", None),
    }
    lookup = api.get("/api/v1/entities/lookup", {"name": "dH4j6KlP9oNb"}).json()
    assert lookup["match"] == "external_id" and lookup["entity"]["canonical_name"] == "Postgres"
    assert lookup["external_facts"] == [{"store": "memory_v3", "id": "fact_0003cccc", "fact": None}]


def test_a_second_run_changes_nothing(v3, vector_dir):
    run(v3)
    before = snapshot()
    output = run(v3)
    assert snapshot() == before
    assert "entities_created" not in output and "source_ids_created" not in output
    assert "external_refs_existing: 3" in output and "source_ids_existing: 6" in output


def test_an_existing_entity_is_reused_not_duplicated(v3, vector_dir):
    existing, _ = services.entity_store(name="café lumière", type="venue")
    run(v3)
    assert list(Entity.objects.filter(type="venue")) == [existing]


@pytest.mark.parametrize("version", [3, 4])
@pytest.mark.parametrize("marker", ["pragma", "table", "both", "none"])
def test_the_version_is_read_however_the_store_states_it(tmp_path, version, marker, vector_dir):
    rows = {
        "entities": [
            ("gA1", NFC, "venue", "2021"),
            ("gB2", "Kubernetes", "cloud", "2020"),
        ],
        "aliases": [("gB2", "K8s")],
        "links": [("gB2", "fact_k8s")],
    }
    if version == 3:  # a v3 store may hold both Unicode forms of one name
        rows["entities"].append(("gC3", NFD, "venue", "2022"))
    path = build(tmp_path / f"v{version}_{marker}.sqlite", version=version, marker=marker, **rows)
    output = run(path)
    assert f"schema v{version}" in output
    assert Entity.objects.filter(type="venue").count() == 1
    assert entity_lookup(name="k8s").entity.canonical_name == "Kubernetes"


def test_a_refusal_names_every_missing_column_of_every_table(tmp_path, vector_dir):
    db = sqlite3.connect(tmp_path / "other.sqlite")
    db.executescript(
        """
        CREATE TABLE entities (id INTEGER PRIMARY KEY, name TEXT, entity_type TEXT,
            created_at TEXT);
        CREATE TABLE entity_aliases (entity_id INTEGER, alias TEXT);
        CREATE TABLE entity_facts (entity_id INTEGER, fact_id TEXT);
        """
    )
    db.close()
    with pytest.raises(CommandError) as refused:
        run(tmp_path / "other.sqlite")
    message = str(refused.value)
    assert "entities lacks canonical_name, name_norm, type" in message
    assert "entity_aliases lacks alias_norm" in message
    assert Entity.objects.count() == 0


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (SCHEMA + "PRAGMA user_version = 5;", "schema v5; only v3 and v4"),
        ("CREATE TABLE notes (id INTEGER);", "no table entities"),
    ],
)
def test_anything_else_is_refused_with_one_clear_line(tmp_path, setup, message, vector_dir):
    db = sqlite3.connect(tmp_path / "other.sqlite")
    db.executescript(setup)
    db.close()
    with pytest.raises(CommandError, match=message):
        run(tmp_path / "other.sqlite")
    assert Entity.objects.count() == 0


def test_a_file_that_is_not_sqlite_is_refused(tmp_path, vector_dir):
    path = tmp_path / "notes.sqlite"
    path.write_text("just some text, not a database " * 50)
    with pytest.raises(CommandError, match="not an SQLite database"):
        run(path)
    with pytest.raises(CommandError, match="is not a file"):
        run(tmp_path / "missing.sqlite")


FACTS = "CREATE TABLE facts (id TEXT PRIMARY KEY, content TEXT NOT NULL, confidence REAL);"


def test_a_facts_table_is_imported_and_its_ids_still_resolve(tmp_path, vector_dir):
    path = build(
        tmp_path / "with_facts.sqlite",
        version=4,
        marker="both",
        entities=[("hK1", "Kubernetes", "cloud", "2020")],
        links=[("hK1", "f-a"), ("hK1", "f-missing")],
        extra=FACTS,
    )
    db = sqlite3.connect(path)
    db.execute("INSERT INTO facts VALUES ('f-a', 'Kubernetes schedules pods', 0.9)")
    db.commit()
    db.close()
    run(path, "--scope", "infra")
    fact = Fact.objects.get(text="Kubernetes schedules pods")
    assert fact.confidence == 0.9 and fact.scope == "infra"
    assert ExternalFactLink.objects.get(external_id="f-missing").fact is None


def test_entity_merges_carry_source_ids_and_undo_brings_them_back(v3, vector_dir):
    run(v3)
    postgres = Entity.objects.get(canonical_name="Postgres")
    postgresql = Entity.objects.get(canonical_name="PostgreSQL")
    outcome = services.entity_merge(survivor=postgres, duplicates=[postgresql], actor=None)
    assert entity_lookup(name="eV1c3BnM7qAs").entity == postgres
    services.entity_merge_undo(merge=outcome.merge, actor=None)
    assert entity_lookup(name="eV1c3BnM7qAs").entity.canonical_name == "PostgreSQL"


def test_an_agent_sees_source_ids_and_fact_ids_over_mcp(v3, vector_dir):
    from entities.mcp.server import mcp_server_build
    from entities.mcp.tools import ToolContext

    from .test_mcp import call

    run(v3)
    server = mcp_server_build(ToolContext())
    error, body = call(server, "entity_get", {"name": "bT7n1RsM4yVq"})
    assert not error and body["match"] == "external_id"
    assert body["entity"]["type"] == "venue"
    assert {ref["id"] for ref in body["external_facts"]} == {"fact_0001aaaa", "fact_0002bbbb"}
    error, body = call(server, "entity_get", {"name": NFD})
    assert body["entity"]["type"] == "venue" and len(body["external_ids"]) == 3
    ours = services.fact_store(text="Redis keeps the session cache").fact
    error, body = call(server, "facts_list", {"ids": ["fact_0003cccc", ours.pk, "fact_unknown"]})
    assert not error
    external, own, unknown = body["facts"]
    assert external["found"] and external["external"] and external["fact"] is None
    assert external["entities"] == [Entity.objects.get(canonical_name="Postgres").pk]
    assert own["found"] and own["fact"]["text"] == "Redis keeps the session cache"
    assert unknown == {"id": "fact_unknown", "found": False, "fact": None}


def test_imported_fact_ids_stay_in_the_import_scope(v3, api, vector_dir):
    run(v3, "--scope", "beta")
    postgres = Entity.objects.get(canonical_name="Postgres")
    for params, seen in (({}, False), ({"scope": "alpha"}, False), ({"scope": "beta"}, True)):
        body = api.get(f"/api/v1/entities/{postgres.pk}/", params).json()
        assert bool(body["external_facts"]) is seen, params
        lookup = api.get("/api/v1/entities/lookup", {"name": "Postgres", **params}).json()
        assert bool(lookup["external_facts"]) is seen, params


def test_rest_resolves_imported_fact_ids(v3, api, vector_dir):
    run(v3)
    ours = services.fact_store(text="Redis keeps the session cache").fact
    body = api.get("/api/v1/facts/refs", {"ids": f"fact_0003cccc,{ours.pk},nope"}).json()
    assert [row["found"] for row in body] == [True, True, False]
    assert body[0]["external"] and body[0]["fact"] is None
    assert body[1]["fact"]["text"] == "Redis keeps the session cache"
    response = api.get("/api/v1/facts/refs")
    assert response.status_code == 400 and response.json()["error"]["field"] == "ids"


def test_digits_that_are_no_fact_id_are_not_found_rather_than_an_error(api, vector_dir):
    ours = services.fact_store(text="The night bus stops at the old mill").fact
    body = api.get("/api/v1/facts/refs", {"ids": f"²,①,{'9' * 25},{ours.pk}"}).json()
    assert [row["found"] for row in body] == [False, False, False, True]
    assert [row["id"] for row in body] == ["²", "①", "9" * 25, str(ours.pk)]


def test_a_description_no_entity_may_hold_is_left_out_not_the_entity(tmp_path, vector_dir):
    """Descriptions refuse control characters; the import keeps the entity, says what it
    left out, and stores no control character."""
    path = build(
        tmp_path / "memory.sqlite",
        version=4,
        marker="pragma",
        entities=[("qW3e5RtY7uIo", "Quillon Works", "organization", "2021-05-01T00:00:00")],
    )
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE entities ADD COLUMN description TEXT")
    db.execute("UPDATE entities SET description = ?", ("a foundry\x07 by the river",))
    db.commit()
    db.close()
    out = run(path)
    entity = Entity.objects.get(canonical_name="Quillon Works")
    assert entity.description == ""
    assert "descriptions_skipped: 1" in out


def test_rows_nothing_can_be_made_of_are_counted(tmp_path, vector_dir):
    """A row without a name, and aliases and links of an id no entity has, were dropped
    without a word: the report read as if everything had come in."""
    path = build(
        tmp_path / "memory.sqlite",
        version=4,
        marker="pragma",
        entities=[
            ("rT5y7UiO9pAs", "Harrow Mill", "place", "2021-05-01T00:00:00"),
            ("zX1c3VbN5mQw", "   ", "place", "2021-05-02T00:00:00"),
        ],
        aliases=[("rT5y7UiO9pAs", "the mill"), ("gone00000001", "old name")],
        links=[("gone00000001", "fact_0009zzzz")],
    )
    out = run(path)
    assert "entities_unnamed: 1" in out
    assert "aliases_orphaned: 1" in out and "links_orphaned: 1" in out
    assert Entity.objects.filter(canonical_name="Harrow Mill").exists()
