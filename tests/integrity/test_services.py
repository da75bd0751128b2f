from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.utils import timezone

from entities.models import Fact
from entities.services import entity_store, fact_store
from integrity import services
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction, PendingFactCheck
from integrity.resolution import contradiction_resolve, contradiction_undo
from integrity.services import (
    contradiction_urgency,
    fact_check,
)
from kgsite.errors import Conflict, InvalidInput
from kgsite.models import AuditEntry
from notifications.models import Notification

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_index(monkeypatch):
    """The vector index is empty: candidates come from entity links only."""
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [])


@pytest.fixture
def alice(db):
    return entity_store(name="Alice", type="person")[0]


def store(text: str, subject=None, **kwargs) -> Fact:
    return fact_store(text=text, subject=subject, **kwargs).fact


@pytest.fixture
def pair(alice, no_index, django_capture_on_commit_callbacks) -> Contradiction:
    """An open contradiction found by the background check."""
    with django_capture_on_commit_callbacks(execute=True):
        store("Alice lives in Paris.", alice)
        store("Alice lives in Lyon.", alice)
    return Contradiction.objects.get()


# --- Background check ----------------------------------------------------------------


def test_saving_a_conflicting_fact_creates_a_contradiction_and_a_high_notification(
    alice, no_index, django_capture_on_commit_callbacks
):
    first = store("Alice was born in 1990.", alice)
    with django_capture_on_commit_callbacks(execute=True):
        second = store("Alice was born in 1985.", alice)

    contradiction = Contradiction.objects.get()
    assert (contradiction.fact_a_id, contradiction.fact_b_id) == (first.pk, second.pk)
    assert contradiction.kind == "date"
    assert contradiction.confidence >= 0.8
    assert "1990" in contradiction.explanation and "1985" in contradiction.explanation
    assert contradiction.status == "open"
    # The new fact was saved all the same: the check never blocks a write.
    assert Fact.objects.get(pk=second.pk).status == "active"

    notification = Notification.objects.get()
    assert (notification.type, notification.urgency) == ("contradiction", "high")
    assert notification.payload["contradiction"] == contradiction.pk
    assert notification.payload["fact_a"]["text"] == "Alice was born in 1990."
    assert notification.link == f"/api/v1/integrity/contradictions/{contradiction.pk}/"


def test_facts_sharing_only_a_mentioned_entity_are_still_compared(
    no_index, django_capture_on_commit_callbacks
):
    tower = entity_store(name="Eiffel Tower", type="place")[0]
    store("The Eiffel Tower is 330 metres tall.", entities=[tower])
    with django_capture_on_commit_callbacks(execute=True):
        store("The Eiffel Tower is 300 metres tall.", entities=[tower])
    assert Contradiction.objects.get().kind == "number"


def test_index_neighbours_are_candidates_even_without_shared_entities(monkeypatch):
    first = store("Bob was born in 1990.")
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [(first.pk, 0.8)])
    second = store("Bob was born in 1985.")
    result = fact_check(fact_id=second.pk)
    assert result.checked == 1
    contradiction = Contradiction.objects.get(pk=result.contradictions[0])
    assert (contradiction.fact_a_id, contradiction.kind) == (first.pk, "date")


def test_exhaustive_setting_compares_every_fact_sharing_an_entity(monkeypatch, settings):
    tower = entity_store(name="Eiffel Tower", type="place")[0]
    unrelated = store("Paris has many bridges.")
    old = store("The Eiffel Tower is 330 metres tall.", entities=[tower])
    # The index only offers an unrelated neighbour, so mention links are not consulted...
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [(unrelated.pk, 0.75)])
    new = store("The Eiffel Tower is 300 metres tall.", entities=[tower])
    assert fact_check(fact_id=new.pk).contradictions == []
    # ...unless the exhaustive setting asks for every fact sharing an entity.
    settings.KGSITE_CANDIDATE_EXHAUSTIVE = True
    found = fact_check(fact_id=new.pk).contradictions
    assert Contradiction.objects.get(pk=found[0]).fact_a_id == old.pk


