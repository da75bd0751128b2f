from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from entities import services
from entities.models import Fact
from entities.search import service
from entities.search.embedder import HashingEmbedder
from entities.search.index import KINDS, VectorIndex, register_kind

from .conftest import restart

NOTES: dict[int, str] = {}


@pytest.fixture
def notes(vector_dir):
    """A kind backed by a dict, to test the index without the database."""
    NOTES.clear()
    NOTES.update(
        {
            1: "PostgreSQL database migration to the new cluster",
            2: "Redis keeps the session cache",
            3: "Baking sourdough bread at home",
            4: "The Postgres tables were vacuumed overnight",
        }
    )
    register_kind(
        "notes", lambda ids: [(k, NOTES[k]) for k in (ids or sorted(NOTES)) if k in NOTES]
    )
    yield NOTES
    KINDS.pop("notes", None)


def ids(hits):
    return [key for key, _score in hits]


def test_missing_index_is_built_from_the_source(notes, vector_dir):
    hits = service.similar_items("notes", "postgresql database", 2)
    assert ids(hits)[0] == 1
    assert (vector_dir / "notes" / "CURRENT").is_file()


def test_index_survives_a_restart_without_rebuilding(notes, vector_dir):
    before = service.similar_items("notes", "postgres tables", 4)
    generation = service.vector_index("notes").stats()["generation"]
    restart()
    after = service.similar_items("notes", "postgres tables", 4)
    assert after == before
    assert service.vector_index("notes").stats()["generation"] == generation


def test_upsert_replaces_changed_text_and_deletes_vanished_rows(notes):
    service.vector_rebuild("notes")
    notes[2] = "sourdough starter feeding schedule"
    del notes[3]
    service.vector_upsert("notes", [2, 3])
    hits = service.similar_items("notes", "sourdough", 4)
    assert ids(hits)[0] == 2
    assert 3 not in ids(hits)


def test_deleted_ids_disappear_from_results(notes):
    assert 3 in ids(service.similar_items("notes", "sourdough bread", 4))
    del notes[3]
    service.vector_delete("notes", [3])
    assert 3 not in ids(service.similar_items("notes", "sourdough bread", 4))
    restart()
    assert 3 not in ids(service.similar_items("notes", "sourdough bread", 4))


def test_rows_deleted_behind_the_index_are_dropped_at_query_time(notes):
    service.vector_rebuild("notes")
    del notes[3]  # no vector_delete: a delete that bypassed the hooks
    assert 3 not in ids(service.similar_items("notes", "sourdough bread", 4))
    assert 3 not in service.vector_index("notes")


def test_text_changed_behind_the_index_is_rescored(notes):
    service.vector_rebuild("notes")
    notes[3] = "PostgreSQL database migration plan"
    hits = dict(service.similar_items("notes", "PostgreSQL database migration plan", 4))
    assert hits[3] == pytest.approx(1.0, abs=1e-5)


def test_rebuild_reproduces_the_same_results(notes):
    service.vector_upsert("notes", [1, 2, 3, 4])
    before = service.similar_items("notes", "postgres database", 4)
    service.vector_rebuild("notes")
    restart()
    after = service.similar_items("notes", "postgres database", 4)
    assert ids(after) == ids(before)
    assert np.allclose([s for _k, s in after], [s for _k, s in before], atol=1e-5)


def test_corrupt_snapshot_is_rebuilt_not_a_crash(notes, vector_dir):
    service.vector_rebuild("notes")
    for path in (vector_dir / "notes").glob("gen-*.hnsw"):
        path.write_bytes(b"not an index")
    restart()
    assert ids(service.similar_items("notes", "redis session cache", 1)) == [2]


def test_snapshot_from_another_embedder_is_rebuilt(notes, vector_dir):
    service.vector_rebuild("notes")
    current = json.loads((vector_dir / "notes" / "CURRENT").read_text())["gen"]
    meta_path = vector_dir / "notes" / f"gen-{current}.json"
    meta = json.loads(meta_path.read_text())
    meta["signature"] = "some-other-model:384"
    meta_path.write_text(json.dumps(meta))
    restart()
    assert ids(service.similar_items("notes", "redis session cache", 1)) == [2]
    assert service.vector_index("notes").stats()["generation"] > current


