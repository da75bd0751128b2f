"""What the MCP tools answer for bad arguments: a tool error of one line naming the
argument as the client sent it (snake_case), never a crash of the tool, and the same
limits and normalisation as the REST API. Unknown names answer "no entity"."""

from __future__ import annotations

import pytest

from entities.graph.edges import edges_rebuild
from entities.graph.services import kge_train
from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from entities.models import EntityFact, Fact
from tests.graph.conftest import make_entity, state
from tests.recall.test_mcp import call


@pytest.fixture
def server(vector_dir):
    return mcp_server_build(ToolContext(scope="alpha"))


# Checked before any row is read: the calls run in the SDK's worker thread, which sees
# the committed database only, so these need no transactional test.
BAD = [
    ("graph_neighbors", {"entity": "Kubernetes", "k": 0}, "k"),
    ("graph_neighbors", {"entity": "Kubernetes", "k": 101}, "k"),
    ("graph_neighbors", {"entity": "Kubernetes", "hops": 4}, "hops"),
    ("graph_neighbors", {"entity": ""}, "entity"),
    ("graph_neighbors", {"entity": "   "}, "entity"),
    ("get_entity_graph", {"entity": ""}, "entity"),
    ("ppr_retrieve", {"query": ""}, "query"),
    ("ppr_retrieve", {"query": "x", "k": 0}, "k"),
    ("ppr_retrieve", {"query": "x", "damping": 1.0}, "damping"),
    ("ppr_retrieve", {"query_entities": [""]}, "query_entities.0"),
    ("facts_list", {"limit": 0}, "limit"),
    # A blank type was taken as no filter; the REST field refuses it.
    (
        "find_related_entities",
        {"entity": "Pod", "relation": "runs on", "entity_type": " "},
        "entity_type",
    ),
    ("facts_list", {"limit": 101}, "limit"),
    ("facts_list", {"status": "gone"}, "status"),
    ("facts_list", {"kind": "gossip"}, "kind"),
    ("facts_list", {"ids": []}, "ids"),
    ("facts_list", {"ids": [True]}, "ids.0"),
    ("facts_list", {"ids": [5, False]}, "ids.1"),
    # A filter beside ids was ignored: every fact asked came back, retracted ones too.
    ("facts_list", {"ids": [5], "status": "active"}, "status"),
    ("facts_list", {"ids": [5], "kind": "goal"}, "kind"),
    ("facts_search", {"q": " "}, "q"),
    ("facts_search", {"q": "x", "k": 0}, "k"),
    ("facts_search", {"q": "x", "k": 10**9}, "k"),
    ("facts_search", {"q": "x", "kind": "gossip"}, "kind"),
    ("entity_get", {"name": ""}, "name"),
    ("fact_store", {"text": ""}, "text"),
    ("fact_store", {"text": "Pods restart", "confidence": 2}, "confidence"),
    ("fact_store", {"text": "Pods restart", "kind": "gossip"}, "kind"),
    ("fact_store", {"text": "Pods restart", "entities": [""]}, "entities.0"),
    ("fact_store", {"text": "Pods restart", "entities": ["Nobody"]}, "entities.0"),
    ("fact_link", {"fact": 999_999, "entities": ["Kubernetes"]}, "fact"),
    ("fact_store", {"text": "Pods restart", "session_id": "s1\nretry"}, "session_id"),
    ("recall_session_start", {"session_id": "s1\nretry"}, "session_id"),
    ("search_by_entities", {"entities": []}, "entities"),
    ("search_by_entities", {"entities": ["x"], "match_mode": "some"}, "match_mode"),
    ("search_by_entities", {"entities": ["x"], "min_score": 2}, "min_score"),
    ("search_by_entities", {"entities": ["x"], "boost_exact_match": 0}, "boost_exact_match"),
    ("extract_entities", {"text": " "}, "text"),
    ("recall_finding", {"text": "Pods restart", "confidence": 2}, "confidence"),
    ("recall_finding", {"text": "Pods restart", "confidence": -0.5}, "confidence"),
    ("validate_knowledge", {"subject": "a", "predicate": " ", "object": "b"}, "predicate"),
    ("infer_relationship", {"head": "", "tail": "b"}, "head"),
    ("find_related_entities", {"entity": "a", "relation": "uses", "direction": "up"}, "direction"),
    ("find_related_entities", {"entity": "a", "relation": "uses", "min_score": 5}, "min_score"),
    ("find_related_entities", {"entity": "a", "relation": "uses", "min_score": -0.1}, "min_score"),
    (
        "find_related_entities",
        {"entity": "a", "relation": "uses", "entity_type": "Tech\x01"},
        "entity_type",
    ),
    ("entity_get", {"name": "Kubernetes", "uncertainty": 2}, "uncertainty"),
    ("entity_get", {"name": "Kubernetes", "uncertainty": -0.5}, "uncertainty"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("tool", "arguments", "field"), BAD, ids=[f"{t}-{f}" for t, _a, f in BAD])
def test_a_bad_argument_is_a_one_line_tool_error_naming_it(server, tool, arguments, field):
    error, text = call(server, tool, arguments)
    assert error, text
    assert text.startswith(f"Error executing tool {tool}: {field}: "), text
    assert "\n" not in text and "Traceback" not in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("graph_neighbors", {"entity": "Kubernetes", "k": "many"}, "k"),
        ("graph_neighbors", {"entity": "Kubernetes", "k": 2.5}, "k"),
        ("facts_list", {"limit": "x"}, "limit"),
        ("ppr_retrieve", {"query": "x", "damping": "high"}, "damping"),
        ("search_by_entities", {"entities": "Kubernetes"}, "entities"),
        ("get_entity_graph", {}, "entity"),
    ],
)
def test_an_argument_of_the_wrong_type_is_an_error_naming_it(server, tool, arguments, field):
    error, text = call(server, tool, arguments)
    assert error and field in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("fact_store", {"text": "Pods restart", "entities": ["Kubernetes"] * 101}),
        ("fact_link", {"fact": 1, "entities": ["Kubernetes"] * 101}),
        ("episode_store", {"narrative": "Moved pods", "entities": ["Kubernetes"] * 101}),
        ("episode_store", {"narrative": "Moved pods", "facts": [1] * 101}),
    ],
)
def test_a_statement_names_at_most_a_hundred_entities_as_over_rest(server, tool, arguments):
    error, text = call(server, tool, arguments)
    field = "facts" if "facts" in arguments else "entities"
    # Worded as every other tool error: the tool, then the argument.
    assert error and text.startswith(f"Error executing tool {tool}: {field}: "), text
    assert f"{field} takes at most 100 items" in text, text


