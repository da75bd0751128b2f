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


@pytest.fixture
def merged(vector_dir, curator):
    from entities.services import entity_merge

    ada = make_entity("Ada Byron", "person")
    copy = make_entity("A. Byron", "person")
    state(copy, "works for", make_entity("Corvanta", "organisation"))
    entity_merge(survivor=ada, duplicates=[copy], actor=curator)
    return {"ada": ada, "old": copy.pk}


def test_facts_list_of_an_unknown_entity_is_an_error_as_in_the_rest_api(server, merged, api):
    rest = api.get("/api/v1/facts/", {"entity": "no-such-id"})
    assert rest.status_code == 404 and rest.json()["error"]["field"] == "entity"
    error, text = call(server, "facts_list", {"entity": "no-such-id"})
    assert error, text
    assert text == "Error executing tool facts_list: entity: no entity with id 'no-such-id'"
    error, text = call(server, "facts_list", {"entity": merged["old"]})
    assert error and f"merged into '{merged['ada'].pk}'" in text
    error, listed = call(server, "facts_list", {"entity": merged["ada"].pk})
    rest = api.get("/api/v1/facts/", {"entity": merged["ada"].pk}).json()
    assert not error
    assert [f["id"] for f in listed["facts"]] == [f["id"] for f in rest["results"]] != []


WHOLE_NUMBERS = [
    ("graph_neighbors", {"entity": "Ada Byron", "k": True}, "k"),
    ("graph_neighbors", {"entity": "Ada Byron", "hops": True}, "hops"),
    ("ppr_retrieve", {"query": "Ada", "k": True}, "k"),
    ("infer_relationship", {"head": "Ada Byron", "tail": "Corvanta", "top_k": True}, "top_k"),
    ("find_related_entities", {"entity": "Ada Byron", "relation": "x", "top_k": True}, "top_k"),
    ("get_entity_graph", {"entity": "Ada Byron", "depth": True}, "depth"),
    ("get_entity_graph", {"entity": "Ada Byron", "max_nodes": True}, "max_nodes"),
    ("facts_search", {"q": "Ada", "k": True}, "k"),
    ("facts_list", {"limit": True}, "limit"),
    ("search_by_entities", {"entities": ["Ada Byron"], "top_k": True}, "top_k"),
    ("recall", {"query": "Ada", "recent_sessions": True}, "recent_sessions"),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "field"), WHOLE_NUMBERS, ids=[f"{t}-{f}" for t, _a, f in WHOLE_NUMBERS]
)
def test_true_or_false_is_no_whole_number_as_in_the_rest_api(
    server, merged, tool, arguments, field
):
    """The REST API answers 400 to ``"topK": true``; the tool took it as 1."""
    error, text = call(server, tool, arguments)
    assert error, text
    assert text == f"Error executing tool {tool}: {field}: {field} must be a whole number, not true"


NUMBERS = [
    ("recall_pre_check", {"action": "Ada", "similarity": True}, "similarity"),
    ("ppr_retrieve", {"query": "Ada", "damping": False}, "damping"),
    ("get_entity_graph", {"entity": "Ada Byron", "min_weight": True}, "min_weight"),
    ("find_related_entities", {"entity": "Ada Byron", "relation": "x", "min_score": True},
     "min_score"),
    ("search_by_entities", {"entities": ["Ada Byron"], "min_score": True}, "min_score"),
    ("search_by_entities", {"entities": ["Ada Byron"], "boost_exact_match": True},
     "boost_exact_match"),
    ("fact_store", {"text": "Ada counts", "confidence": True}, "confidence"),
    ("recall_finding", {"text": "Ada counts", "confidence": True}, "confidence"),
    ("facts_search", {"q": "Ada", "uncertainty": True}, "uncertainty"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "arguments", "field"), NUMBERS, ids=[f"{t}-{f}" for t, _a, f in NUMBERS]
)
def test_true_or_false_is_no_number_as_in_the_rest_api(server, merged, tool, arguments, field):
    """The REST API answers 400 to ``"similarity": true``; the tool took it as 1.0 (a
    fact was stored with confidence 1 from ``"confidence": true``)."""
    error, text = call(server, tool, arguments)
    assert error, text
    assert text.endswith(f"{field}: {field} must be a number, not {str(arguments[field]).lower()}")


def test_the_rest_twin_refuses_true_for_a_whole_number(api):
    response = api.post("/api/v1/graph/ppr", {"query": "Ada", "k": True}, format="json")
    assert response.status_code == 400 and response.json()["error"]["field"] == "k"


