"""Creating an entity with aliases (POST /api/v1/entities/, MCP entity_store): an alias
refused by the rules of aliases is an error naming the request's own field, ``aliases``
(the body has no ``alias``), and stores nothing."""

from __future__ import annotations

import pytest

from entities import services
from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from entities.models import Alias, Entity
from tests.recall.test_mcp import call


def _rows():
    return (
        sorted(Entity.objects.values_list("canonical_name", flat=True)),
        sorted(Alias.objects.values_list("alias", flat=True)),
    )


REFUSED = [
    (["Remote Dictionary Server", "REDIS"], "alias is the entity's canonical name"),
    (["Remote Dictionary Server", "Kube"], "Kube"),  # another entity's alias
]


@pytest.mark.django_db
@pytest.mark.parametrize(("aliases", "says"), REFUSED, ids=["own-name", "taken"])
def test_the_api_names_the_aliases_field_and_stores_nothing(curator_api, aliases, says):
    kube, _ = services.entity_store(name="Kubernetes", type="technology")
    services.alias_add(entity=kube, alias="Kube")
    before = _rows()
    response = curator_api.post(
        "/api/v1/entities/",
        {"canonical_name": "Redis", "type": "technology", "aliases": aliases},
        format="json",
    )
    assert response.status_code in (400, 409)
    error = response.json()["error"]
    assert error["field"] == "aliases.1" and says in error["message"]  # the second item
    assert _rows() == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("aliases", "says"), REFUSED, ids=["own-name", "taken"])
def test_the_tool_names_the_alias_it_refused(vector_dir, aliases, says):
    kube, _ = services.entity_store(name="Kubernetes", type="technology")
    services.alias_add(entity=kube, alias="Kube")
    before = _rows()
    server = mcp_server_build(ToolContext())
    arguments = {"name": "Redis", "type": "technology", "aliases": aliases}
    error, text = call(server, "entity_store", arguments)
    assert error and text.startswith("Error executing tool entity_store: aliases.1: "), text
    assert says in text
    assert _rows() == before
