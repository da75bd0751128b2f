"""Integrity outside the model: the contradiction queries and their filters, the
background job's trigger, what a curator's decision keeps across later checks, the
inputs the resolution and check refuse, and the side-by-side diff of the two facts."""

from __future__ import annotations

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from entities.models import Fact
from entities.services import entity_store, fact_store
from integrity import tasks
from integrity.models import Contradiction
from integrity.resolution import contradiction_resolve
from integrity.selectors import contradiction_get, contradiction_list
from integrity.services import fact_check
from integrity.views import differing_words
from kgsite.converters import MAX_ID
from kgsite.errors import InvalidInput, NotFound
from notifications.models import Notification

pytestmark = pytest.mark.django_db


@pytest.fixture
def bruno(db):
    return entity_store(name="Bruno", type="person")[0]


def store(text: str, subject) -> Fact:
    return fact_store(text=text, subject=subject).fact


@pytest.fixture
def pair(bruno, no_index, django_capture_on_commit_callbacks) -> Contradiction:
    with django_capture_on_commit_callbacks(execute=True):
        store("Bruno was born in 1971.", bruno)
        store("Bruno was born in 1968.", bruno)
    return Contradiction.objects.get()


# --- Queries -------------------------------------------------------------------------


def test_the_list_filters_by_status_kind_and_either_fact(pair, curator):
    assert list(contradiction_list(status="open")) == [pair]
    assert list(contradiction_list(kind=pair.kind)) == [pair]
    other_kind = next(k for k in Contradiction.Kind.values if k != pair.kind)
    assert list(contradiction_list(kind=other_kind)) == []
    assert list(contradiction_list(fact=pair.fact_a_id)) == [pair]
    assert list(contradiction_list(fact=str(pair.fact_b_id))) == [pair]
    unrelated = fact_store(text="The lake froze in winter.").fact
    assert list(contradiction_list(fact=unrelated.pk)) == []
    contradiction_resolve(contradiction=pair, resolution="keep_first", actor=curator)
    assert list(contradiction_list(status="open")) == []
    assert list(contradiction_list(status="resolved")) == [pair]


@pytest.mark.parametrize("fact", [-1, MAX_ID + 1, "1.5", "one"])
def test_a_fact_filter_out_of_range_or_not_an_id_names_the_field(fact):
    with pytest.raises(InvalidInput) as info:
        list(contradiction_list(fact=fact))
    assert info.value.field == "fact"


