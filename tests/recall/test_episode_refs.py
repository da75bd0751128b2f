"""An episode's body names entities and facts as MCP ``episode_store`` takes them (an
entity by id, name, alias or imported id; a merged-away id stands for its survivor): an
entity no name or id matches is a 400 naming the body's item (``entities.1``), a fact
that is not there a 404 naming ``facts.0``, and nothing is stored."""

from __future__ import annotations

import pytest

from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from entities.recall.models import Episode
from entities.services import alias_add, entity_merge, entity_store, fact_store
from tests.recall.test_mcp import call

URL = "/api/v1/recall/episodes"


@pytest.fixture
def merged(db):
    kept, _ = entity_store(name="Harbour Works", type="organization")
    gone, _ = entity_store(name="Harbour Works Ltd", type="organization")
    entity_merge(survivor=kept, duplicates=[gone], actor=None)
    return kept, gone


def _linked(episode_id: int) -> list[str]:
    return sorted(Episode.objects.get(pk=episode_id).entities.values_list("pk", flat=True))


@pytest.mark.django_db(transaction=True)
def test_entities_by_name_alias_or_merged_id_as_mcp_takes_them(curator_api, merged, vector_dir):
    """The REST body took entity ids only; MCP's episode_store took names: the same
    episode over REST was a 404 for "Harbour Works"."""
    kept, gone = merged
    pier, _ = entity_store(name="Pier Nine", type="place")
    alias_add(entity=pier, alias="P9")
    named = ["harbour works", "P9", gone.pk]
    response = curator_api.post(URL, {"narrative": "Mapped the suppliers", "entities": named},
                                format="json")  # fmt: skip
    assert response.status_code == 201, response.json()
    assert _linked(response.json()["id"]) == sorted([kept.pk, pier.pk])
    error, body = call(mcp_server_build(ToolContext()), "episode_store",
                       {"narrative": "Mapped the suppliers", "entities": named})  # fmt: skip
    assert not error, body
    assert _linked(body["id"]) == _linked(response.json()["id"])


def test_an_unknown_name_is_a_400_naming_the_item_and_stores_nothing(curator_api, merged,
                                                                      vector_dir):  # fmt: skip
    kept, _gone = merged
    body = {"narrative": "Mapped the suppliers", "entities": [kept.pk, "Harbor Werks"]}
    response = curator_api.post(URL, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "entities.1"  # never a guess at the nearest name
    assert "no entity 'Harbor Werks'" in error["message"]
    assert not Episode.objects.exists()


def test_an_unknown_fact_names_the_facts_field(curator_api, db, vector_dir):
    known, _ = entity_store(name="Harbour Works", type="organization")
    fact = fact_store(text="Harbour Works keeps a ledger.", entities=[known]).fact
    body = {"narrative": "Checked the ledger", "facts": [fact.pk, 987654]}
    response = curator_api.post(URL, body, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "facts.1"
    assert not Episode.objects.exists()


def test_a_misspelt_field_is_refused_and_stores_nothing(curator_api, db, vector_dir):
    """ "entity" for "entities" was dropped: the episode was stored without its links."""
    kept, _ = entity_store(name="Harbour Works", type="organization")
    body = {"narrative": "Mapped the harbour suppliers", "entity": [kept.pk]}
    response = curator_api.post(URL, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "entity" and "entities" in error["message"]
    assert not Episode.objects.exists()


@pytest.mark.parametrize("fact", [0, -1, 2**63, 10**20])
def test_a_fact_id_no_column_holds_is_400_naming_the_field(curator_api, db, vector_dir, fact):
    body = {"narrative": "Checked the ledger", "facts": [fact]}
    response = curator_api.post(URL, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "facts.0"
    assert not Episode.objects.exists()


def test_an_episode_names_at_most_a_hundred_entities_or_facts(curator_api, db, vector_dir):
    """Each id is read one by one: a body of 100,000 ids held a worker for minutes."""
    kept, _ = entity_store(name="Harbour Works", type="organization")
    fact = fact_store(text="Harbour Works keeps a ledger.", entities=[kept]).fact
    for field, ids in (("entities", [kept.pk] * 101), ("facts", [fact.pk] * 101)):
        body = {"narrative": "Checked the ledger", field: ids}
        response = curator_api.post(URL, body, format="json")
        assert response.status_code == 400, response.json()
        error = response.json()["error"]
        assert error["field"] == field and "100" in error["message"]
    assert not Episode.objects.exists()


def test_an_episode_links_no_fact_of_another_project(curator_api, db, vector_dir):
    """A project's episode took any fact by id, another project's too (MCP's
    episode_store refuses them): the episode of "harbour" held work "quarry" keeps."""
    other = fact_store(text="The quarry ledger is kept weekly.", scope="quarry").fact
    shared = fact_store(text="Ledgers are kept in ink.").fact  # global: every project sees it
    body = {"narrative": "Checked the ledgers", "scope": "harbour", "facts": [shared.pk, other.pk]}
    response = curator_api.post(URL, body, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "facts.1"
    assert not Episode.objects.exists()
    body["facts"] = [shared.pk]
    assert curator_api.post(URL, body, format="json").status_code == 201
    assert list(Episode.objects.get().facts.all()) == [shared]
