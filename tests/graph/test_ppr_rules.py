"""Personalized PageRank's ranking properties and the predicate → relation rules, over
generated graphs and wordings (Hypothesis), then on small stored worlds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy import sparse

from entities.graph import ppr
from entities.graph.edges import edges_rebuild
from entities.graph.ppr import neighbors, pagerank, ppr_rank, walk_graph
from entities.graph.relations import DEFAULT_RELATIONS, MAX_RELATION_LENGTH, predicate_resolve
from entities.models import Fact
from entities.scopes import ScopeFilter

from .conftest import make_entity, state

NO_FIXTURE_CHECK = [HealthCheck.function_scoped_fixture]

# --- pagerank on generated graphs -----------------------------------------------------------

links = st.lists(
    st.tuples(st.integers(0, 11), st.integers(0, 11), st.floats(0.1, 5.0)),
    min_size=1,
    max_size=30,
)


def matrix_of(rows, n=12) -> sparse.csr_matrix:
    dense = np.zeros((n, n))
    for i, j, w in rows:
        if i != j:
            dense[i, j] += w
            dense[j, i] += w
    return sparse.csr_matrix(dense)


def reachable(matrix, seed: int) -> set[int]:
    seen, frontier = {seed}, [seed]
    while frontier:
        node = frontier.pop()
        for other in matrix[node].indices:
            if other not in seen:
                seen.add(int(other))
                frontier.append(int(other))
    return seen


@given(links, st.integers(0, 11), st.sampled_from([0.3, 0.5, 0.85]))
@settings(max_examples=60, deadline=None, suppress_health_check=NO_FIXTURE_CHECK)
def test_the_seed_ranks_first_and_what_it_cannot_reach_scores_zero(rows, seed, damping):
    matrix = matrix_of(rows)
    restart = np.zeros(12)
    restart[seed] = 1.0
    scores = pagerank(matrix, restart, damping)
    assert (scores >= -1e-12).all()
    near = reachable(matrix, seed)
    for node in range(12):
        if node not in near:
            assert abs(scores[node]) < 1e-12
        elif node != seed and damping <= 0.5:
            # The seed keeps at least 1 - damping >= 1/2 of a unit mass (HippoRAG's 0.5);
            # with a higher damping a hub may outrank it.
            assert scores[node] < scores[seed]
    if len(near) > 1:  # no mass leaks out of a connected neighbourhood
        assert abs(scores.sum() - 1.0) < 1e-9


@given(links, st.integers(0, 11))
@settings(max_examples=40, deadline=None, suppress_health_check=NO_FIXTURE_CHECK)
def test_two_seeds_share_the_restart_and_scores_add_up(rows, other):
    """Linearity: the scores for two seeds are the mean of each seed's scores."""
    matrix = matrix_of(rows)

    def from_(*seeds):
        restart = np.zeros(12)
        restart[list(seeds)] = 1.0 / len(seeds)
        return pagerank(matrix, restart, 0.5)

    if other != 0:
        assert np.allclose(from_(0, other), (from_(0) + from_(other)) / 2, atol=1e-12)


# --- on stored worlds -----------------------------------------------------------------------


@pytest.fixture
def line(db):
    """A - B - C - D in a line (uses), and E - F apart; each link is one active fact."""
    names = ("Arvo", "Brisk", "Cindle", "Dovetail", "Ember", "Fallow")
    e = {n: make_entity(n, "software") for n in names}
    facts = {
        "ab": state(e["Arvo"], "uses", e["Brisk"]),
        "bc": state(e["Brisk"], "uses", e["Cindle"]),
        "cd": state(e["Cindle"], "uses", e["Dovetail"]),
        "ef": state(e["Ember"], "uses", e["Fallow"]),
    }
    edges_rebuild()
    return {"e": e, "facts": facts}


@pytest.mark.parametrize("batch", [1, ppr._IN_BATCH])
def test_facts_rank_by_distance_from_the_seed_and_the_unrelated_never_appear(
    line, batch, monkeypatch
):
    monkeypatch.setattr(ppr, "_IN_BATCH", batch)  # one id per query: the same ranking
    facts = line["facts"]
    result = ppr_rank(seeds=[line["e"]["Arvo"].pk], k=10, hops=3)
    ranked = [row["id"] for row in result["facts"]]
    assert ranked == [facts["ab"].pk, facts["bc"].pk, facts["cd"].pk]
    scores = [row["score"] for row in result["facts"]]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0
    assert [row["hops"] for row in result["facts"]] == [1, 2, 3]
    assert "Arvo" not in [row["label"] for row in result["entities"]]


