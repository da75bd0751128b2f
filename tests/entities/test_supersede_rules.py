"""Replacing a fact by a corrected text (curation.fact_supersede) and its undo: the
refusals write nothing, and undo never retracts a fact the replacement did not create."""

from __future__ import annotations

import pytest

from entities import curation
from entities.models import Fact
from entities.services import entity_store, fact_store
from kgsite.errors import DomainError
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db


def _facts() -> list[tuple]:
    return sorted(Fact.objects.values_list("pk", "text", "status", "valid_to"))


@pytest.fixture
def keeper(db):
    entity, _ = entity_store(name="Ines Varga", type="person")
    return entity


@pytest.mark.parametrize("text", ["", "   ", "ines varga keeps the lighthouse."])
def test_an_empty_or_unchanged_text_is_refused_and_writes_nothing(keeper, curator, text):
    fact = fact_store(text="Ines Varga keeps the lighthouse.", entities=[keeper]).fact
    before = _facts()
    with pytest.raises(DomainError) as caught:
        curation.fact_supersede(fact=fact, text=text, actor=curator)
    assert caught.value.field == "text"
    assert _facts() == before


def test_a_retracted_fact_cannot_be_superseded(keeper, curator):
    fact = fact_store(text="Ines Varga keeps the lighthouse.", entities=[keeper]).fact
    Fact.objects.filter(pk=fact.pk).update(status=Fact.Status.RETRACTED)
    before = _facts()
    with pytest.raises(DomainError) as caught:
        curation.fact_supersede(fact=fact, text="Ines Varga keeps the harbour.", actor=curator)
    assert "retracted" in caught.value.message
    assert _facts() == before


def test_a_text_another_active_fact_already_states_is_refused_and_writes_nothing(keeper, curator):
    """Else the replacement would be that other fact, and undoing the replacement would
    retract a fact the curator never touched."""
    old = fact_store(text="Ines Varga keeps the lighthouse.", entities=[keeper]).fact
    other = fact_store(text="Ines Varga keeps the harbour light.", entities=[keeper]).fact
    before = _facts()
    with pytest.raises(DomainError) as caught:
        curation.fact_supersede(fact=old, text="ines varga keeps the harbour light.", actor=curator)
    assert caught.value.field == "text" and str(other.pk) in caught.value.message
    assert _facts() == before
    assert not AuditEntry.objects.filter(action="fact.supersede").exists()
    assert not other.confirmation_rows.exists()