def test_the_graph_types_error_names_the_types_argument(server):
    error, text = call(server, "get_entity_graph", {"entity": "a", "types": ["ok", "tech\x01"]})
    assert error and text.startswith("Error executing tool get_entity_graph: types: ")


# --- with a stored graph (the worker thread must see it: transactional) ---------------------------


@pytest.fixture
def stored(vector_dir):
    kube = make_entity("Kubernetes", "cloud")
    pods = make_entity("Pod", "concept")
    node = make_entity("Node Pool", "concept")
    fact = state(kube, "manages", pods, text="Kubernetes manages the pods")
    state(pods, "runs on", node, text="Pods run on the node pool")
    edges_rebuild()
    return {"kube": kube, "pods": pods, "fact": fact}


@pytest.mark.django_db(transaction=True)
def test_empty_entity_names_are_refused_and_nothing_is_written(server, stored):
    facts, links = Fact.objects.count(), EntityFact.objects.count()
    error, text = call(server, "fact_link", {"fact": stored["fact"].pk, "entities": [""]})
    assert error and text.startswith("Error executing tool fact_link: entities.0: ")
    error, text = call(server, "fact_store", {"text": "Pods restart", "entities": ["Pod", " "]})
    assert error and ": entities.1: " in text
    assert (Fact.objects.count(), EntityFact.objects.count()) == (facts, links)
    # A triple's subject and object may still be left out as "".
    error, ok = call(server, "fact_store", {"text": "Pods restart", "subject": "", "object": ""})
    assert not error and ok["action"] == "created"


