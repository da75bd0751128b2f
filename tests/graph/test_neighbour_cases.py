"""Neighbours, the entity graph and PageRank at their edges: the empty graph, a lone
entity, a fact about itself, the same triple stated twice, a deleted fact, Unicode
names, and what the REST API answers for parameters out of range."""

from __future__ import annotations

import unicodedata

import pytest

from entities import services
from entities.graph.edges import edges_rebuild
from entities.graph.models import Edge
from entities.graph.ppr import neighbors, ppr_retrieve
from entities.graph.selectors import entity_graph

from .conftest import make_entity, state

pytestmark = pytest.mark.django_db


def labels(rows: list[dict]) -> list[str]:
    return [r["label"] for r in rows]


# --- nearest first ----------------------------------------------------------------------


@pytest.fixture
def lopsided():
    """Sorrel uses Alder once, lightly; Sorrel uses Birch five times and Birch uses Cedar
    five times: Cedar is two links away but on the heavy side of the walk."""
    sorrel, alder, birch, cedar = (
        make_entity(n, "plant") for n in ("Sorrel", "Alder", "Birch", "Cedar")
    )
    state(sorrel, "uses", alder, confidence=0.1)
    for i in range(5):
        state(sorrel, "uses", birch, text=f"Sorrel uses Birch in bed {i}")
        state(birch, "uses", cedar, text=f"Birch uses Cedar in bed {i}")
    edges_rebuild()
    return {"sorrel": sorrel, "alder": alder, "birch": birch, "cedar": cedar}


def test_neighbours_are_listed_nearest_first_even_when_farther_ones_score_higher(lopsided):
    rows = neighbors(entity_id=lopsided["sorrel"].pk, hops=2, k=10)
    assert labels(rows) == ["Birch", "Alder", "Cedar"]
    assert [r["hops"] for r in rows] == [1, 1, 2]
    # Within one distance, PageRank decides: the heavy edge first.
    assert rows[0]["score"] > rows[1]["score"]


def test_a_small_k_keeps_the_nearest_neighbours_not_the_highest_scores(lopsided):
    rows = neighbors(entity_id=lopsided["sorrel"].pk, hops=2, k=2)
    assert labels(rows) == ["Birch", "Alder"]


def test_the_neighbours_endpoint_and_mcp_order_agree(api, lopsided):
    body = api.get(f"/api/v1/graph/neighbors/{lopsided['sorrel'].pk}", {"hops": 2}).json()
    assert labels(body["neighbors"]) == ["Birch", "Alder", "Cedar"]
    assert body["neighbors"][2]["path"][0]["label"] == "Sorrel"
    assert [step["to"]["label"] for step in body["neighbors"][2]["path"][1:]] == [
        "Birch",
        "Cedar",
    ]


# --- degenerate graphs ----------------------------------------------------------------------


def test_a_lone_entity_has_no_neighbours_and_a_graph_of_itself(api):
    lone = make_entity("Quillon", "tool")
    assert neighbors(entity_id=lone.pk, hops=3, k=100) == []
    graph = api.get(f"/api/v1/graph/entity/{lone.pk}", {"depth": 3}).json()
    assert graph["root"] == lone.pk
    assert [n["label"] for n in graph["nodes"]] == ["Quillon"] and graph["edges"] == []
    assert graph["nodes"][0]["importance"] == 0.0
    body = api.post("/api/v1/graph/ppr", {"query_entities": ["Quillon"]}, format="json").json()
    assert [s["canonical_name"] for s in body["seeds"]] == ["Quillon"]
    assert body["facts"] == [] and body["entities"] == []


def test_a_fact_relating_an_entity_to_itself_makes_no_edge_but_is_still_its_fact():
    ouro = make_entity("Ouroboros", "symbol")
    fact = state(ouro, "depends on", ouro)
    edges_rebuild()
    assert Edge.objects.count() == 0
    assert neighbors(entity_id=ouro.pk, hops=2, k=10) == []
    graph = entity_graph(entity_id=ouro.pk, depth=2)
    assert graph["edges"] == [] and graph["nodes"][0]["fact_count"] == 1
    ranked = ppr_retrieve(query_entities=["Ouroboros"], k=5)
    assert [r["id"] for r in ranked["facts"]] == [fact.pk]
    assert ranked["facts"][0]["hops"] == 1


