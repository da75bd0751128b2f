"""Edges follow the facts through the fact hooks (real commits: hooks run on commit)."""

from __future__ import annotations

import pytest

from entities.graph.models import Edge, EdgeFact, Relation
from entities.models import Fact
from entities.services import (
    entity_merge,
    entity_merge_undo,
    fact_delete,
    fact_status_set,
    fact_update,
)

from .conftest import make_entity, state

pytestmark = pytest.mark.django_db(transaction=True)


def edges():
    return {
        (e.head.canonical_name, e.relation.name, e.tail.canonical_name, round(e.weight, 3))
        for e in Edge.objects.select_related("head", "relation", "tail")
    }


def test_a_fact_creates_an_edge_and_a_second_one_strengthens_it():
    app, lib = make_entity("Ledgerly", "software"), make_entity("Quillpack", "library")
    state(app, "depends on", lib, confidence=0.5)
    assert edges() == {("Ledgerly", "depends_on", "Quillpack", 0.5)}
    state(app, "requires", lib, confidence=0.75)
    assert edges() == {("Ledgerly", "depends_on", "Quillpack", 1.25)}


def test_an_inverse_predicate_lands_on_the_same_edge_reversed():
    app, lib = make_entity("Ledgerly", "software"), make_entity("Quillpack", "library")
    state(lib, "is a dependency of", app)
    state(app, "depends_on", lib)
    [edge] = Edge.objects.all()
    assert (edge.head_id, edge.relation.name, edge.tail_id) == (app.pk, "depends_on", lib.pk)
    assert edge.fact_count == 2


def test_a_symmetric_relation_is_one_edge_whichever_way_it_is_said():
    a, b = make_entity("Pastelio", "software"), make_entity("Brushwerk", "software")
    state(a, "is an alternative to", b)
    state(b, "competes with", a)
    assert Edge.objects.count() == 1
    assert Edge.objects.get().fact_count == 2
    assert Relation.objects.get(name="alternative_to").symmetric


def test_retracting_a_fact_removes_its_edge_and_keeps_the_others():
    app, lib, db = (
        make_entity("Ledgerly", "software"),
        make_entity("Quillpack", "library"),
        make_entity("Tallybase", "database"),
    )
    first = state(app, "uses", lib)
    state(app, "uses", db)
    fact_update(fact=first, actor=None, status=Fact.Status.RETRACTED)
    assert edges() == {("Ledgerly", "uses", "Tallybase", 1.0)}
    assert not EdgeFact.objects.filter(fact_id=first.pk).exists()


def test_superseding_weakens_an_edge_other_facts_still_support():
    app, lib = make_entity("Ledgerly", "software"), make_entity("Quillpack", "library")
    old = state(app, "depends on", lib, confidence=0.4)
    state(app, "needs", lib, confidence=0.9)
    fact_status_set(fact=old, status=Fact.Status.SUPERSEDED, valid_to=None)
    assert edges() == {("Ledgerly", "depends_on", "Quillpack", 0.9)}


def test_deleting_a_fact_and_editing_its_predicate_move_the_support():
    app, lib = make_entity("Ledgerly", "software"), make_entity("Quillpack", "library")
    fact = state(app, "uses", lib)
    fact_update(fact=fact, actor=None, predicate="extends")
    assert edges() == {("Ledgerly", "extends", "Quillpack", 1.0)}
    fact_delete(fact=Fact.objects.get(pk=fact.pk), actor=None)
    assert edges() == set()


def test_an_unknown_predicate_keeps_its_edge_under_a_new_relation():
    a, b = make_entity("Ada Quint", "person"), make_entity("Ben Rook", "person")
    state(a, "mentors", b)
    assert edges() == {("Ada Quint", "mentor", "Ben Rook", 1.0)}
    assert not Relation.objects.get(name="mentor").builtin


def test_a_merge_moves_edges_and_joins_duplicates_and_undo_splits_them_again(curator):
    app, lib, copy = (
        make_entity("Ledgerly", "software"),
        make_entity("Quillpack", "library"),
        make_entity("Quill Pack", "library"),
    )
    state(app, "uses", lib)
    state(app, "uses", copy)
    merge = entity_merge(survivor=lib, duplicates=[copy], actor=curator).merge
    assert edges() == {("Ledgerly", "uses", "Quillpack", 2.0)}
    entity_merge_undo(merge=merge, actor=curator)
    assert edges() == {
        ("Ledgerly", "uses", "Quillpack", 1.0),
        ("Ledgerly", "uses", "Quill Pack", 1.0),
    }


def test_a_confirmation_raises_the_weight_of_the_edge_its_fact_supports():
    app, lib = make_entity("Ledgerly", "software"), make_entity("Quillpack", "library")
    fact = state(app, "depends on", lib, confidence=0.5)
    state(app, "depends on", lib, text=fact.text, confidence=1.0)
    fact.refresh_from_db()
    assert fact.confidence == 0.75
    assert edges() == {("Ledgerly", "depends_on", "Quillpack", 0.75)}