@pytest.mark.parametrize("bad", ["x" * 65, "tech\x01"])
def test_a_bad_graph_type_reads_the_same_in_the_api_and_the_tool(server, merged, api, bad):
    rest = api.get(f"/api/v1/graph/entity/{merged['ada'].pk}", {"types": f"person,{bad}"})
    assert rest.status_code == 400
    error = rest.json()["error"]
    assert error["field"] == "types" and error["message"].startswith("types ")
    failed, text = call(
        server, "get_entity_graph", {"entity": "Ada Byron", "types": ["person", bad]}
    )
    assert failed and text == f"Error executing tool get_entity_graph: types: {error['message']}"


def test_ppr_retrieve_takes_hops_as_the_rest_api_does(server, api):
    """A chain of four places: the far end's fact is reached with hops=3, not with 1."""
    names = ["Quarry Dell", "Rook Lane", "Saltmarsh", "Tarn Gate"]
    ends = [make_entity(name, "place") for name in names]
    for near, far in zip(ends, ends[1:], strict=False):
        state(near, "borders", far)
    edges_rebuild()
    reached = {}
    for hops in (1, 3):
        asked = {"query_entities": ["Quarry Dell"], "hops": hops, "k": 10}
        error, walk = call(server, "ppr_retrieve", asked)
        assert not error, walk
        rest = api.post("/api/v1/graph/ppr", asked, format="json").json()
        assert walk["facts"] == rest["facts"]
        reached[hops] = len(walk["facts"])
    assert reached[1] < reached[3] == 3
    error, text = call(server, "ppr_retrieve", {"query": "Saltmarsh", "hops": 4})
    assert error and text == "Error executing tool ppr_retrieve: hops: hops must be between 1 and 3"


def test_the_digest_shows_high_notices_as_fully_as_the_rest_digest(server, curator_api):
    from notifications.services import notification_create

    notification_create(
        type="contradiction",
        urgency="high",
        title="Contradiction: two opening years of the Quarry Dell mill",
        payload={"fact_a": {"id": 1, "text": "opened in 1871"}, "fact_b": {"id": 2}},
        link="/api/v1/integrity/contradictions/1/",
        key="contradiction:1",
    )
    error, digest = call(server, "notifications_digest", {})
    assert not error, digest
    rest = curator_api.get("/api/v1/notifications/digest").json()
    assert set(digest) == set(rest)
    [mine], [theirs] = digest["high"], rest["high"]
    assert mine == theirs  # created_at too: "Z" as the REST serializer writes it
    assert mine["payload"]["fact_a"]["text"] == "opened in 1871"


def test_recall_finding_refuses_an_unknown_kind_as_the_rest_api_does(server, curator_api):
    from entities.services import fact_store

    fact_store(text="The Quarry Dell mill grinds barley.", kind="fact")
    asked = {"text": "The Quarry Dell mill grinds barley.", "kind": "facts"}
    rest = curator_api.post("/api/v1/recall/finding", asked, format="json")
    assert rest.status_code == 400 and rest.json()["error"]["field"] == "kind"
    error, text = call(server, "recall_finding", asked)
    assert error, text
    assert text.startswith("Error executing tool recall_finding: kind: kind must be one of fact")


def test_a_logged_finding_confirms_the_memory_the_finding_named(server, curator_api, monkeypatch):
    """recall_finding answered boost_confidence for a memory the pair model reads as a
    restatement, then log: true stored a copy over MCP (the REST twin confirmed it)."""
    from entities.models import Fact
    from entities.recall import findings
    from entities.services import fact_store

    stored = fact_store(text="The Quarry Dell mill grinds barley.").fact
    restated = (stored, "the pair model reads it as a restatement of this memory")
    monkeypatch.setattr(findings, "finding_restated", lambda **kwargs: restated)
    asked = {"text": "Barley is what the mill at Quarry Dell grinds.", "log": True}
    rest = curator_api.post("/api/v1/recall/finding", asked, format="json").json()
    assert (rest["action"], rest["logged"]) == ("boost_confidence", "confirmed")
    error, mcp = call(server, "recall_finding", asked)
    assert not error, mcp
    assert (mcp["action"], mcp["logged"]) == ("boost_confidence", "confirmed")
    assert mcp["fact"]["id"] == stored.pk
    assert Fact.objects.count() == 1
    stored.refresh_from_db()
    assert stored.confirmations == 3