@pytest.mark.django_db(transaction=True)
def test_an_unknown_name_answers_no_entity_in_every_graph_tool(server, stored):
    error, text = call(server, "graph_neighbors", {"entity": "Nobody"})
    assert error and "no entity 'Nobody'" in text
    # A graph tool reports an unknown name as graph_neighbors does: a tool error naming
    # the argument (the REST twin answers 404), not an empty graph of "entity": null.
    error, text = call(server, "get_entity_graph", {"entity": "Nobody"})
    assert error, text
    assert text == (
        "Error executing tool get_entity_graph: entity: no entity 'Nobody'; "
        "create it with entity_store first"
    )
    error, lookup = call(server, "entity_get", {"name": "Nobody"})
    assert not error and lookup["entity"] is None and lookup["match"] == "none"
    error, verdict = call(
        server, "validate_knowledge", {"subject": "Nobody", "predicate": "manages", "object": "Pod"}
    )
    assert not error and verdict["known"] is False and verdict["reason"] == "unknown entity"


@pytest.mark.django_db(transaction=True)
def test_neighbours_over_mcp_match_the_rest_api(server, stored, api):
    error, body = call(server, "graph_neighbors", {"entity": "kubernetes", "hops": 2})
    rest = api.get(f"/api/v1/graph/neighbors/{stored['kube'].pk}", {"hops": 2}).json()
    assert not error
    assert [n["label"] for n in body["neighbors"]] == ["Pod", "Node Pool"]
    assert body["neighbors"] == rest["neighbors"]
    error, graph = call(server, "get_entity_graph", {"entity": "Kubernetes", "min_weight": 2})
    assert not error and graph["edges"] == []


@pytest.fixture
def staffed(vector_dir):
    """Two companies with five employees each, and a model trained on them."""
    for c, name in enumerate(("Brightwell", "Corvanta")):
        company = make_entity(name, "organisation")
        for i in range(5):
            state(make_entity(f"Person {c}-{i}", "person"), "works for", company)
    edges_rebuild()
    kge_train(config={"dim": 16, "epochs": 60, "seed": 3, "eval_every": 20})


@pytest.mark.django_db(transaction=True)
def test_related_entities_filter_on_a_type_however_it_is_written(staffed, api):
    server = mcp_server_build(ToolContext())
    asked = {"entity": "Person 0-0", "relation": "works for", "top_k": 5}
    error, typed = call(server, "find_related_entities", {**asked, "entity_type": "Organisation"})
    assert not error and typed["known"] is True
    assert {r["type"] for r in typed["results"]} == {"organisation"}
    rest = api.post(
        "/api/v1/kge/related",
        {"entity": "Person 0-0", "relation": "works for", "topK": 5, "entityType": "organisation"},
        format="json",
    ).json()
    assert typed["results"] == rest["results"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("entity_get", {}, "name: name is required"),
        ("facts_list", {"ids": [None]}, "ids.0: input should be a valid string"),
        ("fact_store", {"text": "Kubernetes runs pods.", "entities": "Kubernetes"}, "entities: "),
        ("recall_domain", {"tool": "deploy", "arguments": "all"}, "arguments: "),
    ],
)
def test_a_mistyped_argument_is_one_line_naming_it_as_other_errors_are(
    server, tool, arguments, says
):
    error, text = call(server, tool, arguments)
    assert error and text.startswith(f"Error executing tool {tool}: {says}"), text
    assert "\n" not in text and "pydantic" not in text and "Arguments" not in text
