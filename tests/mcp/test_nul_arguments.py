"""An MCP argument holding a NUL character is a tool error naming the argument (as the
client sent it, list items by index) on every database. On PostgreSQL, which refuses a
NUL in any text column, these tools failed with no message at all, and entity_store
stored a description with one on SQLite; now nothing is read or written."""

from __future__ import annotations

import pytest

from entities import services
from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from entities.models import Entity, Fact
from tests.recall.test_mcp import call

pytestmark = pytest.mark.django_db(transaction=True)

NUL = "Kuber\x00netes"
CALLS = [
    ("entity_get", {"name": NUL}, "name"),
    ("facts_list", {"entity": NUL}, "entity"),
    ("facts_list", {"ids": ["7", NUL]}, "ids.1"),
    ("facts_search", {"q": NUL}, "q"),
    ("fact_link", {"fact": NUL, "entities": ["Kubernetes"]}, "fact"),
    ("fact_store", {"text": "Pods restart", "entities": [NUL]}, "entities.0"),
    ("fact_store", {"text": NUL}, "text"),
    ("entity_store", {"name": "Nomad", "description": NUL}, "description"),
    ("entity_store", {"name": "Nomad", "aliases": ["ok", NUL]}, "aliases.1"),
    ("graph_neighbors", {"entity": NUL}, "entity"),
    ("get_entity_graph", {"entity": NUL}, "entity"),
    ("search_by_entities", {"entities": [NUL]}, "entities.0"),
    ("extract_entities", {"text": NUL}, "text"),
    ("ppr_retrieve", {"query_entities": [NUL]}, "query_entities.0"),
    ("validate_knowledge", {"subject": NUL, "predicate": "uses", "object": "b"}, "subject"),
    ("infer_relationship", {"head": NUL, "tail": "b"}, "head"),
    ("find_related_entities", {"entity": NUL, "relation": "uses"}, "entity"),
]


@pytest.fixture
def server(vector_dir):
    services.entity_store(name="Kubernetes", type="cloud")
    return mcp_server_build(ToolContext(scope="alpha"))


@pytest.mark.parametrize(("tool", "arguments", "field"), CALLS, ids=lambda v: str(v)[:24])
def test_a_nul_in_an_argument_is_a_tool_error_naming_it(server, tool, arguments, field):
    before = (list(Entity.objects.values_list("pk", "description")), Fact.objects.count())
    error, text = call(server, tool, arguments)
    assert (
        error and text == f"Error executing tool {tool}: {field}: {field} contains a NUL character"
    )
    assert (list(Entity.objects.values_list("pk", "description")), Fact.objects.count()) == before


def test_the_same_calls_without_the_nul_answer(server):
    error, body = call(server, "entity_get", {"name": "Kubernetes"})
    assert not error and body["entity"]["canonical_name"] == "Kubernetes"
    error, body = call(server, "extract_entities", {"text": "Kubernetes restarts pods"})
    assert not error and [e["canonical_name"] for e in body["entities"]] == ["Kubernetes"]