def test_unrelated_facts_are_not_compared(no_index):
    store("Alice lives in Paris.", entity_store(name="Alice", type="person")[0])
    other = store("Bob lives in Lyon.", entity_store(name="Bob", type="person")[0])
    result = fact_check(fact_id=other.pk)
    assert result.checked == 0
    assert not Contradiction.objects.exists()


def test_check_is_idempotent(alice, no_index):
    store("Alice lives in Paris.", alice)
    second = store("Alice lives in Lyon.", alice)
    first_run = fact_check(fact_id=second.pk)
    second_run = fact_check(fact_id=second.pk)
    assert len(first_run.contradictions) == 1
    assert second_run.contradictions == [] and second_run.checked == 0
    assert Contradiction.objects.count() == 1
    assert Notification.objects.count() == 1


def test_checking_the_older_fact_finds_the_same_pair_in_the_same_order(alice, no_index):
    first = store("Alice lives in Paris.", alice)
    second = store("Alice lives in Lyon.", alice)
    fact_check(fact_id=first.pk)
    fact_check(fact_id=second.pk)
    contradiction = Contradiction.objects.get()
    assert (contradiction.fact_a_id, contradiction.fact_b_id) == (first.pk, second.pk)


def test_superseded_facts_are_neither_checked_nor_candidates(alice, no_index):
    old = store("Alice lives in Paris.", alice)
    Fact.objects.filter(pk=old.pk).update(status="superseded")
    new = store("Alice lives in Lyon.", alice)
    assert fact_check(fact_id=new.pk).checked == 0
    assert fact_check(fact_id=old.pk).skipped == "inactive"
    assert fact_check(fact_id=10**9).skipped == "missing"
    assert not Contradiction.objects.exists()


def test_a_reworded_duplicate_found_in_the_background_is_a_low_notification(alice, no_index):
    first = store("Alice lives in Paris", alice)
    second = store("Alice lives in Paris.", alice)  # not caught synchronously: no index
    assert second.pk != first.pk
    result = fact_check(fact_id=second.pk)
    assert result.duplicates == [first.pk]
    assert not Contradiction.objects.exists()
    notification = Notification.objects.get()
    assert (notification.type, notification.urgency) == ("duplicate", "low")


@pytest.mark.parametrize(
    ("confidence", "urgency"),
    [(1.0, "high"), (0.8, "high"), (0.79, "medium"), (0.5, "medium"), (0.49, "low")],
)
def test_urgency_follows_the_confidence_threshold(confidence, urgency):
    assert contradiction_urgency(confidence) == urgency


def test_a_doubtful_contradiction_is_a_medium_notification(alice, no_index, monkeypatch):
    monkeypatch.setattr(
        services,
        "classify",
        lambda **kw: Verdict("contradiction", "status", 0.6, "status: open vs closed"),
    )
    store("The shop is open.", alice)
    new = store("The shop is closed.", alice)
    fact_check(fact_id=new.pk)
    assert Contradiction.objects.get().kind == "status"
    assert Notification.objects.get().urgency == "medium"


def test_the_medium_threshold_is_a_setting(settings):
    assert contradiction_urgency(0.55) == "medium"
    settings.KGSITE_CONTRADICTION_MEDIUM_THRESHOLD = 0.6
    assert contradiction_urgency(0.55) == "low"


def test_subject_candidates_are_limited_by_a_setting(alice, no_index, settings):
    older = [store(f"Alice visited museum number {n}.", alice) for n in range(3)]
    new = store("Alice lives in Paris.", alice)
    settings.KGSITE_CANDIDATE_SUBJECT_LIMIT = 2
    settings.KGSITE_CANDIDATE_FALLBACK_LIMIT = 2
    assert set(services.fact_candidates(fact=new)) == {older[1].pk, older[2].pk}
    settings.KGSITE_CANDIDATE_SUBJECT_LIMIT = 200
    assert set(services.fact_candidates(fact=new)) == {f.pk for f in older}
    settings.KGSITE_CANDIDATE_SUBJECT_LIMIT = 1
    settings.KGSITE_CANDIDATE_FALLBACK_LIMIT = 200
    assert set(services.fact_candidates(fact=new)) == {f.pk for f in older}


