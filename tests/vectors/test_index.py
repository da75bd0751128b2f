from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from entities import services
from entities.models import Fact
from entities.search.kinds import similar_facts
from kgsite.vectors import index as index_module
from kgsite.vectors import service
from kgsite.vectors.embedder import HashingEmbedder
from kgsite.vectors.index import KINDS, VectorIndex, _encode_vec, register_kind, text_hash
from tests.conftest import pgvector_backend, restart

ROOT = Path(__file__).resolve().parents[2]

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
    if not pgvector_backend():
        assert (vector_dir / "notes" / "CURRENT").is_file()


@pytest.mark.hnswlib_only
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


@pytest.mark.hnswlib_only
def test_corrupt_snapshot_is_rebuilt_not_a_crash(notes, vector_dir):
    service.vector_rebuild("notes")
    for path in (vector_dir / "notes").glob("gen-*.hnsw"):
        path.write_bytes(b"not an index")
    restart()
    assert ids(service.similar_items("notes", "redis session cache", 1)) == [2]


@pytest.mark.hnswlib_only
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


@pytest.mark.hnswlib_only
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


@pytest.mark.hnswlib_only
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


@pytest.mark.hnswlib_only
def test_a_filtered_search_scores_as_the_index_after_a_restart_and_an_update(notes):
    """A small filtered search compares the stored vectors itself (read from the
    snapshot file, or from memory for those changed since): after a restart it scores
    as the index does, and an item changed since the snapshot by its new text."""
    service.vector_rebuild("notes")
    restart()
    vector = service.vector_index("notes").embedder.encode(["postgres tables"])[0]
    every = dict(service.search_vector("notes", vector, 4))
    among = dict(service.search_vector("notes", vector, 4, filter_ids=[1, 2, 3, 4]))
    assert among == pytest.approx(every, abs=1e-5)
    notes[3] = "PostgreSQL database migration plan"
    service.vector_upsert("notes", [3])
    vector = service.vector_index("notes").embedder.encode([notes[3]])[0]
    [(key, score)] = service.search_vector("notes", vector, 1, filter_ids=[2, 3, 4])
    assert key == 3 and score == pytest.approx(1.0, abs=1e-5)


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
    hits = similar_facts("billing invoices PostgreSQL", 1)
    assert hits[0][0] == fact.pk and hits[0][1] > 0.5


@pytest.mark.django_db(transaction=True)
def test_deleted_fact_disappears_from_similar_facts(vector_dir):
    fact = services.fact_store(text="The billing service writes invoices to PostgreSQL").fact
    Fact.objects.filter(pk=fact.pk).delete()
    assert similar_facts("billing invoices PostgreSQL", 5) == []


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


# --- A damaged journal is repaired, never a crash ----------------------------------------


def current_journal(vector_dir, kind: str = "notes"):
    gen = json.loads((vector_dir / kind / "CURRENT").read_text())["gen"]
    return vector_dir / kind / f"gen-{gen}.journal"


def record_line(key: int, text: str, vec=None) -> bytes:
    if vec is None:
        vec = HashingEmbedder().encode([text])[0]
    record = {"op": "add", "key": key, "hash": text_hash(text), "vec": _encode_vec(vec)}
    return json.dumps(record).encode()


def nearest(index: VectorIndex, text: str, k: int = 1) -> list:
    return ids(index.search(HashingEmbedder().encode([text])[0], k))


@pytest.fixture
def two_processes(notes, vector_dir):
    """Two indexes over the same files, as a web and a worker process would hold them."""
    kind = KINDS["notes"]
    web = VectorIndex(kind, vector_dir, HashingEmbedder())
    worker = VectorIndex(kind, vector_dir, HashingEmbedder())
    web.refresh()
    worker.refresh()
    return web, worker


