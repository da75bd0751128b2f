"""Rejected candidates (curation.entities_reject) come back exactly on undo: the same
ids, aliases, fact links and the facts' subject and object; an undo that would clash
with a name taken since is refused and changes nothing. A dismissed duplicate pair can
be taken back into the queue once."""

from __future__ import annotations

import pytest

from entities import curation
from entities.models import Alias, DuplicateSuggestion, Entity, EntityFact, Fact
from entities.services import alias_add, entity_store, fact_store
from kgsite.errors import Conflict, InvalidInput, NotFound

pytestmark = pytest.mark.django_db


def _rows() -> tuple:
    return (
        sorted(Entity.objects.values_list("pk", "canonical_name", "type", "candidate")),
        sorted(Alias.objects.values_list("pk", "entity_id", "alias", "manual")),
        sorted(EntityFact.objects.values_list("pk", "entity_id", "fact_id", "role")),
        sorted(Fact.objects.values_list("pk", "subject_id", "object_entity_id", "text")),
    )


@pytest.fixture
def candidates(db):
    river, _ = entity_store(name="Orinoco Delta", type="place")
    town, _ = entity_store(name="Tucupita", type="place")
    alias_add(entity=town, alias="Tucupita town", manual=False)
    kept, _ = entity_store(name="Caracas", type="place")
    fact_store(
        text="Tucupita lies in the Orinoco Delta.",
        subject=town,
        predicate="in",
        object_entity=river,
    )
    fact_store(text="Caracas is far from Tucupita.", entities=[kept, town])
    Entity.objects.filter(pk__in=[river.pk, town.pk]).update(candidate=True)
    return river, town, kept


def test_reject_then_undo_restores_every_row_exactly(candidates, curator):
    river, town, kept = candidates
    before = _rows()
    entry = curation.entities_reject(entity_ids=[town.pk, river.pk], actor=curator)
    assert not Entity.objects.filter(pk__in=[river.pk, town.pk]).exists()
    assert Entity.objects.filter(pk=kept.pk).exists()
    assert curation.entities_reject_problems(entry=entry) == []
    curation.entities_reject_undo(entry=entry, actor=curator)
    assert _rows() == before


def test_undo_refused_when_a_name_was_taken_since_changes_nothing(candidates, curator):
    river, town, _kept = candidates
    entry = curation.entities_reject(entity_ids=[town.pk], actor=curator)
    entity_store(name="Tucupita", type="place")
    after_reject = _rows()
    assert curation.entities_reject_problems(entry=entry) == [
        "another entity is now named 'Tucupita'"
    ]
    with pytest.raises(Conflict) as caught:
        curation.entities_reject_undo(entry=entry, actor=curator)
    assert "Tucupita" in caught.value.message
    assert _rows() == after_reject


def test_a_confirmed_entity_cannot_be_rejected_and_nothing_is_deleted(candidates, curator):
    river, _town, kept = candidates
    before = _rows()
    with pytest.raises(NotFound):
        curation.entities_reject(entity_ids=[river.pk, kept.pk], actor=curator)
    with pytest.raises(InvalidInput) as caught:
        curation.entities_reject(entity_ids=[], actor=curator)
    assert caught.value.field == "ids"
    assert _rows() == before


def test_a_dismissed_pair_is_taken_back_once(candidates, curator):
    river, town, _kept = candidates
    suggestion = DuplicateSuggestion.objects.create(
        pair_key="|".join(sorted([river.pk, town.pk])),
        entity_a=river,
        entity_b=town,
        score=0.5,
        status=DuplicateSuggestion.Status.DISMISSED,
        decided_by=curator,
    )
    back = curation.duplicate_undismiss(suggestion=suggestion, actor=curator)
    assert back.status == DuplicateSuggestion.Status.PENDING and back.decided_by is None
    with pytest.raises(Conflict):
        curation.duplicate_undismiss(suggestion=suggestion, actor=curator)
    assert DuplicateSuggestion.objects.get(pk=suggestion.pk).status == "pending"


@pytest.mark.django_db(transaction=True)
def test_undoing_a_rejection_draws_the_restored_facts_edges_again(candidates, curator):
    from entities.graph.models import Edge

    river, town, _kept = candidates
    assert Edge.objects.filter(head=town, tail=river).exists()
    entry = curation.entities_reject(entity_ids=[town.pk, river.pk], actor=curator)
    assert not Edge.objects.exists()
    curation.entities_reject_undo(entry=entry, actor=curator)
    [edge] = Edge.objects.select_related("relation")
    assert (edge.head_id, edge.relation.name, edge.tail_id) == (town.pk, "located_in", river.pk)
    assert edge.fact_count == 1
