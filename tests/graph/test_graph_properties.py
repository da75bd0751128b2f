"""What any answer of the entity graph and of PageRank promises, on generated small
worlds of facts in two projects with every status (Hypothesis): an answer is closed
(edges between its nodes, paths from a seed to the row), bounded by the request, and
never shows a fact the reader may not see or that no longer holds."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from entities.graph.edges import edges_rebuild
from entities.graph.ppr import ppr_rank
from entities.graph.selectors import entity_graph
from entities.models import Entity, EntityFact, Fact
from entities.scopes import ScopeFilter
from kgsite.text import normalize

NAMES = ("Arvo", "Brisk", "Cindle", "Dovetail", "Ember", "Fallow")
fact_spec = st.tuples(
    st.integers(0, 5),
    st.integers(0, 5),
    st.sampled_from(("uses", "depends on", "competes with", "mentors")),
    st.sampled_from(("active", "active", "retracted", "superseded")),
    st.sampled_from(("", "", "alpha", "beta")),
    st.sampled_from((0.3, 0.6, 1.0)),
)
READERS = st.sampled_from([ScopeFilter(), ScopeFilter(scope="alpha"), ScopeFilter(all_scopes=True)])


def build(specs) -> list[Entity]:
    entities = [
        Entity.objects.create(canonical_name=n, name_norm=normalize(n), type="software")
        for n in NAMES
    ]
    for k, (s, o, predicate, status, scope, confidence) in enumerate(specs):
        fact = Fact.objects.create(
            text=f"fact {k}",
            text_norm=f"fact {k}",
            subject=entities[s],
            predicate=predicate,
            object_entity=entities[o],
            status=status,
            scope=scope,
            confidence=confidence,
        )
        EntityFact.objects.create(entity=entities[s], fact=fact, role="subject")
        if o != s:
            EntityFact.objects.create(entity=entities[o], fact=fact, role="object")
    edges_rebuild()
    return entities


def allowed(reader: ScopeFilter) -> set[int]:
    """The facts a reader may meet in an answer: active ones of a visible scope."""
    return {
        pk
        for pk, scope in Fact.objects.filter(status="active").values_list("pk", "scope")
        if reader.sees(scope)
    }


class GraphAnswers(TestCase):
    @given(
        st.lists(fact_spec, max_size=10),
        st.integers(0, 5),
        st.integers(1, 3),
        st.integers(1, 6),
        st.sampled_from([0.0, 0.5, 1.0]),
        READERS,
    )
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    def test_the_entity_graph_is_closed_bounded_and_scoped(
        self, specs, root, depth, max_nodes, min_weight, reader
    ):
        entities = build(specs)
        answer = entity_graph(
            entity_id=entities[root].pk,
            depth=depth,
            max_nodes=max_nodes,
            min_weight=min_weight,
            scopes=reader,
        )
        nodes = {n["id"]: n for n in answer["nodes"]}
        assert answer["root"] == entities[root].pk and nodes[answer["root"]]["depth"] == 0
        assert len(nodes) <= max_nodes
        assert all(0 <= n["depth"] <= depth for n in nodes.values())
        assert max((n["importance"] for n in nodes.values()), default=0) <= 1.0
        weights = [e["weight"] for e in answer["edges"]]
        assert weights == sorted(weights, reverse=True)
        visible = allowed(reader)
        for edge in answer["edges"]:
            assert edge["source"] in nodes and edge["target"] in nodes
            assert edge["weight"] >= min_weight and edge["fact_ids"]
            assert set(edge["fact_ids"]) <= visible
            confidences = Fact.objects.filter(pk__in=edge["fact_ids"]).values_list(
                "confidence", flat=True
            )
            assert abs(edge["weight"] - sum(confidences)) < 1e-3

    @given(
        st.lists(fact_spec, max_size=10),
        st.lists(st.integers(0, 5), min_size=1, max_size=2, unique=True),
        READERS,
    )
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    def test_pagerank_rows_are_visible_reached_from_a_seed_and_ranked(self, specs, seeds, reader):
        entities = build(specs)
        seed_ids = [entities[i].pk for i in seeds]
        answer = ppr_rank(seeds=seed_ids, k=5, hops=2, scopes=reader)
        visible = allowed(reader)
        assert {row["id"] for row in answer["facts"]} <= visible
        assert not {row["id"] for row in answer["entities"]} & set(seed_ids)
        for bucket in ("facts", "entities"):
            rows = answer[bucket]
            assert len(rows) <= 5
            scores = [row["score"] for row in rows]
            assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
            for row in rows:
                path = row["path"]
                assert path[0]["type"] == "entity" and path[0]["id"] in seed_ids
                assert path[-1]["to"]["id"] == row["id"]
                assert row["hops"] == len(path) - 1
                for step in path[1:]:
                    if step["to"]["type"] == "fact":
                        assert step["to"]["id"] in visible
