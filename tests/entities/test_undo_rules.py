"""Curator edits and their undo as rules over generated edit histories (Hypothesis).

The entity and fact pages offer an undo for each saved edit (the audit row's). For any
series of edits of one entity, or of one fact:

* an edit can be put back exactly while the row still holds what that edit wrote, and
  only then (a later edit makes it stale: the page must not offer it);
* putting the edits back newest first restores every value the first edit replaced;
* a refused undo changes nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from entities.curation import (
    entity_update_revert,
    entity_update_revertible,
    fact_update_revert,
    fact_update_revertible,
)
from entities.models import Entity, Fact
from entities.services import entity_store, entity_update, fact_store, fact_update
from kgsite.errors import Conflict
from kgsite.models import AuditEntry

HISTORIES = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
NAMES = ("Harbour Crane", "Dock Crane", "Quay Crane No. 2", "Grúa del Muelle")
TYPES = ("machine", "equipment", "")
DESCRIPTIONS = ("", "Lifts containers.", "Out of service since the storm.", "Ünïcödé note.")
TEXTS = (
    "The crane lifts 40 tonnes.",
    "The crane lifts 45 tonnes.",
    "The crane was painted red in 2031.",
)

entity_edit = st.fixed_dictionaries(
    {},
    optional={
        "canonical_name": st.sampled_from(NAMES),
        "type": st.sampled_from(TYPES),
        "description": st.sampled_from(DESCRIPTIONS),
    },
)
fact_edit = st.fixed_dictionaries(
    {},
    optional={
        "text": st.sampled_from(TEXTS),
        "confidence": st.sampled_from([0.25, 0.5, 0.9, 1.0]),
        "source": st.sampled_from(["", "inspection report", "radio call"]),
        "status": st.sampled_from(["active", "retracted"]),
    },
).filter(bool)


def entity_state(entity: Entity) -> tuple:
    entity.refresh_from_db()
    return entity.canonical_name, entity.type, entity.description


def fact_state(fact: Fact) -> tuple:
    fact.refresh_from_db()
    return fact.text, fact.confidence, fact.source, fact.status


def latest(action: str, target_id) -> AuditEntry:
    return AuditEntry.objects.filter(action=action, target_id=str(target_id)).latest("pk")


class UndoRules(TestCase):
    @seed(2471)
    @HISTORIES
    @given(edits=st.lists(entity_edit, min_size=1, max_size=5))
    def test_entity_edits_put_back_newest_first_restore_the_entity(self, edits) -> None:
        entity, _ = entity_store(name="Harbour Crane", type="machine", description="")
        states, entries = [entity_state(entity)], []
        for edit in edits:
            entity_update(entity=entity, actor=None, **edit)
            states.append(entity_state(entity))
            entries.append(latest("entity.update", entity.pk))
        for i in range(len(entries) - 1, -1, -1):
            # Each older edit is revertible exactly when the entity still holds its result.
            for j, entry in enumerate(entries[: i + 1]):
                holds = states[j + 1] == entity_state(entity)
                assert entity_update_revertible(entry=entry) == holds
            entity_update_revert(entry=entries[i], actor=None)
            assert entity_state(entity) == states[i]
        assert Entity.objects.count() == 1

    @seed(2472)
    @HISTORIES
    @given(edits=st.lists(fact_edit, min_size=1, max_size=5))
    def test_fact_edits_put_back_newest_first_restore_the_fact(self, edits) -> None:
        crane, _ = entity_store(name="Harbour Crane", type="machine")
        fact = fact_store(text=TEXTS[0], subject=crane, source="").fact
        original = fact_state(fact)
        entries = []
        for edit in edits:
            before = AuditEntry.objects.count()
            fact_update(fact=fact, actor=None, **edit)
            if AuditEntry.objects.count() > before:  # an edit that changes nothing is no row
                entries.append((latest("fact.update", fact.pk), fact_state(fact)))
        for i in range(len(entries) - 1, -1, -1):
            entry, after = entries[i]
            assert fact_state(fact) == after
            assert fact_update_revertible(entry=entry)
            for older, _after in entries[:i]:
                assert fact_update_revertible(entry=older) == _holds(fact, older)
            fact_update_revert(entry=entry, actor=None)
        assert fact_state(fact) == original


def _holds(fact: Fact, entry: AuditEntry) -> bool:
    fact.refresh_from_db()
    after = entry.payload["after"]
    current = {"text": fact.text, "confidence": fact.confidence, "source": fact.source}
    current["status"] = fact.status
    return all(current.get(k, v) == v for k, v in after.items())


@pytest.mark.django_db
def test_a_stale_entity_edit_is_refused_and_changes_nothing() -> None:
    entity, _ = entity_store(name="Harbour Crane", type="machine")
    entity_update(entity=entity, actor=None, description="Lifts containers.")
    first = latest("entity.update", entity.pk)
    entity_update(entity=entity, actor=None, description="Out of service.")
    before = entity_state(entity)
    rows = AuditEntry.objects.count()
    assert not entity_update_revertible(entry=first)
    with pytest.raises(Conflict) as info:
        entity_update_revert(entry=first, actor=None)
    assert info.value.code == "stale"
    assert entity_state(entity) == before
    assert AuditEntry.objects.count() == rows


@pytest.mark.django_db
def test_an_entity_edit_cannot_be_put_back_onto_a_name_taken_since() -> None:
    crane, _ = entity_store(name="Harbour Crane", type="machine")
    entity_update(entity=crane, actor=None, canonical_name="Dock Crane")
    rename = latest("entity.update", crane.pk)
    taken, _ = entity_store(name="Harbour Crane", type="machine")  # the old name, reused
    with pytest.raises(Conflict):
        entity_update_revert(entry=rename, actor=None)
    assert entity_state(crane)[0] == "Dock Crane"
    assert entity_state(taken)[0] == "Harbour Crane"


@pytest.mark.django_db
def test_a_stale_fact_edit_is_refused_and_changes_nothing() -> None:
    crane, _ = entity_store(name="Harbour Crane", type="machine")
    fact = fact_store(text=TEXTS[0], subject=crane).fact
    fact_update(fact=fact, actor=None, text=TEXTS[1])
    first = latest("fact.update", fact.pk)
    fact_update(fact=fact, actor=None, text=TEXTS[2])
    before = fact_state(fact)
    with pytest.raises(Conflict) as info:
        fact_update_revert(entry=first, actor=None)
    assert info.value.code == "stale"
    assert fact_state(fact) == before


@pytest.mark.django_db
def test_a_description_an_agent_filled_in_can_be_put_back(curator_api, curator):
    """Storing an existing undescribed entity with a description fills it in; the history
    row must offer the undo every other edit has (a partial row offered none)."""
    crane, _ = entity_store(name="Harbour Crane", type="machine")
    response = curator_api.post(
        "/api/v1/entities/",
        {"canonical_name": "harbour crane", "type": "machine", "description": "Lifts boxes."},
        format="json",
    )
    assert response.status_code == 200 and response.json()["description"] == "Lifts boxes."
    entry = latest("entity.update", crane.pk)
    assert entity_update_revertible(entry=entry)
    entity_update_revert(entry=entry, actor=curator)
    crane.refresh_from_db()
    assert (crane.canonical_name, crane.type, crane.description) == ("Harbour Crane", "machine", "")
