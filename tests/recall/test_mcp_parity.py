"""What the original memory's tools could do, over MCP: state a relation with
fact_store (an edge at once), link a fact to entities afterwards, walk neighbours,
and trigger phrases in the descriptions in both languages its users write."""

from __future__ import annotations

import pytest

from entities import services
from entities.mcp.server import DESCRIPTIONS, mcp_server_build
from entities.mcp.tools import ToolContext

from .test_mcp import call

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(vector_dir):
    for name, etype in (("Ledgerline", "software"), ("Quillstack", "library"), ("Orrin", "person")):
        services.entity_store(name=name, type=etype)
    return mcp_server_build(ToolContext(scope="alpha"))


def test_fact_store_states_a_relation_that_becomes_an_edge(server):
    error, stored = call(
        server,
        "fact_store",
        {
            "text": "Ledgerline depends on Quillstack",
            "subject": "Ledgerline",
            "predicate": "depends on",
            "object": "quillstack",
        },
    )
    assert not error and stored["action"] == "created"
    error, graph = call(server, "get_entity_graph", {"entity": "Ledgerline"})
    assert [(e["relation"], e["fact_ids"]) for e in graph["edges"]] == [
        ("depends_on", [stored["fact"]["id"]])
    ]
    error, near = call(server, "graph_neighbors", {"entity": "Quillstack"})
    assert not error and [n["label"] for n in near["neighbors"]] == ["Ledgerline"]
    # Another project's server sees neither the edge nor the neighbour.
    beta = mcp_server_build(ToolContext(scope="beta"))
    error, graph = call(beta, "get_entity_graph", {"entity": "Ledgerline"})
    assert graph["edges"] == []
    error, text = call(server, "fact_store", {"text": "x", "subject": "Nobody Known"})
    assert error and "subject" in text and "entity_store" in text


def test_fact_link_ties_a_stored_fact_to_more_entities(server):
    error, stored = call(server, "fact_store", {"text": "Orrin maintains the ledger exports"})
    fact_id = stored["fact"]["id"]
    error, linked = call(server, "fact_link", {"fact": fact_id, "entities": ["Orrin"]})
    assert not error and linked["links"][0]["created"] is True
    error, again = call(server, "fact_link", {"fact": fact_id, "entities": ["Orrin"]})
    assert again["links"][0]["created"] is False
    error, body = call(server, "entity_get", {"name": "Orrin"})
    assert fact_id in body["facts"]
    error, text = call(server, "fact_link", {"fact": 999999, "entities": ["Orrin"]})
    assert error and "fact" in text
    read_only = mcp_server_build(ToolContext(scope="alpha", read_only=True))
    error, text = call(read_only, "fact_link", {"fact": fact_id, "entities": ["Orrin"]})
    assert error  # not offered at all on a read-only server


def test_descriptions_give_triggers_in_english_and_italian():
    for name, english, italian in (
        ("entity_get", "what do you know about", "chi è"),
        ("fact_store", "remember that", "ricorda che"),
        ("recall", "do you remember", "ti ricordi"),
    ):
        assert english in DESCRIPTIONS[name] and italian in DESCRIPTIONS[name]


def test_episode_store_links_the_entities_and_facts_it_was_about(server):
    """As ``POST /recall/episodes`` does: the episode names its entities (by name, alias
    or id) and facts, so a merge carries it along and recall can follow the links."""
    from entities.recall.models import Episode

    kube, _ = services.entity_store(name="Kubernetes", type="cloud")
    services.alias_add(entity=kube, alias="K8s")
    fact = services.fact_store(text="Kubernetes restarts failed pods", scope="alpha").fact
    error, body = call(
        server,
        "episode_store",
        {"narrative": "Moved the workers to K8s", "entities": ["K8s"], "facts": [fact.pk]},
    )
    assert not error, body
    episode = Episode.objects.get(pk=body["id"])
    assert list(episode.entities.values_list("pk", flat=True)) == [kube.pk]
    assert list(episode.facts.values_list("pk", flat=True)) == [fact.pk]
    for bad, field in [({"entities": ["Nobody"]}, "entities.0"), ({"facts": [999_999]}, "facts.0")]:
        error, text = call(server, "episode_store", {"narrative": "Did more", **bad})
        assert error and text.startswith(f"Error executing tool episode_store: {field}: "), text
    assert Episode.objects.count() == 1


def test_recall_finding_logs_a_pattern_with_its_domain(server):
    from entities.models import Fact

    arguments = {"text": "Billing exports must run on the replica", "kind": "pattern",
                 "domain": "billing", "log": True}  # fmt: skip
    error, body = call(server, "recall_finding", arguments)
    assert not error, body
    assert Fact.objects.get(pk=body["fact"]["id"]).domain == "billing"
