"""Edges as a function of the facts, and what each reader's scope lets through.

The rule behind ``edges.py``: an edge exists exactly while an active fact with a
subject, a predicate and another entity as object supports it, and weighs the sum of
those facts' confidences. Kept up to date fact by fact (the hook), it must equal a
rebuild from scratch, whatever happened in between (Hypothesis).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from entities.graph import visibility
from entities.graph.edges import edges_rebuild, fact_saved_edges, relations_seed
from entities.graph.models import Edge, EdgeFact, Relation
from entities.graph.relations import SPECS
from entities.graph.visibility import (
    edge_fact_ids,
    edge_support,
    fact_ids_visible,
    supports_visible,
)
from entities.models import Entity, Fact
from entities.scopes import ScopeFilter
from entities.services import entity_merge, entity_merge_undo, fact_store, fact_update
from kgsite.text import normalize

from .conftest import make_entity, state


def edge_table() -> set[tuple]:
    return {
        (e.head_id, e.relation.name, e.tail_id, round(e.weight, 6), e.fact_count)
        for e in Edge.objects.select_related("relation")
    }


# --- the hook equals a rebuild ------------------------------------------------------------

PREDICATES = ("uses", "is used by", "competes with", "depends on", "mentors", "")
op = st.one_of(
    st.tuples(
        st.just("add"),
        st.integers(0, 3),
        st.integers(0, 3),
        st.sampled_from(PREDICATES),
        st.sampled_from([0.25, 0.5, 1.0]),
    ),
    st.tuples(st.just("status"), st.integers(0, 20), st.sampled_from(["retracted", "active"])),
    st.tuples(st.just("predicate"), st.integers(0, 20), st.sampled_from(PREDICATES)),
    st.tuples(st.just("delete"), st.integers(0, 20)),
)


class EdgesFollowFacts(TestCase):
    @given(st.lists(op, min_size=1, max_size=10))
    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    def test_the_hooks_state_is_a_rebuild_and_weights_sum_active_confidences(self, ops):
        names = ("Arvo", "Brisk", "Cindle", "Dovetail")
        entities = [
            Entity.objects.create(canonical_name=n, name_norm=normalize(n), type="software")
            for n in names
        ]
        facts: list[int] = []
        for step in ops:
            if step[0] == "add":
                _kind, s, o, predicate, confidence = step
                fact = Fact.objects.create(
                    text=f"fact {len(facts)}",
                    text_norm=f"fact {len(facts)}",
                    subject=entities[s],
                    predicate=predicate,
                    object_entity=entities[o],
                    confidence=confidence,
                )
                facts.append(fact.pk)
                fact_saved_edges(fact.pk, "created")
            elif facts:
                pk = facts[step[1] % len(facts)]
                if step[0] == "status":
                    Fact.objects.filter(pk=pk).update(status=step[2])
                elif step[0] == "predicate":
                    Fact.objects.filter(pk=pk).update(predicate=step[2])
                else:
                    Fact.objects.filter(pk=pk).delete()
                fact_saved_edges(pk, "updated")
        incremental = edge_table()
        for edge in Edge.objects.all():
            assert edge.head_id != edge.tail_id
            supports = EdgeFact.objects.filter(edge=edge).values("fact_id")
            active = list(
                Fact.objects.filter(pk__in=supports, status="active").values_list(
                    "confidence", flat=True
                )
            )
            assert active, "an edge without an active fact"
            assert round(edge.weight, 6) == round(sum(active), 6)
            assert edge.fact_count == len(active)
        edges_rebuild()
        assert edge_table() == incremental


# --- status changes through the services ----------------------------------------------------


@pytest.fixture
def pair(db):
    return make_entity("Ledgerly", "software"), make_entity("Quillpack", "library")


@pytest.mark.parametrize("status", ["retracted", "superseded"])
def test_a_fact_leaving_the_active_state_leaves_the_graph_and_comes_back_with_it(
    pair, status, django_capture_on_commit_callbacks
):
    app, lib = pair
    with django_capture_on_commit_callbacks(execute=True):
        fact = state(app, "uses", lib, confidence=0.75)
    before = edge_table()
    assert len(before) == 1
    with django_capture_on_commit_callbacks(execute=True):
        fact_update(fact=fact, actor=None, status=status)
    assert edge_table() == set() and not EdgeFact.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        fact_update(fact=fact, actor=None, status="active")
    assert {row[1:] for row in edge_table()} == {row[1:] for row in before}


def test_a_fact_about_one_entity_or_a_value_makes_no_edge(pair, django_capture_on_commit_callbacks):
    app, lib = pair
    with django_capture_on_commit_callbacks(execute=True):
        state(app, "is compared with", app)
        fact_value = fact_store(
            text="Quillpack is written in B", subject=lib, predicate="written_in", object_value="B"
        ).fact
        fact_update(fact=fact_value, actor=None, object_value="C")
    assert not Edge.objects.exists()


def test_merging_the_two_ends_of_an_edge_drops_it_and_undo_brings_it_back(
    pair, curator, django_capture_on_commit_callbacks
):
    app, lib = pair
    with django_capture_on_commit_callbacks(execute=True):
        state(app, "uses", lib)
    before = edge_table()
    with django_capture_on_commit_callbacks(execute=True):
        merge = entity_merge(
            survivor=app, duplicates=[lib], actor=curator, allow_cross_type=True
        ).merge
    assert not Edge.objects.exists()  # "Ledgerly uses Ledgerly" relates nothing
    with django_capture_on_commit_callbacks(execute=True):
        entity_merge_undo(merge=merge, actor=curator)
    assert {row[1:] for row in edge_table()} == {row[1:] for row in before}
    assert Edge.objects.get().head_id == app.pk


@pytest.mark.django_db
def test_seeding_the_default_relations_is_idempotent():
    Relation.objects.filter(name__in=["married_to", "part_of"]).delete()
    assert relations_seed() == 2
    assert relations_seed() == 0
    assert Relation.objects.filter(name__in=SPECS).count() == len(SPECS)
    assert Relation.objects.get(name="married_to").symmetric
    part_of = Relation.objects.get(name="part_of")
    assert (part_of.inverse, part_of.builtin) == ("contains", True)


# --- visibility -----------------------------------------------------------------------------


@pytest.fixture
def scoped_edge(pair):
    """One edge, supported by a global fact (0.5), an alpha fact (0.25), a beta fact (1)."""
    app, lib = pair
    facts = {
        scope: state(app, "uses", lib, confidence=c, scope=scope)
        for scope, c in (("", 0.5), ("alpha", 0.25), ("beta", 1.0))
    }
    edges_rebuild()
    return Edge.objects.get(), facts


READERS = [
    (ScopeFilter(), ("",), 0.5),
    (ScopeFilter(scope="alpha"), ("", "alpha"), 0.75),
    (ScopeFilter(scope="beta"), ("", "beta"), 1.5),
    (ScopeFilter(scope="gamma"), ("",), 0.5),
    (ScopeFilter(all_scopes=True), ("", "alpha", "beta"), 1.75),
]


@pytest.mark.parametrize("batch", [1, visibility.BATCH])
@pytest.mark.parametrize(("reader", "seen", "weight"), READERS, ids=repr)
def test_an_edge_weighs_only_the_facts_its_reader_sees(
    scoped_edge, reader, seen, weight, batch, monkeypatch
):
    monkeypatch.setattr(visibility, "BATCH", batch)  # one id per query: the same answer
    edge, facts = scoped_edge
    assert edge.weight == 1.75 and edge.fact_count == 3  # the stored edge counts them all
    assert edge_support(reader, [edge.pk]) == {edge.pk: (weight, len(seen))}
    assert edge_fact_ids(reader, [edge.pk]) == {edge.pk: sorted(facts[s].pk for s in seen)}


def test_an_edge_only_another_project_supports_is_absent_for_the_reader(scoped_edge):
    edge, facts = scoped_edge
    Fact.objects.filter(pk__in=[facts[""].pk, facts["alpha"].pk]).delete()
    edges_rebuild()
    [edge] = Edge.objects.all()
    assert edge_support(ScopeFilter(scope="alpha"), [edge.pk]) == {}
    assert edge_fact_ids(ScopeFilter(), [edge.pk]) == {}


def test_visible_fact_ids_keep_their_order_and_drop_what_is_not_a_fact_id(scoped_edge):
    _edge, facts = scoped_edge
    g, a, b = facts[""].pk, facts["alpha"].pk, facts["beta"].pk
    asked = [b, a, True, "7", g, a, 10**9]
    assert fact_ids_visible(ScopeFilter(scope="alpha"), asked) == [a, g, a]
    assert fact_ids_visible(ScopeFilter(all_scopes=True), [b, g]) == [b, g]
    rows = [("x", a), ("y", b), ("z", g)]
    assert supports_visible(ScopeFilter(), rows) == [("z", g)]
