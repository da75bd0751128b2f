"""Fact edits by curators change only what they say, store each field in its stored
form, and refuse (naming the field) what a fact's kind does not allow."""

from __future__ import annotations

import pytest
from django.utils import timezone

from entities.models import EntityFact, Fact
from entities.services import (
    entity_store,
    fact_changes,
    fact_delete,
    fact_link,
    fact_status_set,
    fact_update,
)
from kgsite.errors import Conflict, InvalidInput
from kgsite.models import AuditEntry
from kgsite.text import normalize

# --- fact edits ----------------------------------------------------------------------------


def stored(text: str, **fields) -> Fact:
    return Fact.objects.create(text=text, text_norm=normalize(text), **fields)


@pytest.mark.django_db
def test_an_edit_that_changes_nothing_writes_nothing(curator):
    fact = stored("The tide turns at noon.", confidence=0.5, source="log")
    assert fact_changes(fact=fact, confidence=0.5, source="log") == {}
    fact_update(fact=fact, actor=curator, confidence=0.5, text="The tide turns at noon.")
    assert not AuditEntry.objects.filter(action="fact.update").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["subject", "scope", "confirmations", "text_norm"])
def test_fields_outside_the_editable_list_are_refused_by_name(field):
    fact = stored("The tide turns at noon.")
    with pytest.raises(InvalidInput) as info:
        fact_changes(fact=fact, **{field: "x"})
    assert info.value.field == field


@pytest.mark.django_db
def test_reactivating_a_retracted_fact_may_not_repeat_an_active_one_of_its_scope(curator):
    stored("The tide turns at noon.")
    old = stored("The tide turns at noon.", status="retracted")
    elsewhere = stored("The tide turns at noon.", status="retracted", scope="alpha")
    with pytest.raises(Conflict, match="already says this"):
        fact_update(fact=old, actor=curator, status="active")
    assert fact_update(fact=elsewhere, actor=curator, status="active").status == "active"


@pytest.mark.django_db
def test_a_kind_change_may_not_repeat_an_active_fact_of_that_kind(curator, curator_api):
    """PATCH kind made a decision into a mistake memory already held word for word: two
    active twins, where storing it again would have confirmed the first."""
    mistake = stored("Deploying at noon broke checkout.", kind="mistake", scope="shop")
    decision = stored("Deploying at noon broke checkout.", kind="decision", scope="shop")
    response = curator_api.patch(
        f"/api/v1/facts/{decision.pk}/", {"kind": "mistake"}, format="json"
    )
    assert response.status_code == 409, response.json()
    assert response.json()["error"]["fact"] == mistake.pk
    decision.refresh_from_db()
    assert decision.kind == "decision"
    assert fact_update(fact=decision, actor=curator, kind="investigation").kind == "investigation"


@pytest.mark.django_db
def test_changing_a_goal_into_a_plain_fact_clears_its_goal_status(curator):
    goal = stored("Chart the shoals.", kind="goal", goal_status="done")
    updated = fact_update(fact=goal, actor=curator, kind="fact")
    assert (updated.kind, updated.goal_status) == ("fact", "")
    with pytest.raises(InvalidInput) as info:
        fact_changes(fact=updated, goal_status="done")
    assert info.value.field == "goal_status"


@pytest.mark.django_db
def test_a_deleted_fact_leaves_its_text_triple_and_links_in_the_audit(curator):
    ena, _ = entity_store(name="Ena Holt", type="person")
    fact = stored("Ena Holt charts the shoals.", subject=ena, predicate="charts")
    fact_link(fact=fact, entity=ena, role="subject")
    fact_delete(fact=fact, actor=curator)
    assert not Fact.objects.exists() and not EntityFact.objects.exists()
    entry = AuditEntry.objects.get(action="fact.delete")
    assert entry.payload["text"] == "Ena Holt charts the shoals."
    assert (entry.payload["subject"], entry.payload["predicate"]) == (ena.pk, "charts")
    assert entry.payload["entities"] == [[ena.pk, "subject"]]


@pytest.mark.django_db
def test_setting_an_unknown_status_is_refused():
    fact = stored("The tide turns at noon.")
    with pytest.raises(InvalidInput, match="unknown status"):
        fact_status_set(fact=fact, status="lost", valid_to=None)
    fact.refresh_from_db()
    assert fact.status == "active"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"text": "The Tide turns at one."}, {"text_norm": "the tide turns at one."}),
        ({"valid_to": None}, {"valid_to": None}),
        ({"kind": "pattern", "domain": "Tides"}, {"kind": "pattern", "domain": "tides"}),
        (
            {"kind": "resolved_unknown", "resolved_by": "the almanac"},
            {"kind": "resolved_unknown", "resolved_by": "the almanac"},
        ),
        ({"kind": "goal"}, {"kind": "goal", "goal_status": "active"}),
    ],
)
def test_an_edit_stores_each_field_in_its_stored_form(curator, changes, expected):
    fact = stored("The tide turns at noon.", valid_to=timezone.now())
    updated = fact_update(fact=fact, actor=curator, **changes)
    for field, value in expected.items():
        assert getattr(updated, field) == value, field
    entry = AuditEntry.objects.get(action="fact.update")
    assert "text_norm" not in entry.payload["after"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"valid_from": "yesterday"}, "valid_from"),
        ({"kind": "resolved_unknown"}, "resolved_by"),
        ({"kind": "nonsense"}, "kind"),
        ({"domain": "tides"}, "domain"),
        ({"goal_status": "done"}, "goal_status"),
    ],
)
def test_an_edit_a_kind_does_not_allow_names_the_field(curator, changes, field):
    fact = stored("The tide turns at noon.")
    with pytest.raises(InvalidInput) as info:
        fact_update(fact=fact, actor=curator, **changes)
    assert info.value.field == field
    fact.refresh_from_db()
    assert (fact.kind, fact.domain, fact.goal_status) == ("fact", "", "")