def test_two_processes_see_each_others_changes(notes, vector_dir):
    kind = KINDS["notes"]
    web = VectorIndex(kind, vector_dir, HashingEmbedder())
    worker = VectorIndex(kind, vector_dir, HashingEmbedder())
    query = HashingEmbedder().encode(["espresso machine descaling"])[0]
    assert 9 not in ids(web.search(query, 3))
    notes[9] = "espresso machine descaling"
    worker.upsert([9])
    assert ids(web.search(query, 1)) == [9]
    worker.delete([9])
    assert 9 not in ids(web.search(query, 3))


def test_a_long_journal_is_folded_into_a_new_snapshot(notes, vector_dir):
    kind = KINDS["notes"]
    web = VectorIndex(kind, vector_dir, HashingEmbedder())
    worker = VectorIndex(kind, vector_dir, HashingEmbedder())
    web.refresh()
    first = web.stats()["generation"]
    for i in range(100, 700):
        notes[i] = f"note number {i} about topic {i % 7}"
    worker.upsert(list(range(100, 700)))
    assert worker.stats()["generation"] > first
    query = HashingEmbedder().encode([notes[650]])[0]
    assert ids(web.search(query, 1)) == [650]
    assert web.stats()["generation"] == worker.stats()["generation"]
    assert web.live_count == len(notes)


def test_filter_ids_limits_the_search(notes):
    hits = service.similar_items("notes", "postgres", 4, filter_ids=[2, 3])
    assert set(ids(hits)) <= {2, 3}


def test_a_kind_whose_source_takes_no_arguments_works(vector_dir):
    register_kind("chunks_test", lambda: [(1, "dragons breathe fire"), (2, "elves live long")])
    try:
        assert ids(service.similar_items("chunks_test", "dragons fire", 1)) == [1]
    finally:
        KINDS.pop("chunks_test", None)


# --- Facts: hooks, database and command --------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_saved_facts_are_indexed_through_the_task_queue(vector_dir):
    fact = services.fact_store(text="The billing service writes invoices to PostgreSQL").fact
    services.fact_store(text="Sourdough needs a lively starter")
    # No rebuild involved: the index holds what the hook queued.
    assert fact.pk in service.vector_index("facts")
    hits = service.similar_facts("billing invoices PostgreSQL", 1)
    assert hits[0][0] == fact.pk and hits[0][1] > 0.5


@pytest.mark.django_db(transaction=True)
def test_deleted_fact_disappears_from_similar_facts(vector_dir):
    fact = services.fact_store(text="The billing service writes invoices to PostgreSQL").fact
    Fact.objects.filter(pk=fact.pk).delete()
    assert service.similar_facts("billing invoices PostgreSQL", 5) == []


@pytest.mark.django_db(transaction=True)
def test_entities_are_indexed_with_their_aliases(vector_dir):
    entity, _ = services.entity_store(name="PostgreSQL", type="technology")
    services.alias_add(entity=entity, alias="Postgres")
    services.entity_store(name="Sourdough", type="food")
    hits = service.similar_items("entities", "postgres", 1)
    assert hits[0][0] == entity.pk


@pytest.mark.django_db(transaction=True)
def test_rebuild_vectors_command(vector_dir):
    services.fact_store(text="Deploys happen on Tuesdays")
    out = StringIO()
    call_command("rebuild_vectors", "--kind", "facts", stdout=out)
    assert "facts: 1 items indexed" in out.getvalue()
    with pytest.raises(CommandError, match="unknown kind 'nope'"):
        call_command("rebuild_vectors", "--kind", "nope")


@pytest.mark.django_db(transaction=True)
def test_rows_added_behind_the_index_are_picked_up_after_a_restart(notes):
    service.vector_rebuild("notes")
    for i in range(100, 400):  # more than a request embeds inline: queued instead
        notes[i] = f"bulk imported note {i} about lighthouse {i}"
    restart()
    assert ids(service.similar_items("notes", notes[350], 1)) == [350]
    assert service.vector_index("notes").live_count == len(notes)