def test_the_list_is_newest_first(bruno, no_index, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        store("Bruno was born in 1971.", bruno)
        store("Bruno was born in 1968.", bruno)
    with django_capture_on_commit_callbacks(execute=True):
        store("Bruno was born in 1975.", bruno)
    listed = list(contradiction_list())
    assert len(listed) >= 2
    assert [c.pk for c in listed] == sorted((c.pk for c in listed), reverse=True)


def test_an_unknown_contradiction_is_not_found_naming_the_id(db):
    with pytest.raises(NotFound) as info:
        contradiction_get(contradiction_id=987654)
    assert info.value.field == "id" and "987654" in info.value.message


# --- What a decision keeps -----------------------------------------------------------


def test_a_both_true_decision_is_not_asked_again_by_later_checks(pair, curator):
    contradiction_resolve(
        contradiction=pair, resolution="both_true", note="Two records disagree.", actor=curator
    )
    for fact_id in (pair.fact_a_id, pair.fact_b_id):
        result = fact_check(fact_id=fact_id)
        assert result.contradictions == []
    assert Contradiction.objects.count() == 1
    pair.refresh_from_db()
    assert pair.status == "resolved" and pair.note == "Two records disagree."
    assert Notification.objects.get(key=f"contradiction:{pair.pk}").read


def test_a_third_fact_never_resolves_an_open_contradiction(
    pair, bruno, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        store("Bruno was born in 1971.", bruno)
    pair.refresh_from_db()
    assert pair.status == "open" and pair.resolution == ""
    assert Notification.objects.get(key=f"contradiction:{pair.pk}").read is False
    assert (
        Fact.objects.filter(pk__in=[pair.fact_a_id, pair.fact_b_id], status="active").count() == 2
    )


def test_a_note_given_with_keep_first_is_kept_trimmed(pair, curator):
    resolved = contradiction_resolve(
        contradiction=pair, resolution="keep_first", note="  the register says 1971 ", actor=curator
    )
    assert resolved.note == "the register says 1971"


@pytest.mark.parametrize(
    ("resolution", "note", "field"),
    [
        (["keep_first"], "", "resolution"),
        (None, "", "resolution"),
        ("KEEP_FIRST", "", "resolution"),
        ("keep_first", 42, "note"),
        ("both_true", None, "note"),
    ],
)
def test_a_malformed_resolution_names_the_field_and_changes_nothing(
    pair, curator, resolution, note, field
):
    with pytest.raises(InvalidInput) as info:
        contradiction_resolve(contradiction=pair, resolution=resolution, note=note, actor=curator)
    assert info.value.field == field
    pair.refresh_from_db()
    assert pair.status == "open"
    statuses = Fact.objects.filter(pk__in=[pair.fact_a_id, pair.fact_b_id])
    assert {f.status for f in statuses} == {"active"}


# --- The background job's trigger ----------------------------------------------------


@pytest.mark.parametrize(("action", "queued"), [("created", 1), ("relinked", 1), ("updated", 0)])
def test_only_new_and_relinked_facts_are_queued_for_a_check(monkeypatch, action, queued):
    jobs = []
    monkeypatch.setattr(tasks.queue, "async_task", lambda *a, **kw: jobs.append((a, kw)))
    tasks.fact_check_enqueue(41, action)
    assert len(jobs) == queued
    if queued:
        (func, fact_id), options = jobs[0]
        assert (func, fact_id, options["group"]) == (tasks.fact_check_task, 41, "integrity")


def test_the_job_checks_the_fact_it_names(pair):
    assert tasks.fact_check_task(pair.fact_b_id)["fact_id"] == pair.fact_b_id


# --- The check endpoint --------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"existing": 1990, "new": "Bruno was born in 1968."}, "existing"),
        ({"existing": "Bruno was born in 1971.", "new": ["x"]}, "new"),
        ({"existing": "Bruno was born in 1971.", "new": "Bruno", "lang": 5}, "lang"),
    ],
)
def test_check_with_values_of_the_wrong_type_names_the_field(api, body, field):
    response = api.post("/api/v1/integrity/check", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_check_with_a_body_that_is_not_an_object_is_400(api):
    response = api.post("/api/v1/integrity/check", "[1, 2]", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["message"]


# --- The diff shown side by side -----------------------------------------------------

words = st.lists(
    st.sampled_from(["Bruno", "was", "born", "in", "1971", "1968", "not", ",", ".", " ", "é"]),
    max_size=30,
).map(" ".join)


@seed(2451)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(first=words, second=words)
def test_the_diff_loses_no_text_and_marks_nothing_in_equal_texts(first, second) -> None:
    runs_a, runs_b = differing_words(first, second)
    assert "".join(r["text"] for r in runs_a) == first
    assert "".join(r["text"] for r in runs_b) == second
    same_a, same_b = differing_words(first, first)
    assert not any(r["diff"] for r in same_a + same_b)
    if first != second:
        assert any(r["diff"] for r in runs_a + runs_b)


def test_an_overlong_fact_is_marked_whole_and_kept_whole() -> None:
    long_a = "Bruno " + "lived in Rome " * 300 + "until 1971."
    long_b = "Bruno " + "lived in Oslo " * 300 + "until 1971."
    runs_a, runs_b = differing_words(long_a, long_b)
    assert "".join(r["text"] for r in runs_a) == long_a
    assert [r["diff"] for r in runs_b] == [False, True, False]
