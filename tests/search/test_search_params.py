"""The search endpoints' parameters as a client sends them: a filter naming an entity
that does not exist says so (as the fact list does) instead of answering an empty list,
and numbers that are not numbers are a 400 naming the field."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from entities import services

# Facts reach the vector index when their transaction commits.
pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/v1/facts/search"


@pytest.fixture
def client(vector_dir, api) -> APIClient:
    return api


@pytest.fixture
def kites(vector_dir):
    kite, _ = services.entity_store(name="Box Kite", type="toy")
    fact = services.fact_store(text="A box kite flies in light wind", entities=[kite]).fact
    return kite, fact


def test_an_unknown_entity_filter_is_a_404_naming_it_on_search_and_list(client, kites):
    for url, params in ((URL, {"q": "kite in wind"}), ("/api/v1/facts/", {})):
        response = client.get(url, {**params, "entity": "nosuchid"})
        assert response.status_code == 404, url
        error = response.json()["error"]
        assert error["field"] == "entity"
        assert "nosuchid" in error["message"]


def test_a_merged_away_entity_filter_says_where_it_went(client, kites, curator):
    kite, _fact = kites
    twin, _ = services.entity_store(name="Box Kites Twin", type="toy")
    services.entity_merge(survivor=kite, duplicates=[twin], actor=curator)
    response = client.get(URL, {"q": "kite in wind", "entity": twin.pk})
    assert response.status_code == 404
    assert f"merged into '{kite.pk}'" in response.json()["error"]["message"]


def test_a_known_entity_filter_finds_its_facts_and_only_them(client, kites):
    kite, fact = kites
    services.fact_store(text="A delta kite glides in light wind")
    lonely, _ = services.entity_store(name="Paper Plane", type="toy")
    found = client.get(URL, {"q": "kite in light wind", "entity": kite.pk, "k": 5})
    assert [r["id"] for r in found.json()["results"]] == [fact.pk]
    # An entity that exists but has no facts: an empty answer, not an error.
    none = client.get(URL, {"q": "kite in light wind", "entity": lonely.pk})
    assert none.status_code == 200 and none.json()["results"] == []


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "half"])
def test_a_min_score_that_is_no_number_is_a_400_naming_it(client, value):
    response = client.get(URL, {"q": "kites", "minScore": value})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "minScore"
    body = {"entities": ["Box Kite"], "minScore": value}
    response = client.post("/api/v1/search/entities", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "minScore"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"entities": [1, 2]}, "entities"),
        ({"entities": [None]}, "entities"),
        ({"entities": [["Box Kite"]]}, "entities"),
        ({"entities": ["Box Kite"], "topK": True}, "topK"),
        ({"entities": ["Box Kite"], "includeContent": "maybe"}, "includeContent"),
        ({"entities": ["Box Kite"], "scope": None}, "scope"),
    ],
)
def test_entity_search_fields_of_the_wrong_kind_are_400_naming_them(client, body, field):
    response = client.post("/api/v1/search/entities", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"].split(".")[0] == field


NOTHING = "\u200b\u2060"


def test_a_search_for_text_that_shows_nothing_is_refused_by_name(client, kites):
    """Zero-width spaces and joiners read as a blank: they answered the stored facts
    closest to nothing, as if they were a question."""
    response = client.get(URL, {"q": NOTHING})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "q"
    body = {"entities": ["Box Kite", NOTHING]}
    response = client.post("/api/v1/search/entities", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "entities.1"


def test_the_search_tools_refuse_text_that_shows_nothing_by_name(kites):
    from entities.mcp.server import mcp_server_build
    from entities.mcp.tools import ToolContext
    from tests.recall.test_mcp import call

    server = mcp_server_build(ToolContext())
    error, text = call(server, "facts_search", {"q": NOTHING})
    assert error and "q: q must not be empty" in text, text
    error, text = call(server, "search_by_entities", {"entities": [NOTHING]})
    assert error and "entities.0:" in text, text


def test_the_entity_search_tool_refuses_a_blank_entity_type_by_name(kites):
    """As the REST field does: a type "" resolved no name and answered by meaning alone."""
    from entities.mcp.server import mcp_server_build
    from entities.mcp.tools import ToolContext
    from tests.recall.test_mcp import call

    arguments = {"entities": ["Box Kite"], "entity_types": ["toy", " "]}
    error, text = call(mcp_server_build(ToolContext()), "search_by_entities", arguments)
    assert error and "entity_types.1:" in text, text


def test_an_entity_search_by_the_entitys_id_finds_its_facts(client, kites):
    """Other answers name entities by id (facts_search, entity_get, the graph): given
    back to the entity search, the id resolved to nothing and no fact was found."""
    kite, fact = kites
    body = {"entities": [kite.pk]}
    answer = client.post("/api/v1/search/entities", body, format="json").json()
    assert answer["detected_query_entities"][0]["canonical_id"] == kite.pk
    assert [r["memory_id"] for r in answer["results"]] == [fact.pk]
    assert answer["results"][0]["matched_entities"] == ["Box Kite"]
