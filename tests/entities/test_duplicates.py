"""Duplicate suggestions: evidence by kind, blocking, dismissals that stick, the job."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from entities import services
from entities.duplicates import MAX_BLOCK, duplicate_candidates, pair_key, pair_of
from entities.models import DuplicateScan, DuplicateSuggestion, Entity
from entities.selectors import duplicate_suggestions_pending
from entities.services import (
    EntityDraft,
    alias_add,
    duplicate_dismiss,
    duplicate_scan_request,
    duplicate_scan_run,
    entities_ensure,
    entity_merge,
    entity_store,
    fact_store,
)
from entities.tasks import duplicate_scan_enqueue

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_vectors(vector_dir):
    """Each test starts with an empty vectors room (the embedding evidence reads it)."""


def kinds(a: Entity, b: Entity) -> set[str]:
    found = duplicate_candidates().evidence.get(pair_of(a.pk, b.pk), [])
    return {item["kind"] for item in found}


def scan(entity_ids=None) -> DuplicateScan:
    scan, _new = duplicate_scan_request(entity_ids=entity_ids)
    return duplicate_scan_run(scan_id=scan.pk)


def test_same_name_under_two_types():
    town, _ = entity_store(name="Vellmar Crossing", type="place")
    station, _ = entity_store(name="Vellmar Crossing", type="station")
    assert "same_name_other_type" in kinds(town, station)


def test_an_alias_equal_to_another_entitys_name():
    writer, _ = entity_store(name="Teodora Vasquez-Lind", type="person")
    alias_add(entity=writer, alias="T. Vasquez")
    other, _ = entity_store(name="T. Vasquez", type="person")
    assert "alias_is_name" in kinds(writer, other)


def test_titled_and_full_names_of_one_person():
    short, _ = entity_store(name="Mr. Pemberton", type="person")
    full, _ = entity_store(name="Arthur Pemberton", type="person")
    typo, _ = entity_store(name="Okonkow", type="person")
    right, _ = entity_store(name="Okonkwo", type="person")
    assert "name_similarity" in kinds(short, full)
    assert "name_similarity" in kinds(typo, right)  # no shared word: the prefix block


def test_unrelated_names_and_other_types_are_not_paired():
    a, _ = entity_store(name="Harbour Lantern", type="item")
    b, _ = entity_store(name="Quiet Meadow", type="place")
    c, _ = entity_store(name="Arthur Pemberton", type="person")
    d, _ = entity_store(name="Pemberton Mill", type="place")  # shares a word, other type
    evidence = duplicate_candidates().evidence
    assert pair_of(a.pk, b.pk) not in evidence
    assert "name_similarity" not in {e["kind"] for e in evidence.get(pair_of(c.pk, d.pk), [])}


def test_a_word_many_entities_share_is_not_a_block():
    # More than MAX_BLOCK names share "harbour" and nothing else: no pair is compared.
    made = [
        entity_store(name=f"Harbour {chr(97 + i % 26)}{chr(97 + i // 26)}x", type="place")[0]
        for i in range(MAX_BLOCK + 5)
    ]
    evidence = duplicate_candidates().evidence
    assert not any(set(pair) <= {e.pk for e in made} for pair in evidence)


def test_shared_facts_add_evidence_and_score():
    short, _ = entity_store(name="Mr. Pemberton", type="person")
    full, _ = entity_store(name="Arthur Pemberton", type="person")
    before = duplicate_candidates()
    score_before = before.score(pair_of(short.pk, full.pk))
    for n in range(3):
        fact_store(text=f"Pemberton signed contract number {n}.", entities=[short, full])
    after = duplicate_candidates()
    items = after.evidence[pair_of(short.pk, full.pk)]
    assert {"kind": "shared_facts", "score": 0.0, "count": 3} in items
    assert after.score(pair_of(short.pk, full.pk)) > score_before


def test_embedding_neighbours_are_evidence():
    a, _ = entity_store(
        name="Glassworks of Corran", type="organisation", description="makes lenses in Corran"
    )
    b, _ = entity_store(
        name="Corran Glassworks", type="organisation", description="makes lenses in Corran"
    )
    found = duplicate_candidates(entity_ids=[a.pk]).evidence[pair_of(a.pk, b.pk)]
    embedding = [e for e in found if e["kind"] == "embedding_similarity"]
    assert embedding and embedding[0]["score"] >= 0.9


def test_scan_stores_pending_pairs_best_first():
    short, _ = entity_store(name="Arthur Pembertn", type="person")
    full, _ = entity_store(name="Arthur Pemberton", type="person")
    town, _ = entity_store(name="Vellmar Crossing", type="place")
    station, _ = entity_store(name="Vellmar Crossing", type="station")
    done = scan()
    assert done.status == "done" and done.result["created"] >= 2
    pending = list(duplicate_suggestions_pending())
    pairs = [{s.entity_a_id, s.entity_b_id} for s in pending]
    assert {short.pk, full.pk} in pairs and {town.pk, station.pk} in pairs
    assert [s.score for s in pending] == sorted((s.score for s in pending), reverse=True)


def test_dismissed_pairs_stay_dismissed(curator):
    town, _ = entity_store(name="Vellmar Crossing", type="place")
    station, _ = entity_store(name="Vellmar Crossing", type="station")
    scan()
    suggestion = DuplicateSuggestion.objects.get(pair_key=pair_key(pair_of(town.pk, station.pk)))
    duplicate_dismiss(suggestion=suggestion, actor=curator)
    again = scan()
    assert again.result["kept_decided"] >= 1
    suggestion.refresh_from_db()
    assert suggestion.status == "dismissed"
    assert not duplicate_suggestions_pending().filter(pk=suggestion.pk).exists()


def test_merging_marks_the_pair_merged_and_a_rescan_leaves_it(curator):
    short, _ = entity_store(name="Arthur Pembertn", type="person")
    full, _ = entity_store(name="Arthur Pemberton", type="person")
    scan()
    entity_merge(survivor=full, duplicates=[short], actor=curator)
    key = pair_key(pair_of(short.pk, full.pk))
    assert DuplicateSuggestion.objects.get(pair_key=key).status == "merged"
    scan()
    assert DuplicateSuggestion.objects.get(pair_key=key).status == "merged"
    assert not duplicate_suggestions_pending().exists()


def test_a_pair_no_longer_found_is_withdrawn():
    writer, _ = entity_store(name="Teodora Vasquez-Lind", type="person")
    alias_add(entity=writer, alias="Quill of Brenmoor")
    other, _ = entity_store(name="Quill of Brenmoor", type="person")
    scan()
    assert duplicate_suggestions_pending().count() == 1
    services.alias_remove(entity=writer, alias="Quill of Brenmoor")
    result = scan().result
    assert result["withdrawn"] == 1 and not duplicate_suggestions_pending().exists()


def test_a_focused_scan_only_pairs_its_entities():
    town, _ = entity_store(name="Vellmar Crossing", type="place")
    station, _ = entity_store(name="Vellmar Crossing", type="station")
    short, _ = entity_store(name="Mr. Pemberton", type="person")
    full, _ = entity_store(name="Arthur Pemberton", type="person")
    evidence = duplicate_candidates(entity_ids=[short.pk]).evidence
    assert pair_of(short.pk, full.pk) in evidence
    assert pair_of(town.pk, station.pk) not in evidence


def test_requests_in_a_burst_join_one_queued_scan():
    first, new = duplicate_scan_request(entity_ids=["a1", "b2"])
    second, new_again = duplicate_scan_request(entity_ids=["c3"])
    assert new and not new_again and first.pk == second.pk
    second.refresh_from_db()
    assert second.entity_ids == ["a1", "b2", "c3"]
    everything, _ = duplicate_scan_request()
    everything.refresh_from_db()
    assert everything.pk == first.pk and everything.entity_ids is None


def test_ingestion_queues_a_scan_of_the_new_entities(django_capture_on_commit_callbacks):
    known, _ = entity_store(name="Arthur Pemberton", type="person")
    with django_capture_on_commit_callbacks(execute=True):
        result = entities_ensure(
            drafts=[EntityDraft(name="Arthur Pembertn", type="person")], source="a test book"
        )
    # The queue runs jobs inline in tests: the scan is done once the ingestion commits.
    scan_row = DuplicateScan.objects.get()
    assert scan_row.status == "done" and scan_row.entity_ids == result.created
    pending = duplicate_suggestions_pending().get()
    assert {pending.entity_a_id, pending.entity_b_id} == {known.pk, *result.created}


def test_the_job_records_failure(monkeypatch, django_capture_on_commit_callbacks):
    def broken(**kwargs):
        raise RuntimeError("index unreadable")

    monkeypatch.setattr(services.duplicate_queue, "duplicate_candidates", broken)
    # The queue runs jobs inline in tests and hands their exception on.
    with pytest.raises(RuntimeError), django_capture_on_commit_callbacks(execute=True):
        queued = duplicate_scan_enqueue()
    queued.refresh_from_db()
    assert queued.status == "failed" and "index unreadable" in queued.error


def test_a_finished_scan_is_not_run_twice():
    done = scan()
    again = duplicate_scan_run(scan_id=done.pk)
    assert again.finished_at == done.finished_at


def test_the_command_scans_and_refuses_unknown_ids():
    entity_store(name="Vellmar Crossing", type="place")
    entity_store(name="Vellmar Crossing", type="station")
    out = StringIO()
    call_command("find_duplicates", stdout=out)
    assert "1 pairs found, 1 new" in out.getvalue()
    with pytest.raises(CommandError, match="no entity with id 'nope'"):
        call_command("find_duplicates", "nope")


def _triple(subject, predicate, obj, text):
    fact_store(text=text, subject=subject, predicate=predicate, object_entity=obj)


def test_a_duplicate_under_another_name_is_found_by_its_facts_and_neighbours():
    """Two names with little in common, the same machine and the same colleague: the
    shared neighbours put the pair in a block and the learned scorer keeps it."""
    first, _ = entity_store(name="Ada Lovelace", type="person")
    second, _ = entity_store(name="Augusta Ada King", type="person")
    engine, _ = entity_store(name="Analytical Engine", type="work")
    colleague, _ = entity_store(name="Charles Babbage", type="person")
    _triple(first, "wrote_about", engine, "Ada Lovelace wrote the notes on the Analytical Engine")
    _triple(first, "worked_with", colleague, "Ada Lovelace worked with Charles Babbage")
    _triple(
        second,
        "translated",
        engine,
        "Augusta Ada King translated the paper on the Analytical Engine",
    )
    _triple(second, "wrote_to", colleague, "Augusta Ada King wrote letters to Charles Babbage")
    found = duplicate_candidates()
    pair = pair_of(first.pk, second.pk)
    items = {item["kind"]: item for item in found.evidence[pair]}
    assert items["shared_neighbours"]["count"] == 2
    assert found.score(pair) >= services.DUPLICATE_MIN_SCORE
    scan()
    assert duplicate_suggestions_pending().filter(pair_key=pair_key(pair)).exists()


def test_numbered_names_do_not_rank_high():
    first, _ = entity_store(name="file1.txt", type="format")
    second, _ = entity_store(name="file2.txt", type="format")
    found = duplicate_candidates()
    pair = pair_of(first.pk, second.pk)
    assert found.score(pair) < 0.1
    assert {"kind": "numbered_names", "score": 0.0} in found.evidence[pair]
    scan()
    assert not duplicate_suggestions_pending().exists()