def test_judge_threshold_is_a_setting(monkeypatch, settings):
    asked: list[str] = []

    def judge(existing, new):
        asked.append(new)
        return None

    monkeypatch.setattr(services, "judge_or_none", lambda: judge)
    pair = {"existing": "The kiosk opens at 8:00.", "new": "The kiosk opens at 9:30."}
    verdict = services.classify(**pair)
    assert verdict.label == "contradiction" and asked == []  # sure enough
    settings.KGSITE_JUDGE_BELOW = verdict.confidence + 0.01
    services.classify(**pair)
    assert asked == ["The kiosk opens at 9:30."]


def test_the_threshold_is_a_setting(alice, no_index, settings):
    settings.KGSITE_CONTRADICTION_NOTIFY_THRESHOLD = 0.95
    store("Alice was born in 1990.", alice)
    new = store("Alice was born in 1985.", alice)
    fact_check(fact_id=new.pk)
    assert Notification.objects.get().urgency == "medium"


# --- Synchronous duplicate catching --------------------------------------------------


def test_near_duplicate_confirms_the_existing_fact_instead_of_copying(alice, monkeypatch):
    first = store("Alice lives in Paris", alice, confidence=0.6)
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [(first.pk, 0.97)])
    result = fact_store(text="Alice lives in Paris.", subject=alice)
    assert result.action == "confirmed"
    assert result.fact.pk == first.pk
    assert result.fact.confirmations == 2
    assert result.fact.confidence > 0.6
    assert Fact.objects.count() == 1


def test_similar_text_with_conflicting_values_is_stored_not_confirmed(alice, monkeypatch):
    first = store("Alice lives in Paris.", alice)
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [(first.pk, 0.95)])
    result = fact_store(text="Alice lives in Lyon.", subject=alice)
    assert result.action == "created"
    assert Fact.objects.count() == 2


def test_neighbours_below_the_duplicate_setting_are_not_confirmed(alice, monkeypatch, settings):
    settings.KGSITE_DUPLICATE_SIMILARITY = 0.99
    first = store("Alice lives in Paris", alice)
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [(first.pk, 0.97)])
    assert fact_store(text="Alice lives in Paris.", subject=alice).action == "created"


def test_a_more_precise_fact_is_stored_not_confirmed(alice, monkeypatch):
    # Confirming it would lose the year.
    first = store("Alice's birthday is June 21.", alice)
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [(first.pk, 0.95)])
    result = fact_store(text="Alice was born on 21 June 2001.", subject=alice)
    assert result.action == "created"
    assert first.pk != result.fact.pk


def test_a_swapped_word_is_stored_however_similar(alice, monkeypatch):
    first = store("Alice bought a house in Lyon.", alice)
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [(first.pk, 0.99)])
    result = fact_store(text="Alice sold a house in Lyon.", subject=alice)
    assert result.action == "created"
    assert Fact.objects.filter(status="active").count() == 2


def test_a_less_precise_reworded_fact_is_confirmed(alice, monkeypatch):
    first = store("Alice was born on 21 June 2001 in Porto.", alice)
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [(first.pk, 0.95)])
    result = fact_store(text="Alice was born on 21 June 2001.", subject=alice)
    assert (result.action, result.fact.pk) == ("confirmed", first.pk)


def test_near_duplicate_k_is_a_setting(alice, monkeypatch, settings):
    asked: list[int] = []

    def similar(text, *, k, min_score):
        asked.append(k)
        return []

    monkeypatch.setattr(services, "similar", similar)
    settings.KGSITE_NEAR_DUPLICATE_K = 7
    store("Alice lives in Paris.", alice)
    assert asked == [7]