def test_the_same_triple_stated_twice_is_one_edge_weighing_both_facts(api):
    a, b = make_entity("Larkspur", "service"), make_entity("Tamarisk", "database")
    first = state(a, "uses", b, text="Larkspur uses Tamarisk for orders")
    second = state(a, "uses", b, text="Larkspur uses Tamarisk for invoices", confidence=0.5)
    edges_rebuild()
    graph = api.get(f"/api/v1/graph/entity/{a.pk}").json()
    assert len(graph["edges"]) == 1
    assert graph["edges"][0]["weight"] == pytest.approx(1.5)
    assert graph["edges"][0]["fact_ids"] == sorted([first.pk, second.pk])
    assert labels(neighbors(entity_id=a.pk, k=5)) == ["Tamarisk"]


def test_deleting_the_facts_of_an_edge_removes_it_from_graph_neighbours_and_pagerank(
    api, curator, django_capture_on_commit_callbacks
):
    a, b = make_entity("Larkspur", "service"), make_entity("Tamarisk", "database")
    with django_capture_on_commit_callbacks(execute=True):
        first = state(a, "uses", b, text="Larkspur uses Tamarisk for orders")
        second = state(a, "uses", b, text="Larkspur uses Tamarisk for invoices")
    with django_capture_on_commit_callbacks(execute=True):
        services.fact_delete(fact=first, actor=curator)
    graph = api.get(f"/api/v1/graph/entity/{a.pk}").json()
    assert [e["fact_ids"] for e in graph["edges"]] == [[second.pk]]
    assert graph["edges"][0]["weight"] == pytest.approx(1.0)
    with django_capture_on_commit_callbacks(execute=True):
        services.fact_delete(fact=second, actor=curator)
    assert api.get(f"/api/v1/graph/entity/{a.pk}").json()["edges"] == []
    assert neighbors(entity_id=a.pk, hops=2, k=10) == []
    ranked = api.post("/api/v1/graph/ppr", {"query_entities": [a.pk]}, format="json").json()
    assert ranked["facts"] == [] and ranked["entities"] == []


def test_an_empty_store_answers_every_graph_read_without_error(api):
    assert api.get("/api/v1/graph/neighbors/e_missing").status_code == 404
    assert api.get("/api/v1/graph/entity/e_missing").status_code == 404
    body = api.post("/api/v1/graph/ppr", {"query_entities": ["Nobody"]}, format="json").json()
    assert body == {"seeds": [], "unknown": ["Nobody"], "facts": [], "chunks": [], "entities": []}


# --- names as a user types them ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "typed"),
    [
        ("Straße Süd", "STRASSE SÜD"),
        ("Café Lumière", unicodedata.normalize("NFD", "café lumière")),
        ("İzmir Kışla", "IZMIR KIŞLA"),
        ("Ὀδυσσεύς", "ὈΔΥΣΣΕΎΣ"),
    ],
)
def test_pagerank_starts_from_a_name_in_any_case_or_unicode_form(stored, typed):
    seed, other = make_entity(stored, "place"), make_entity("Harbourline", "company")
    fact = state(other, "located in", seed)
    edges_rebuild()
    ranked = ppr_retrieve(query_entities=[typed], k=5)
    assert [s["id"] for s in ranked["seeds"]] == [seed.pk]
    assert [r["id"] for r in ranked["facts"]] == [fact.pk]
    assert labels(ranked["entities"]) == ["Harbourline"]


def test_the_same_entity_named_twice_is_one_seed():
    seed = make_entity("Larkspur", "service")
    ranked = ppr_retrieve(query_entities=["Larkspur", "LARKSPUR", seed.pk], k=5)
    assert [s["id"] for s in ranked["seeds"]] == [seed.pk]


