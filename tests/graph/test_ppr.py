"""Personalized PageRank over entities, facts and book chunks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from entities import hooks
from entities.graph.edges import edges_rebuild
from entities.graph.ppr import pagerank, ppr_rank

from .conftest import make_entity, state

pytestmark = pytest.mark.django_db


def test_the_sparse_solve_matches_the_power_iteration_it_replaces():
    rng = np.random.default_rng(5)
    dense = (rng.random((30, 30)) < 0.15) * rng.random((30, 30))
    matrix = sparse.csr_matrix(dense + dense.T)
    restart = np.zeros(30)
    restart[[2, 7]] = 0.5
    scores = pagerank(matrix, restart, 0.5)
    degree = np.asarray(matrix.sum(0)).ravel()
    walk = matrix.toarray() / np.where(degree > 0, degree, 1)
    x = restart.copy()
    for _ in range(200):
        x = 0.5 * restart + 0.5 * walk @ x
    assert np.allclose(scores, x, atol=1e-9)


@pytest.fixture
def chain():
    """Ledgerly -uses-> Quillpack -depends on-> Inkstone; far away: Orbitra -uses-> Zephyl."""
    ledgerly, quill, ink = (
        make_entity("Ledgerly", "software"),
        make_entity("Quillpack", "library"),
        make_entity("Inkstone", "library"),
    )
    orbitra, zephyl = make_entity("Orbitra", "software"), make_entity("Zephyl", "library")
    facts = {
        "one_hop": state(ledgerly, "uses", quill),
        "two_hop": state(quill, "depends on", ink),
        "unrelated": state(orbitra, "uses", zephyl),
    }
    edges_rebuild()
    return {"seed": ledgerly, "ink": ink, "facts": facts}


def test_a_two_hop_fact_ranks_above_an_unrelated_one_with_its_path(chain):
    result = ppr_rank(seeds=[chain["seed"].pk], k=10)
    ranked = [row["id"] for row in result["facts"]]
    facts = chain["facts"]
    assert ranked.index(facts["one_hop"].pk) < ranked.index(facts["two_hop"].pk)
    assert facts["unrelated"].pk not in ranked
    two_hop = next(r for r in result["facts"] if r["id"] == facts["two_hop"].pk)
    labels = [two_hop["path"][0]["label"], *[step["to"]["label"] for step in two_hop["path"][1:]]]
    assert labels == ["Ledgerly", "Quillpack", "Quillpack depends on Inkstone"]
    assert two_hop["path"][1]["via"] == "uses"


def test_chunks_offered_through_the_hook_are_ranked_too(chain):
    def passages(entity_ids, per_entity):
        return (
            [(901, chain["ink"].pk, 1.0, "Field guide #3")] if chain["ink"].pk in entity_ids else []
        )

    hooks.passage_links(passages)
    try:
        result = ppr_rank(seeds=[chain["seed"].pk], k=5)
    finally:
        hooks._passage_links.remove(passages)
    [chunk] = result["chunks"]
    assert chunk["id"] == 901
    assert chunk["label"] == "Field guide #3"
    assert chunk["path"][-1]["via"] == "mentioned in"


def test_the_ppr_endpoint_resolves_names_and_free_text(api, chain):
    by_name = api.post("/api/v1/graph/ppr", {"query_entities": ["ledgerly"], "k": 3}, format="json")
    assert by_name.status_code == 200
    assert [s["canonical_name"] for s in by_name.json()["seeds"]] == ["Ledgerly"]
    by_text = api.post(
        "/api/v1/graph/ppr", {"query": "What does Ledgerly rely on?", "k": 3}, format="json"
    ).json()
    assert by_text["facts"][0]["id"] == chain["facts"]["one_hop"].pk


def test_an_empty_graph_answers_empty_lists(api, db):
    body = api.post("/api/v1/graph/ppr", {"query": "nothing known here", "k": 5}, format="json")
    assert body.status_code == 200
    empty = {"seeds": [], "unknown": [], "facts": [], "chunks": [], "entities": []}
    assert body.json() == empty


def test_neighbors_are_ranked_and_limited(api, chain):
    body = api.get(f"/api/v1/graph/neighbors/{chain['seed'].pk}", {"hops": 2, "k": 5}).json()
    names = [n["label"] for n in body["neighbors"]]
    assert names == ["Quillpack", "Inkstone"]
    one = api.get(f"/api/v1/graph/neighbors/{chain['seed'].pk}", {"hops": 1}).json()
    assert [n["label"] for n in one["neighbors"]] == ["Quillpack"]
    assert api.get(f"/api/v1/graph/neighbors/{chain['seed'].pk}", {"k": 0}).status_code == 400
    assert api.get("/api/v1/graph/neighbors/nope").status_code == 404


def _documented_id_type(schema: dict, response: str, field: str) -> str:
    components = schema["components"]["schemas"]
    ref = components[response]["properties"][field]["items"]["$ref"]
    return components[ref.rsplit("/", 1)[1]]["properties"]["id"]["type"]


def test_the_walks_ids_have_the_types_the_schema_documents(api, chain):
    """A fact's and a chunk's id is a number, an entity's a string: the schema said
    string for all three, so a client generated from it refused the facts' ids."""
    body = api.post(
        "/api/v1/graph/ppr", {"query_entities": ["Ledgerly"], "hops": 2}, format="json"
    ).json()
    assert body["facts"] and body["entities"]
    schema = api.get("/api/schema/", {"format": "json"}).json()
    python_type = {"integer": int, "string": str}
    for field in ("facts", "chunks", "entities"):
        documented = python_type[_documented_id_type(schema, "PPRResponse", field)]
        assert all(type(row["id"]) is documented for row in body[field]), field
    assert _documented_id_type(schema, "PPRResponse", "chunks") == "integer"
    neighbours = api.get(f"/api/v1/graph/neighbors/{chain['seed'].pk}").json()["neighbors"]
    assert _documented_id_type(schema, "NeighborsResponse", "neighbors") == "string"
    assert neighbours and all(isinstance(row["id"], str) for row in neighbours)
