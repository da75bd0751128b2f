"""MCP ``fact_link``: a write like the others, so audited as the server's user; its
list held to the REST API's cap; errors naming the tool's own arguments; and a triple's
ends left as the fact was stored."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from entities import services
from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from kgsite.models import AuditEntry
from tests.recall.test_mcp import call

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def stored(vector_dir):
    kube, _ = services.entity_store(name="Kubernetes", type="cloud")
    docker, _ = services.entity_store(name="Docker", type="tool")
    fact = services.fact_store(
        text="Kubernetes schedules pods.", subject=kube, predicate="schedules", scope="alpha"
    ).fact
    return {"kube": kube, "docker": docker, "fact": fact}


@pytest.fixture
def server(stored):
    User.objects.create_user("agent-bot")
    return mcp_server_build(ToolContext(scope="alpha", username="agent-bot"))


def test_a_link_is_audited_as_the_servers_user(server, stored):
    error, body = call(server, "fact_link", {"fact": stored["fact"].pk, "entities": ["Docker"]})
    assert not error, body
    row = AuditEntry.objects.get(action="fact.link")
    assert (row.actor.username, row.target_id) == ("agent-bot", str(stored["fact"].pk))
    assert row.payload["entities"] == [stored["docker"].pk]
    # Linking again changes nothing and records nothing.
    call(server, "fact_link", {"fact": stored["fact"].pk, "entities": ["Docker"]})
    assert AuditEntry.objects.filter(action="fact.link").count() == 1


@pytest.mark.parametrize("fact", ["", "   ", "x" * 300])
def test_a_bad_fact_id_is_an_error_naming_the_fact_argument(server, stored, fact):
    error, text = call(server, "fact_link", {"fact": fact, "entities": ["Docker"]})
    assert error and text.startswith("Error executing tool fact_link: fact: fact "), text
    assert "ids" not in text