def test_hops_bound_the_neighbourhood_and_k_the_answer(line):
    seed = line["e"]["Arvo"].pk
    assert [n["label"] for n in neighbors(entity_id=seed, hops=1)] == ["Brisk"]
    assert [n["label"] for n in neighbors(entity_id=seed, hops=3)] == [
        "Brisk",
        "Cindle",
        "Dovetail",
    ]
    assert len(ppr_rank(seeds=[seed], k=1, hops=3)["facts"]) == 1


def test_a_retracted_fact_cuts_the_walk(line, django_capture_on_commit_callbacks):
    from entities.services import fact_update

    with django_capture_on_commit_callbacks(execute=True):
        fact_update(fact=line["facts"]["bc"], actor=None, status="retracted")
    result = ppr_rank(seeds=[line["e"]["Arvo"].pk], k=10, hops=3)
    assert [row["id"] for row in result["facts"]] == [line["facts"]["ab"].pk]
    assert [row["label"] for row in result["entities"]] == ["Brisk"]


def test_another_projects_facts_are_no_part_of_the_walk(line):
    e = line["e"]
    hidden = state(e["Arvo"], "uses", e["Ember"], scope="beta")
    edges_rebuild()
    graph = walk_graph([e["Arvo"].pk], hops=3, scopes=ScopeFilter(scope="alpha"))
    assert f"f:{hidden.pk}" not in graph.index and f"e:{e['Ember'].pk}" not in graph.index
    beta = walk_graph([e["Arvo"].pk], hops=3, scopes=ScopeFilter(scope="beta"))
    assert f"f:{hidden.pk}" in beta.index and f"e:{e['Fallow'].pk}" in beta.index


def test_no_seed_ranks_nothing_and_a_lone_seed_ranks_only_its_facts(line):
    assert ppr_rank(seeds=[]) == {"facts": [], "chunks": [], "entities": []}
    lone = make_entity("Gossamer", "software")
    note = Fact.objects.create(text="Gossamer is small.", text_norm="gossamer is small.")
    note.entities.add(lone)
    result = ppr_rank(seeds=[lone.pk])
    assert [row["id"] for row in result["facts"]] == [note.pk]
    assert result["entities"] == []


# --- relations --------------------------------------------------------------------------------


SPECS_AND_WORDINGS = [
    (spec.name, wording, False) for spec in DEFAULT_RELATIONS for wording in spec.synonyms
] + [
    (spec.name, wording, True)
    for spec in DEFAULT_RELATIONS
    for wording in (spec.inverse, *spec.inverse_synonyms)
    if wording
]


@pytest.mark.parametrize(("relation", "wording", "flipped"), SPECS_AND_WORDINGS)
def test_every_listed_wording_lands_on_its_relation(relation, wording, flipped):
    for variant in (wording, wording.replace("_", " ").upper(), f"is {wording}"):
        resolved = predicate_resolve(variant)
        assert (resolved.name, resolved.flipped) == (relation, flipped), variant


def test_a_relations_own_name_is_itself_unflipped():
    for spec in DEFAULT_RELATIONS:
        resolved = predicate_resolve(spec.name)
        assert (resolved.name, resolved.flipped, resolved.spec) == (spec.name, False, spec)


@given(st.text(max_size=300))
@example("ink " * 40)  # cut at 128 characters right after a word: no trailing "_"
@settings(max_examples=100, deadline=None, suppress_health_check=NO_FIXTURE_CHECK)
def test_any_predicate_resolves_to_a_stable_storable_name_or_none(text):
    resolved = predicate_resolve(text)
    if resolved is None:
        return
    assert 0 < len(resolved.name) <= MAX_RELATION_LENGTH
    again = predicate_resolve(resolved.name)
    # The stored name, asked again, is the same relation the same way round.
    assert (again.name, again.flipped) == (resolved.name, False)
