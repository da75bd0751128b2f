"""An entity id a merge took away, given to the graph's endpoints and tools: it stands
for the survivor, as its name (now the survivor's alias) does; an address naming it
says where it went (as GET /entities/<id>/ and the fact list do)."""

from __future__ import annotations

import pytest

from entities.graph.edges import edges_rebuild
from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from entities.services import entity_merge
from tests.graph.conftest import make_entity, state
from tests.recall.test_mcp import call


@pytest.fixture
def merged(curator):
    """Ada Byron works for Corvanta; a duplicate "A. Byron" was merged into her."""
    company = make_entity("Corvanta", "organisation")
    ada = make_entity("Ada Byron", "person")
    copy = make_entity("A. Byron", "person")
    fact = state(copy, "works for", company)
    entity_merge(survivor=ada, duplicates=[copy], actor=curator)
    edges_rebuild()
    return {"ada": ada, "old": copy.pk, "company": company, "fact": fact}


@pytest.mark.django_db
def test_validating_a_triple_by_a_merged_away_id_reads_the_survivors_facts(api, merged):
    by_old_id = api.post(
        "/api/v1/kge/validate",
        {"subject": merged["old"], "predicate": "works for", "object": "Corvanta"},
        format="json",
    ).json()
    by_name = api.post(
        "/api/v1/kge/validate",
        {"subject": "A. Byron", "predicate": "works for", "object": "Corvanta"},
        format="json",
    ).json()
    assert by_name["subject"]["id"] == merged["ada"].pk
    assert by_old_id == by_name
    assert by_old_id["supporting_facts"] == [merged["fact"].pk]
    assert by_old_id["reason"] == "no trained model"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/kge/infer-relation", {"head": "OLD", "tail": "Corvanta"}),
        ("/api/v1/kge/related", {"entity": "OLD", "relation": "works for"}),
    ],
)
def test_the_model_endpoints_resolve_a_merged_away_id_to_the_survivor(api, merged, path, body):
    body = {k: merged["old"] if v == "OLD" else v for k, v in body.items()}
    answer = api.post(path, body, format="json").json()
    named = answer.get("head") or answer.get("entity")
    assert named["id"] == merged["ada"].pk
    assert answer["reason"] == "no trained model"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/graph/entity/{}", "/api/v1/graph/neighbors/{}"])
def test_a_graph_address_with_a_merged_away_id_says_where_it_went(api, merged, path):
    response = api.get(path.format(merged["old"]))
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["field"] == "id"
    assert f"merged into '{merged['ada'].pk}'" in error["message"]


@pytest.mark.django_db(transaction=True)
def test_the_graph_tools_follow_a_merged_away_id(merged):
    server = mcp_server_build(ToolContext())
    error, near = call(server, "graph_neighbors", {"entity": merged["old"]})
    assert not error, near
    assert near["entity"]["id"] == merged["ada"].pk
    assert [n["label"] for n in near["neighbors"]] == ["Corvanta"]
    error, graph = call(server, "get_entity_graph", {"entity": merged["old"]})
    assert not error and graph["root"] == merged["ada"].pk
    error, walk = call(server, "ppr_retrieve", {"query_entities": [merged["old"]]})
    assert not error and walk["unknown"] == []
    assert [s["id"] for s in walk["seeds"]] == [merged["ada"].pk]


@pytest.mark.django_db
def test_the_graph_page_of_a_merged_away_id_opens_the_survivors(curator_client, merged):
    """As the entity page does: a bookmarked graph keeps working after a merge."""
    response = curator_client.get(f"/graph/entity/{merged['old']}/")
    assert response.status_code == 302
    assert response["Location"] == f"/graph/entity/{merged['ada'].pk}/"
    assert curator_client.get(response["Location"]).status_code == 200
    assert curator_client.get("/graph/entity/no-such-id/").status_code == 404