def test_facts_of_an_entity_by_its_imported_id_as_everywhere_else(server, merged, api):
    """An imported memory's entity id resolves at ``GET /entities/<id>/``, in
    ``entity_get`` and in a new fact's links; the fact filters answered "no entity"."""
    from entities.models import ExternalEntityId

    ExternalEntityId.objects.create(
        store="old.db", external_id="entity_0042ada", entity=merged["ada"]
    )
    own = api.get("/api/v1/facts/", {"entity": merged["ada"].pk}).json()["results"]
    assert own
    listed = api.get("/api/v1/facts/", {"entity": "entity_0042ada"})
    assert listed.status_code == 200, listed.json()
    assert [f["id"] for f in listed.json()["results"]] == [f["id"] for f in own]
    error, body = call(server, "facts_list", {"entity": "entity_0042ada"})
    assert not error, body
    assert [f["id"] for f in body["facts"]] == [f["id"] for f in own]
    found = api.get("/api/v1/facts/search", {"q": "works for", "entity": "entity_0042ada"})
    assert found.status_code == 200, found.json()
    assert {r["id"] for r in found.json()["results"]} == {f["id"] for f in own}


def test_a_finding_not_logged_answers_the_same_keys_as_its_rest_twin(server, api):
    """The REST answer always carries ``logged`` and ``fact`` (null without log); the
    tool's had no ``fact`` at all unless it logged."""
    asked = {"text": "The Quarry Dell mill grinds oats."}
    rest = api.post("/api/v1/recall/finding", asked, format="json").json()
    error, mcp = call(server, "recall_finding", asked)
    assert not error, mcp
    assert set(mcp) == set(rest)
    assert mcp["fact"] is None and mcp["logged"] is None


def test_an_ambiguous_name_names_its_candidates_in_the_tool_error(server):
    """The REST API's 409 lists the entities a name stands for; the tool's error said
    only "names entities of several types", leaving the agent no id to call again with."""
    planet = make_entity("Mercury", "planet")
    metal = make_entity("Mercury", "element")
    for tool, arguments in (
        ("graph_neighbors", {"entity": "Mercury"}),
        ("validate_knowledge", {"subject": "Mercury", "predicate": "uses", "object": "x"}),
        ("fact_store", {"text": "Mercury is near", "subject": "Mercury", "object_value": "x"}),
    ):
        error, text = call(server, tool, arguments)
        assert error, text
        assert f"{planet.pk} (Mercury, planet)" in text and f"{metal.pk} (Mercury, element)" in text


def test_a_stored_episode_answers_the_fields_of_its_rest_twin(server, curator_api):
    """The tool answered id, scope and session id only: not the agent id and narrative
    as stored (trimmed, NFC), which its REST twin answers."""
    asked = {"narrative": "Moved the mill's ledger", "ai_id": " cafe\u0301 ", "session_id": "s1"}
    rest = curator_api.post("/api/v1/recall/episodes", asked, format="json").json()
    error, mcp = call(server, "episode_store", asked)
    assert not error, mcp
    assert set(mcp) == set(rest)
    assert mcp["ai_id"] == rest["ai_id"] == "caf\u00e9"


def test_extract_entities_answers_the_fields_of_its_rest_twin(server, curator_api):
    make_entity("Quarry Dell", "place")
    asked = {"text": "The mill at Quarry Dell"}
    rest = curator_api.post("/api/v1/extract/entities", asked, format="json").json()
    error, mcp = call(server, "extract_entities", asked)
    assert not error, mcp
    assert set(mcp) == set(rest) and mcp["count"] == rest["count"] == 1


def test_a_logged_finding_records_its_session_and_agent_as_over_rest(server, curator_api):
    """POST /recall/finding stores the finding's session_id and ai_id; the tool took
    neither, so a finding logged over MCP belonged to no session (recent_sessions and
    ai_id recall could never find it again)."""
    from entities.models import Fact

    asked = {"log": True, "session_id": "s-42", "ai_id": "agent-7"}
    rest = curator_api.post(
        "/api/v1/recall/finding", {"text": "The Quarry Dell mill grinds rye.", **asked},
        format="json",
    ).json()  # fmt: skip
    error, mcp = call(server, "recall_finding", {"text": "The Saltmarsh kiln fires oak.", **asked})
    assert not error, mcp
    stored = Fact.objects.filter(pk__in=[rest["fact"]["id"], mcp["fact"]["id"]])
    assert sorted(stored.values_list("session_id", "ai_id")) == [("s-42", "agent-7")] * 2
    error, text = call(server, "recall_finding", {"text": "x", "session_id": "s" * 129})
    assert error and ": session_id: " in text
