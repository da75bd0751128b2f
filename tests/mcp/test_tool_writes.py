"""What the MCP write tools leave behind when one part of a call is refused: nothing.
An agent retries a refused call after fixing the argument the error names, so a call
that half wrote (an entity without its aliases, a fact linked to some of its entities)
would leave memory the agent never meant and does not know about."""

from __future__ import annotations

import pytest

from entities import services
from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from entities.models import Alias, Entity, EntityFact, Fact
from tests.recall.test_mcp import call

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def kube(vector_dir):
    entity, _ = services.entity_store(name="Kubernetes", type="cloud")
    services.alias_add(entity=entity, alias="K8s")
    return entity


@pytest.fixture
def server(kube):
    return mcp_server_build(ToolContext(scope="alpha"))


def _rows() -> tuple[list, list, list, list]:
    return (
        sorted(Entity.objects.values_list("canonical_name", "type")),
        sorted(Alias.objects.values_list("alias", "entity_id")),
        sorted(EntityFact.objects.values_list("fact_id", "entity_id", "role")),
        sorted(Fact.objects.values_list("text", "status")),
    )


def test_entity_store_with_its_aliases_answers_them_all(server):
    error, body = call(
        server, "entity_store", {"name": "Nomad", "type": "cloud", "aliases": ["HCN", "nomad-cl"]}
    )
    assert not error and body["created"] is True
    assert body["aliases"] == ["HCN", "nomad-cl"]
    error, again = call(server, "entity_store", {"name": "nomad", "type": "cloud"})
    assert not error and again["created"] is False and again["entity"] == body["entity"]


def test_entity_store_fills_an_empty_description_and_says_when_it_keeps_another(server, kube):
    """An agent storing an entity it did not know existed lost its description without
    a word: the answer looked like a success and the entity stayed undescribed."""
    described = "Container orchestration for the alpha workers"
    error, body = call(server, "entity_store", {"name": "kubernetes", "description": described})
    assert not error and body["created"] is False
    assert body["entity"]["description"] == described and "description_kept" not in body
    kube.refresh_from_db()
    assert kube.description == described
    error, again = call(
        server, "entity_store", {"name": "Kubernetes", "description": "A cloud of pods"}
    )
    assert not error and again["entity"]["description"] == described
    assert "not stored" in again["description_kept"]
    kube.refresh_from_db()
    assert kube.description == described
    error, same = call(server, "entity_store", {"name": "Kubernetes", "description": described})
    assert not error and "description_kept" not in same


def test_an_alias_taken_by_another_entity_stores_no_entity(server, kube):
    before = _rows()
    error, text = call(
        server, "entity_store", {"name": "Nomad", "type": "cloud", "aliases": ["HCN", "K8s"]}
    )
    assert error and "K8s" in text
    assert _rows() == before  # neither Nomad nor its first alias


def test_an_empty_alias_stores_no_entity(server):
    before = _rows()
    error, text = call(server, "entity_store", {"name": "Nomad", "aliases": ["ok", " "]})
    assert error and "alias" in text
    assert _rows() == before


def test_a_link_to_an_unknown_entity_links_none_of_them(server, kube):
    error, body = call(server, "fact_store", {"text": "Pods restart on failure"})
    assert not error
    before = _rows()
    error, text = call(
        server, "fact_link", {"fact": body["fact"]["id"], "entities": ["Kubernetes", "Nobody"]}
    )
    assert error and "entities.1" in text and "Nobody" in text
    assert _rows() == before
    error, linked = call(server, "fact_link", {"fact": body["fact"]["id"], "entities": ["K8s"]})
    assert not error and linked["links"] == [{"entity": kube.pk, "created": True}]


def test_a_read_only_server_offers_no_write_tool_and_writes_nothing(kube):
    server = mcp_server_build(ToolContext(scope="alpha", read_only=True))
    before = _rows()
    for name, arguments in [
        ("entity_store", {"name": "Nomad"}),
        ("fact_store", {"text": "Pods restart on failure"}),
        ("fact_link", {"fact": 1, "entities": ["Kubernetes"]}),
    ]:
        error, text = call(server, name, arguments)
        assert error and "Unknown tool" in text, (name, text)
    error, body = call(server, "entity_get", {"name": "K8s"})
    assert not error and body["entity"]["id"] == kube.pk  # reads still answer
    assert _rows() == before


def test_a_fact_of_another_project_cannot_be_linked_from_this_one(kube):
    other = services.fact_store(text="Beta pods restart nightly", scope="beta").fact
    server = mcp_server_build(ToolContext(scope="alpha"))
    error, text = call(server, "fact_link", {"fact": other.pk, "entities": ["Kubernetes"]})
    assert error and "fact: no fact" in text
    assert not EntityFact.objects.filter(fact=other).exists()


def test_storing_the_same_fact_twice_confirms_it(server):
    error, first = call(server, "fact_store", {"text": "Pods restart on failure"})
    error2, second = call(server, "fact_store", {"text": "pods restart on failure"})
    assert not error and not error2
    assert (first["action"], second["action"]) == ("created", "confirmed")
    assert second["fact"]["id"] == first["fact"]["id"]
    assert second["fact"]["confirmations"] == first["fact"]["confirmations"] + 1
    assert Fact.objects.count() == 1


def test_a_long_write_with_high_uncertainty_answers_its_write_not_an_error(server):
    """The memory hint reads the call's words; a narrative longer than a trigger's text
    (episodes take 20,000 characters) must not turn a stored episode into a tool error,
    or the agent retries and stores it twice."""
    from entities.recall.models import Episode

    narrative = "Moved the alpha workers to the new cluster. " * 300  # ~13,000 characters
    error, body = call(server, "episode_store", {"narrative": narrative, "uncertainty": 0.9})
    assert not error, body
    assert body["id"] == Episode.objects.get().pk
    assert "memory_hint" in body