@pytest.mark.hnswlib_only
def test_a_torn_append_followed_by_another_append_is_repaired(two_processes, notes, vector_dir):
    web, worker = two_processes
    # A writer killed mid-append: half of its record, no newline.
    notes[7] = "lighthouse keeper logbook entries"
    line = record_line(7, notes[7])
    with open(current_journal(vector_dir), "ab") as fh:
        fh.write(line[: len(line) // 2])
    notes[8] = "espresso machine descaling"
    worker.upsert([8])  # used to glue its record onto the torn one
    assert nearest(web, notes[8]) == [8]
    # The torn record's row is picked up again from the source of truth.
    assert nearest(web, notes[7]) == [7]
    assert nearest(worker, notes[7]) == [7]
    restart()
    assert ids(service.similar_items("notes", notes[8], 1)) == [8]
    assert ids(service.similar_items("notes", "Redis session cache", 1)) == [2]


@pytest.mark.hnswlib_only
def test_a_garbage_journal_line_is_repaired(two_processes, notes, vector_dir):
    web, worker = two_processes
    notes[8] = "espresso machine descaling"
    worker.upsert([8])
    with open(current_journal(vector_dir), "ab") as fh:
        fh.write(b"\x00\xffthis is not json\n")
    notes[9] = "tide tables for the harbour"
    worker.upsert([9])
    for index in (web, worker):
        assert nearest(index, notes[8]) == [8]
        assert nearest(index, notes[9]) == [9]
        assert nearest(index, notes[3]) == [3]
    assert web.live_count == len(notes)


@pytest.mark.hnswlib_only
def test_a_short_vector_in_the_journal_is_repaired(two_processes, notes, vector_dir):
    web, worker = two_processes
    notes[8] = "espresso machine descaling"
    short = HashingEmbedder().encode([notes[8]])[0][:100]
    with open(current_journal(vector_dir), "ab") as fh:
        fh.write(record_line(8, notes[8], short) + b"\n")
    hits = web.search(HashingEmbedder().encode([notes[8]])[0], 1)
    assert ids(hits) == [8] and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert nearest(worker, notes[1]) == [1]
    restart()
    assert ids(service.similar_items("notes", notes[8], 1)) == [8]


@pytest.mark.hnswlib_only
def test_a_damaged_journal_seen_by_a_fresh_process_is_repaired(notes, vector_dir):
    service.vector_rebuild("notes")
    with open(current_journal(vector_dir), "ab") as fh:
        fh.write(b'{"op": "add", "key": 3}\n')  # no hash, no vector
    restart()
    assert ids(service.similar_items("notes", "baking sourdough bread", 1)) == [3]
    assert ids(service.similar_items("notes", "Redis session cache", 1)) == [2]


# --- Generations: a reader never settles on an old one ------------------------------


@pytest.mark.hnswlib_only
def test_a_generation_published_while_a_reader_loads_is_not_missed(notes, vector_dir):
    kind = KINDS["notes"]
    worker = VectorIndex(kind, vector_dir, HashingEmbedder())
    worker.refresh()
    web = VectorIndex(kind, vector_dir, HashingEmbedder())
    before = worker.stats()["generation"]
    read_current = web._read_current
    raced = []

    def racing_read_current():
        value = read_current()
        if not raced:  # right after the reader read CURRENT, a rebuild publishes
            raced.append(True)
            worker.rebuild()
        return value

    web._read_current = racing_read_current
    web.refresh()
    assert raced and worker.stats()["generation"] > before
    notes[9] = "espresso machine descaling"
    worker.upsert([9])  # lands in the journal of the new generation
    assert nearest(web, notes[9]) == [9]


@pytest.mark.hnswlib_only
def test_another_process_adds_an_item_and_this_one_sees_it(notes, vector_dir, tmp_path):
    """A real second process (no database: it only touches the index files)."""
    assert ids(service.similar_items("notes", "espresso machine descaling", 1)) != [9]
    notes[9] = "espresso machine descaling"  # the row, as the database would hold it
    script = """
import sys
from pathlib import Path

import django

django.setup()
from kgsite.vectors.embedder import HashingEmbedder
from kgsite.vectors.index import VectorIndex, register_kind

directory, key, text = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
kind = register_kind("notes", lambda ids: [(key, text)] if key in (ids or [key]) else [])
print(VectorIndex(kind, directory, HashingEmbedder()).upsert([key]))
"""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.test",
        "TMPDIR": str(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", script, str(vector_dir), "9", notes[9]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    # No restart, no reconcile: the journal written by the other process is read.
    assert ids(service.similar_items("notes", "espresso machine descaling", 1)) == [9]


# --- A missing index over a large store is rebuilt by the queue ----------------------


@pytest.fixture
def queued(monkeypatch):
    """Record the jobs the index queues instead of running them (no worker running)."""
    jobs: list[tuple] = []
    monkeypatch.setattr(
        "kgsite.vectors.service.vector_rebuild_enqueue", lambda kind: jobs.append(("rebuild", kind))
    )
    monkeypatch.setattr(
        "kgsite.vectors.service.vector_upsert_enqueue",
        lambda kind, ids: jobs.append(("upsert", kind, ids)),
    )
    return jobs


@pytest.fixture
def counted_notes(notes):
    """The notes kind with a row count, and more notes than a request builds inline."""
    for i in range(100, 130):
        notes[i] = f"archive note {i} about lighthouse {i}"
    register_kind(
        "notes",
        lambda ids: [(k, NOTES[k]) for k in (ids or sorted(NOTES)) if k in NOTES],
        count=lambda: len(NOTES),
    )
    return notes


def test_a_missing_large_index_is_queued_not_built_in_the_request(
    counted_notes, queued, monkeypatch, vector_dir
):
    monkeypatch.setattr(index_module, "BUILD_INLINE", 10)
    assert service.similar_items("notes", "redis session cache", 3) == []
    index = service.vector_index("notes")
    assert index.complete is False and index.live_count == 0
    assert queued == [("rebuild", "notes")]
    # Another process sees the same incomplete generation, and nothing is built inline.
    restart()
    monkeypatch.setattr(index_module, "RECONCILE_INLINE", 10)
    assert service.similar_items("notes", "redis session cache", 3) == []
    assert service.vector_index("notes").complete is False
    # The worker runs the rebuild: complete, and every row found.
    service.vector_rebuild("notes")
    restart()
    assert ids(service.similar_items("notes", "redis session cache", 1)) == [2]
    assert service.vector_index("notes").complete is True
    assert service.vector_index("notes").live_count == len(counted_notes)


def test_an_incomplete_index_filled_by_queued_upserts_becomes_complete(
    counted_notes, queued, monkeypatch, vector_dir
):
    monkeypatch.setattr(index_module, "BUILD_INLINE", 10)
    service.similar_items("notes", "redis", 1)
    # The rebuild job was lost; a process starting later queues upserts of what is missing.
    restart()
    monkeypatch.setattr(index_module, "RECONCILE_INLINE", 10)
    service.similar_items("notes", "redis", 1)
    upserts = [job for job in queued if job[0] == "upsert"]
    assert sum(len(job[2]) for job in upserts) == len(counted_notes)
    for _op, kind, keys in upserts:
        service.vector_upsert(kind, keys)
    assert service.vector_index("notes").complete is True
    restart()
    assert service.vector_index("notes").complete is True
    assert ids(service.similar_items("notes", "redis session cache", 1)) == [2]


def test_a_missing_small_index_is_still_built_at_once(counted_notes, queued, vector_dir):
    assert ids(service.similar_items("notes", "redis session cache", 1)) == [2]
    assert service.vector_index("notes").complete is True
    assert queued == []


# --- rebuild_vectors ----------------------------------------------------------------------


class Terminal(StringIO):
    """A stream that says it is a terminal, as stderr is when run by hand."""

    def isatty(self) -> bool:
        return True


@pytest.mark.django_db(transaction=True)
def test_rebuild_vectors_shows_progress_on_a_terminal_only(vector_dir):
    for i in range(3):
        services.fact_store(text=f"Deploy number {i} happens on a Tuesday")
    out, terminal = StringIO(), Terminal()
    call_command("rebuild_vectors", "--kind", "facts", stdout=out, stderr=terminal)
    assert "facts: 3 items indexed" in out.getvalue()
    bar = terminal.getvalue()
    assert "facts" in bar and "3/3" in bar and "100%" in bar
    piped = StringIO()
    call_command("rebuild_vectors", "--kind", "facts", stdout=StringIO(), stderr=piped)
    assert piped.getvalue() == ""
    quiet = Terminal()
    call_command("rebuild_vectors", "--kind", "facts", "--no-progress", stdout=out, stderr=quiet)
    assert quiet.getvalue() == ""


def test_rebuild_vectors_rejects_an_unknown_kind_in_one_line(capsys):
    from kgsite.management.commands.rebuild_vectors import Command

    with pytest.raises(SystemExit) as exit_info:
        Command().run_from_argv(
            ["manage.py", "rebuild_vectors", "--kind", "facts", "--kind", "nope"]
        )
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert "unknown kind 'nope'" in lines[0] and "facts" in lines[0]


@pytest.mark.hnswlib_only
def test_a_garbage_current_file_is_rebuilt_and_old_generations_cleared(notes, vector_dir):
    for _ in range(3):
        service.vector_rebuild("notes")
    (vector_dir / "notes" / "CURRENT").write_text("{not json")
    restart()
    assert ids(service.similar_items("notes", "redis session cache", 1)) == [2]
    gens = {p.name.split(".")[0] for p in (vector_dir / "notes").glob("gen-*.*")}
    assert gens == {"gen-0"}


def test_a_write_in_the_worker_rebuilds_a_missing_large_index_at_once(
    counted_notes, queued, monkeypatch, vector_dir
):
    monkeypatch.setattr(index_module, "BUILD_INLINE", 10)
    counted_notes[200] = "a new note about tide tables"
    assert service.vector_upsert("notes", [200]) == 0  # the rebuild already indexed it
    index = service.vector_index("notes")
    assert index.complete is True and index.live_count == len(counted_notes)
    assert queued == []
    assert ids(service.similar_items("notes", "tide tables", 1)) == [200]