def test_names_that_match_no_entity_are_listed_as_unknown_not_guessed(api):
    seed = make_entity("Larkspur", "service")
    make_entity("Larkspurr", "service")  # one letter away: a lookup would only suggest it
    response = api.post(
        "/api/v1/graph/ppr",
        {"query_entities": ["Larkspur", "Larksp", "Nowhere Inn", "Larksp"]},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert [s["id"] for s in body["seeds"]] == [seed.pk]
    assert body["unknown"] == ["Larksp", "Nowhere Inn"]
    only_unknown = ppr_retrieve(query_entities=["Nowhere Inn"], k=5)
    assert only_unknown["seeds"] == [] and only_unknown["unknown"] == ["Nowhere Inn"]
    assert only_unknown["facts"] == only_unknown["entities"] == []


# --- the REST API's answers to bad parameters ------------------------------------------------


@pytest.fixture
def pair():
    a, b = make_entity("Larkspur", "service"), make_entity("Tamarisk", "database")
    state(a, "uses", b)
    edges_rebuild()
    return a


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"hops": 0}, "hops"),
        ({"hops": 4}, "hops"),
        ({"hops": "two"}, "hops"),
        ({"hops": "1.5"}, "hops"),
        ({"k": 0}, "k"),
        ({"k": -3}, "k"),
        ({"k": 10**12}, "k"),
        ({"k": "ten"}, "k"),
        ({"scope": "x" * 200}, "scope"),
    ],
)
def test_neighbours_with_bad_parameters_are_400_naming_the_field(api, pair, params, field):
    response = api.get(f"/api/v1/graph/neighbors/{pair.pk}", params)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": "deep"}, "depth"),
        ({"max_nodes": -1}, "max_nodes"),
        ({"max_nodes": 501}, "max_nodes"),
        ({"min_weight": -0.5}, "min_weight"),
        ({"min_weight": "heavy"}, "min_weight"),
        ({"types": "tech\x01nology"}, "types"),
    ],
)
def test_the_entity_graph_with_bad_parameters_is_400_naming_the_field(api, pair, params, field):
    response = api.get(f"/api/v1/graph/entity/{pair.pk}", params)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"query_entities": "Larkspur"}, "query_entities"),
        ({"query_entities": [""]}, "query_entities"),
        ({"query_entities": [f"e{i}" for i in range(21)]}, "query_entities"),
        ({"query_entities": ["Larkspur"], "hops": 0}, "hops"),
        ({"query_entities": ["Larkspur"], "k": 101}, "k"),
        ({"query_entities": ["Larkspur"], "k": "many"}, "k"),
        ({"query_entities": ["Larkspur"], "damping": 0}, "damping"),
        ({"query": "   "}, "query"),
    ],
)
def test_pagerank_with_bad_parameters_is_400_naming_the_field(api, pair, payload, field):
    response = api.post("/api/v1/graph/ppr", payload, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"].split(".")[0] == field


def test_the_largest_k_and_hops_allowed_answer_everything_reachable(api, pair):
    body = api.get(f"/api/v1/graph/neighbors/{pair.pk}", {"hops": 3, "k": 100}).json()
    assert labels(body["neighbors"]) == ["Tamarisk"]
    graph = api.get(f"/api/v1/graph/entity/{pair.pk}", {"depth": 3, "max_nodes": 500}).json()
    assert sorted(n["label"] for n in graph["nodes"]) == ["Larkspur", "Tamarisk"]


def test_a_name_of_two_types_is_a_409_listing_both(api, pair):
    make_entity("Larkspur", "plant")
    response = api.post("/api/v1/graph/ppr", {"query_entities": ["larkspur"]}, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["field"] == "query_entities.0"
    assert "larkspur" in error["message"] and "several types" in error["message"]
    assert sorted(c["type"] for c in response.json()["error"]["candidates"]) == [
        "plant",
        "service",
    ]
