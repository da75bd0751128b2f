"""A server started for project alpha never shows project beta: every tool is driven
with names and questions that reach beta's facts, and no answer may carry beta's
marker, its relation or one of its fact ids."""

from __future__ import annotations

import json

import pytest

from entities.mcp.server import TOOLS, WRITE_TOOLS, mcp_server_build
from entities.mcp.tools import ToolContext
from tests.graph.worlds import BETA_RELATION, MARKER, scoped_world_with_contradiction

from .test_mcp import call

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def world(vector_dir):
    from entities.graph import kge

    yield scoped_world_with_contradiction()
    kge.model_forget()


def calls(world) -> dict[str, dict]:
    shared, person = world["shared"].canonical_name, world["people"][""][0].canonical_name
    company = world["companies"][1].canonical_name
    return {
        "entity_get": {"name": shared},
        "facts_search": {"q": f"{shared} works for record", "k": 20},
        "facts_list": {"limit": 100},
        "search_by_entities": {"entities": [shared, company], "top_k": 20, "min_score": 0.0},
        "extract_entities": {"text": f"{shared} met {person} at {company}"},
        "notifications_digest": {},
        "recall_session_start": {},
        "recall_pre_check": {"action": f"move {shared} to {company} (record)"},
        "recall_unknown": {"text": f"where does {shared} work"},
        "recall_finding": {"text": f"{shared} works for Ostravel (record)"},
        "recall_domain": {"tool": "deploy", "arguments": {"target": shared}},
        "recall": {"query": f"{shared} {person} {company} record"},
        "validate_knowledge": {"subject": person, "predicate": "works for", "object": company},
        "infer_relationship": {"head": person, "tail": company, "top_k": 20},
        "find_related_entities": {"entity": shared, "relation": "works for", "top_k": 20},
        "get_entity_graph": {"entity": shared, "depth": 3, "max_nodes": 200},
        "ppr_retrieve": {"query_entities": [shared, person, company], "k": 50},
        "graph_neighbors": {"entity": shared, "hops": 3, "k": 100},
    }


def _fact_ids(node, key="") -> set[int]:
    found: set[int] = set()
    if isinstance(node, dict):
        if node.get("type") == "fact" and isinstance(node.get("id"), int):
            found.add(node["id"])
        if key in ("facts", "fact_texts", "results", "items") and isinstance(node.get("id"), int):
            found.add(node["id"])
        for k, v in node.items():
            found |= _fact_ids(v, k)
    elif isinstance(node, list):
        for v in node:
            if isinstance(v, int) and key in (
                "fact_ids",
                "facts",
                "supporting_facts",
                "contradicting_facts",
                "found_in_memories",
            ):
                found.add(v)
            found |= _fact_ids(v, key)
    return found


def test_every_read_tool_of_an_alpha_server_is_blind_to_beta(world):
    server = mcp_server_build(ToolContext(scope="alpha"))
    planned = calls(world)
    reads = set(TOOLS) - WRITE_TOOLS
    assert set(planned) == reads, reads ^ set(planned)
    for name, arguments in planned.items():
        error, body = call(server, name, arguments)
        assert not error, (name, body)
        text = json.dumps(body).lower()
        assert MARKER.lower() not in text, name
        assert not _fact_ids(body) & world["beta_ids"], name


def test_the_same_calls_with_all_scopes_do_reach_beta(world):
    """The check above can fail: opted into every project, beta shows."""
    server = mcp_server_build(ToolContext(scope="alpha"))
    shared = world["shared"].canonical_name
    error, graph = call(server, "get_entity_graph", {"entity": shared, "all_scopes": True})
    assert not error and BETA_RELATION[:-1] in {e["relation"] for e in graph["edges"]}
    error, every = call(server, "notifications_digest", {"all_scopes": True})
    error, own = call(server, "notifications_digest", {})
    assert every["high_count"] > own["high_count"]
    beta = mcp_server_build(ToolContext(scope="beta"))
    error, walk = call(beta, "ppr_retrieve", {"query_entities": [shared], "k": 50})
    assert {row["id"] for row in walk["facts"]} & world["beta_ids"]
