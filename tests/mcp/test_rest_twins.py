"""MCP tools against their REST twins: the same bounds and the same answers for the
same question (docs/agents/mcp.md: "every argument is held to the same cap as its REST
field")."""

from __future__ import annotations

import pytest

from entities.graph.edges import edges_rebuild
from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from tests.graph.conftest import make_entity, state
from tests.recall.test_mcp import call

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(vector_dir):
    return mcp_server_build(ToolContext())


@pytest.fixture
def hub(vector_dir):
    """One entity stating a relation to 52 others: more facts than the smaller caps."""
    centre = make_entity("Hubble Works", "organisation")
    for i in range(52):
        state(make_entity(f"Staffer {i:02d}", "person"), "works for", centre)
    edges_rebuild()
    return centre


def test_ppr_retrieve_takes_the_rest_apis_largest_k(server, hub, api):
    asked = {"query_entities": ["Hubble Works"], "k": 100}
    error, walk = call(server, "ppr_retrieve", asked)
    rest = api.post("/api/v1/graph/ppr", asked, format="json")
    assert rest.status_code == 200
    assert not error, walk
    assert len(walk["facts"]) == 52
    assert walk["facts"] == rest.json()["facts"]
    error, text = call(server, "ppr_retrieve", {**asked, "k": 101})
    assert error and text.startswith("Error executing tool ppr_retrieve: k: ")