def test_a_broken_index_does_not_stop_saving(alice, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("index file is corrupt")

    monkeypatch.setattr(services, "similar_facts", broken)
    store("Alice lives in Rome", alice)
    assert fact_store(text="Alice lives in Rome.", subject=alice).action == "created"


@pytest.fixture
def fresh_index(settings, tmp_path):
    """The real vector index (hashing embedder) in a directory of this test's own."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"


def test_real_index_catches_a_reworded_copy_synchronously(
    fresh_index, alice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = store("Alice lives in Paris", alice)
    with django_capture_on_commit_callbacks(execute=True):
        result = fact_store(text="alice lives in Paris.", subject=alice)
        conflicting = fact_store(text="Alice lives in Lyon.", subject=alice)
    assert (result.action, result.fact.pk, result.fact.confirmations) == (
        "confirmed",
        first.pk,
        2,
    )
    assert conflicting.action == "created"
    # ...and the background check found the conflict with the confirmed fact.
    contradiction = Contradiction.objects.get()
    assert (contradiction.fact_a_id, contradiction.fact_b_id) == (first.pk, conflicting.fact.pk)


def test_real_index_finds_candidates_without_shared_entities(
    fresh_index, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = store("Bob Marley was born in 1945.")
    with django_capture_on_commit_callbacks(execute=True):
        second = store("Bob Marley was born in 1947.")
    contradiction = Contradiction.objects.get()
    assert (contradiction.fact_a_id, contradiction.fact_b_id) == (first.pk, second.pk)
    assert contradiction.kind == "date"


# --- Resolution ----------------------------------------------------------------------


def test_keep_first_supersedes_the_second(pair, curator):
    resolved = contradiction_resolve(contradiction=pair, resolution="keep_first", actor=curator)
    a, b = Fact.objects.get(pk=pair.fact_a_id), Fact.objects.get(pk=pair.fact_b_id)
    assert (a.status, a.valid_to) == ("active", None)
    assert b.status == "superseded" and b.valid_to is not None
    assert resolved.status == "resolved" and resolved.resolution == "keep_first"
    assert resolved.resolved_by == curator and resolved.resolved_at is not None
    entry = AuditEntry.objects.get(action="contradiction.resolve")
    assert entry.actor == curator
    assert entry.payload["before"] == {str(b.pk): {"status": "active", "valid_to": None}}
    # The HIGH notification about it is closed.
    assert Notification.objects.get().read


def test_keep_second_supersedes_the_first(pair, curator):
    contradiction_resolve(contradiction=pair, resolution="keep_second", actor=curator)
    assert Fact.objects.get(pk=pair.fact_a_id).status == "superseded"
    assert Fact.objects.get(pk=pair.fact_b_id).status == "active"


def test_drop_both_retracts_both_and_they_stay_in_history(pair, curator):
    contradiction_resolve(contradiction=pair, resolution="drop_both", actor=curator)
    facts = Fact.objects.filter(pk__in=[pair.fact_a_id, pair.fact_b_id])
    assert {f.status for f in facts} == {"retracted"}
    assert all(f.valid_to is not None for f in facts)
    assert facts.count() == 2


def test_both_true_needs_a_note_and_changes_no_fact(pair, curator):
    with pytest.raises(InvalidInput) as info:
        contradiction_resolve(contradiction=pair, resolution="both_true", note=" ", actor=curator)
    assert info.value.field == "note"
    resolved = contradiction_resolve(
        contradiction=pair, resolution="both_true", note="She has two homes.", actor=curator
    )
    assert resolved.note == "She has two homes."
    assert set(
        Fact.objects.filter(pk__in=[pair.fact_a_id, pair.fact_b_id]).values_list(
            "status", flat=True
        )
    ) == {"active"}


def test_an_earlier_end_date_is_kept(pair, curator):
    ended = timezone.now() - timedelta(days=30)
    Fact.objects.filter(pk=pair.fact_b_id).update(valid_to=ended)
    contradiction_resolve(contradiction=pair, resolution="keep_first", actor=curator)
    assert Fact.objects.get(pk=pair.fact_b_id).valid_to == ended


def test_unknown_resolution_is_rejected(pair, curator):
    with pytest.raises(InvalidInput) as info:
        contradiction_resolve(contradiction=pair, resolution="keep_both", actor=curator)
    assert info.value.field == "resolution"
    pair.refresh_from_db()
    assert pair.status == "open"


def test_resolving_twice_is_a_conflict(pair, curator):
    contradiction_resolve(contradiction=pair, resolution="keep_first", actor=curator)
    with pytest.raises(Conflict) as info:
        contradiction_resolve(contradiction=pair, resolution="keep_second", actor=curator)
    assert info.value.code == "already_resolved"
    assert Fact.objects.get(pk=pair.fact_a_id).status == "active"


@pytest.mark.parametrize("resolution", ["keep_first", "keep_second", "drop_both", "both_true"])
def test_undo_restores_both_facts_and_reopens(pair, curator, resolution):
    ended = timezone.now() + timedelta(days=365)  # a planned end, later than the resolution
    Fact.objects.filter(pk=pair.fact_a_id).update(valid_to=ended)
    contradiction_resolve(contradiction=pair, resolution=resolution, note="because", actor=curator)
    reopened = contradiction_undo(contradiction=pair, actor=curator)
    assert reopened.status == "open"
    assert (reopened.resolution, reopened.note, reopened.resolved_by) == ("", "", None)
    a, b = Fact.objects.get(pk=pair.fact_a_id), Fact.objects.get(pk=pair.fact_b_id)
    assert (a.status, a.valid_to) == ("active", ended)
    assert (b.status, b.valid_to) == ("active", None)
    undo = AuditEntry.objects.get(action="contradiction.undo")
    assert undo.actor == curator and undo.payload["resolution"] == resolution
    # Open again, so curators are alerted again.
    notification = Notification.objects.get(key=f"contradiction:{pair.pk}")
    assert (notification.read, notification.read_at) == (False, None)
    # Undone, it can be resolved again differently.
    contradiction_resolve(contradiction=pair, resolution="keep_second", actor=curator)
    assert Fact.objects.get(pk=pair.fact_a_id).status == "superseded"


def test_undo_of_an_open_contradiction_is_a_conflict(pair, curator):
    with pytest.raises(Conflict) as info:
        contradiction_undo(contradiction=pair, actor=curator)
    assert info.value.code == "not_resolved"


def test_undo_refuses_when_a_fact_changed_since(pair, curator):
    contradiction_resolve(contradiction=pair, resolution="keep_first", actor=curator)
    Fact.objects.filter(pk=pair.fact_b_id).update(status="retracted")
    with pytest.raises(Conflict) as info:
        contradiction_undo(contradiction=pair, actor=curator)
    assert info.value.code == "changed_since"
    pair.refresh_from_db()
    assert pair.status == "resolved"


# --- A broker that refuses the job ----------------------------------------------------


@pytest.fixture
def broken_broker(monkeypatch):
    import django_q.tasks

    def refuse(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(django_q.tasks, "async_task", refuse)
    return monkeypatch


def test_a_refused_check_is_kept_and_run_by_the_next_check(
    alice, no_index, broken_broker, django_capture_on_commit_callbacks
):
    import django_q.tasks

    with django_capture_on_commit_callbacks(execute=True):
        first = store("Alice lives in Paris.", alice)
        second = store("Alice lives in Lyon.", alice)  # no exception reaches the caller
    assert {p.fact_id for p in PendingFactCheck.objects.all()} == {first.pk, second.pk}
    assert not Contradiction.objects.exists()
    notice = Notification.objects.get()  # one per outage, not one per fact
    assert (notice.type, notice.urgency, notice.read) == ("job_failed", "medium", False)
    assert "broker unreachable" in notice.payload["error"]

    broken_broker.undo()
    assert django_q.tasks.async_task is not None
    with django_capture_on_commit_callbacks(execute=True):
        store("Alice speaks French.", alice)
    # The next background check ran the pending ones too: the conflict is found.
    contradiction = Contradiction.objects.get()
    assert (contradiction.fact_a_id, contradiction.fact_b_id) == (first.pk, second.pk)
    assert not PendingFactCheck.objects.exists()
    notice.refresh_from_db()
    assert notice.read


def test_pending_checks_command(alice, no_index, broken_broker, django_capture_on_commit_callbacks):
    from django.core.management import call_command

    with django_capture_on_commit_callbacks(execute=True):
        store("Alice lives in Paris.", alice)
        store("Alice lives in Lyon.", alice)
    out = io.StringIO()
    call_command("check_pending_facts", stdout=out)
    assert "checked 2 of 2 pending facts; 0 left" in out.getvalue()
    assert Contradiction.objects.count() == 1
    assert Notification.objects.get(type="job_failed").read


def test_a_failing_pending_check_stays_pending(alice, no_index, broken_broker, monkeypatch):
    fact = store("Alice lives in Paris.", alice)
    services.fact_check_defer(fact_id=fact.pk, error="down")

    def explode(*, fact_id):
        raise RuntimeError("database hiccup")

    monkeypatch.setattr(services, "fact_check", explode)
    assert services.fact_checks_pending_run() == 0
    assert PendingFactCheck.objects.filter(fact=fact).exists()
    assert not Notification.objects.get(type="job_failed").read


def test_recording_a_refused_check_never_raises(alice, monkeypatch, caplog):
    # The fact vanished before the hook ran: nothing to remember.
    services.fact_check_defer(fact_id=10**9, error="down")
    assert not PendingFactCheck.objects.exists()
    # The database refuses too: logged, not raised (the fact has committed already).
    fact = store("Alice lives in Paris.", alice)

    def refuse(**kwargs):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(PendingFactCheck.objects, "get_or_create", refuse)
    services.fact_check_defer(fact_id=fact.pk, error="down")
    assert "could not record the pending check" in caplog.text


# --- The real model -------------------------------------------------------------------


@pytest.fixture
def real_index(settings, tmp_path):
    """The bundled all-MiniLM-L6-v2 behind the vector index, in a directory of its own."""
    settings.KGSITE_EMBEDDER = "kgsite.vectors.embedder.SentenceTransformerEmbedder"
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Bob bought a house in Lyon.", "Bob sold a house in Lyon."),
        ("Nina's dog is called Rex.", "Nina's cat is called Rex."),
    ],
)
def test_real_model_keeps_a_different_fact_that_reads_alike(
    real_index, existing, new, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = store(existing)
    with django_capture_on_commit_callbacks(execute=True):
        result = fact_store(text=new)
    assert result.action == "created"
    assert result.fact.text == new and result.fact.pk != first.pk
    first.refresh_from_db()
    assert first.confirmations == 1
    # Nor does the background check call them duplicates.
    assert not Notification.objects.filter(type="duplicate").exists()


@pytest.mark.slow
def test_real_model_never_calls_a_reworded_copy_a_conflict(
    real_index, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = store("Bob bought a house in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        result = fact_store(text="In Lyon, Bob bought a house.")
    # Confirmed when the model is sure enough; otherwise stored, and never a conflict.
    if result.action == "confirmed":
        assert (result.fact.pk, result.fact.confirmations) == (first.pk, 2)
    else:
        assert not Contradiction.objects.exists()


def test_an_uncertain_pair_asks_a_curator_with_a_low_notification(alice, no_index, monkeypatch):
    """Issue 14: "possibly conflicting, please check" instead of passing as compatible."""
    store("Alice's rent is 900 CHF.", subject=alice)
    new = store("Alice's rent is 950 EUR.", subject=alice)
    unsure = Verdict("uncertain", "number", 0.4, "Possibly conflicting, please check.")
    monkeypatch.setattr(services, "classify_pair", lambda *args, **kwargs: unsure)
    result = services.fact_check(fact_id=new.pk)
    assert result.uncertain and not result.contradictions
    assert not Contradiction.objects.exists()
    notice = Notification.objects.get()
    assert notice.urgency == "low" and notice.title.startswith("Possibly conflicting")
    assert notice.payload["verdict"] == "uncertain"
    services.fact_check(fact_id=new.pk)  # idempotent: one notification per pair
    assert Notification.objects.count() == 1
