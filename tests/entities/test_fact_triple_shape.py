"""A fact's triple over REST: one object at most, and no predicate or object without a
subject — as the curator page already refused (``entities.curation.fact_add``)."""

from __future__ import annotations

import pytest

from entities.models import Fact
from entities.services import entity_store, fact_store, fact_update


@pytest.fixture
def pair(db):
    city, _ = entity_store(name="Ankara", type="place")
    country, _ = entity_store(name="Turkey", type="place")
    return city, country


def test_a_new_fact_with_an_object_entity_and_a_value_is_refused(curator_api, pair):
    """Both were stored: the fact read as a triple with two objects."""
    city, country = pair
    body = {
        "text": "Ankara is the capital of Turkey.",
        "subject": city.pk,
        "predicate": "capital_of",
        "object_entity": country.pk,
        "object_value": "Turkey",
    }
    response = curator_api.post("/api/v1/facts/", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "object_value" and "not both" in error["message"]
    assert not Fact.objects.exists()


def test_a_value_given_to_a_fact_whose_object_is_an_entity_is_refused(curator_api, pair):
    city, country = pair
    fact = fact_store(
        text="Ankara lies in Turkey.", subject=city, predicate="in", object_entity=country
    ).fact
    response = curator_api.patch(f"/api/v1/facts/{fact.pk}/", {"object_value": "x"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "object_value"
    fact.refresh_from_db()
    assert (fact.object_entity_id, fact.object_value) == (country.pk, "")


def test_a_predicate_without_a_subject_is_refused(curator_api, pair):
    """It was stored (201): a relation of nothing to nothing, never an edge."""
    response = curator_api.post(
        "/api/v1/facts/", {"text": "Ankara is a capital.", "predicate": "capital_of"}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "subject" and "needs a subject" in error["message"]
    assert not Fact.objects.exists()


def test_a_predicate_given_to_a_fact_without_a_subject_is_refused(curator_api, pair):
    city, _ = pair
    fact = fact_store(text="Ankara sits on a plateau.", entities=[city]).fact
    response = curator_api.patch(
        f"/api/v1/facts/{fact.pk}/", {"predicate": "sits_on"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "predicate"
    fact.refresh_from_db()
    assert fact.predicate == ""
    # Clearing a predicate, or a triple's own predicate edit, stays possible.
    assert (
        curator_api.patch(f"/api/v1/facts/{fact.pk}/", {"predicate": ""}, format="json").status_code
        == 200
    )


def test_a_fact_stored_before_the_rule_can_still_be_edited_with_its_triple_unchanged(curator, pair):
    """The fact page sends every field back: an unchanged predicate or value of an older
    fact must not block an edit of its confidence."""
    city, country = pair
    older = Fact.objects.create(
        text="Capital status.", text_norm="capital status.", predicate="capital_of"
    )
    both = Fact.objects.create(
        text="Ankara, Turkey.",
        text_norm="ankara, turkey.",
        subject=city,
        predicate="in",
        object_entity=country,
        object_value="Turkey",
    )
    for fact in (older, both):
        fact_update(
            fact=fact,
            actor=curator,
            predicate=fact.predicate,
            object_value=fact.object_value,
            confidence=0.5,
        )
        fact.refresh_from_db()
        assert fact.confidence == 0.5


@pytest.mark.parametrize("predicate", ["->", "!!!", "___", "\u200b"])
def test_a_predicate_without_words_is_refused(curator_api, pair, predicate):
    """A triple "Ankara -> Turkey" was stored and never drawn: no relation reads "->",
    so the graph, neighbours and PageRank left it out (kge/validate refused it)."""
    city, country = pair
    body = {"text": "Ankara, then Turkey.", "subject": city.pk, "predicate": predicate,
            "object_entity": country.pk}  # fmt: skip
    response = curator_api.post("/api/v1/facts/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid", "message": "predicate has no words", "field": "predicate"
    }  # fmt: skip
    assert not Fact.objects.exists()


def test_a_predicate_cannot_be_edited_into_one_without_words(curator_api, pair):
    city, country = pair
    fact = fact_store(
        text="Ankara lies in Turkey.", subject=city, predicate="in", object_entity=country
    ).fact
    response = curator_api.patch(f"/api/v1/facts/{fact.pk}/", {"predicate": "=>"}, format="json")
    assert response.status_code == 400 and response.json()["error"]["field"] == "predicate"
    fact.refresh_from_db()
    assert fact.predicate == "in"


@pytest.mark.django_db(transaction=True)
def test_a_fact_names_its_entities_by_name_or_alias_as_mcp_fact_store_does(curator_api, pair,
                                                                           vector_dir):  # fmt: skip
    """MCP's fact_store took "Ankara"; the same body over REST was a 400 "no entity with
    id 'Ankara'". An unknown name is still a 400 naming the field, never a guess."""
    from entities.mcp.server import mcp_server_build
    from entities.mcp.tools import ToolContext
    from entities.services import alias_add
    from tests.recall.test_mcp import call

    city, country = pair
    alias_add(entity=country, alias="Türkiye")
    body = {
        "text": "Ankara is the capital of Turkey.",
        "subject": "ankara",
        "predicate": "capital_of",
        "object_entity": "Türkiye",
        "entities": ["Turkey"],
    }
    response = curator_api.post("/api/v1/facts/", body, format="json")
    assert response.status_code == 201, response.json()
    rest = Fact.objects.get(pk=response.json()["fact"]["id"])
    assert (rest.subject_id, rest.object_entity_id) == (city.pk, country.pk)
    error, mcp = call(mcp_server_build(ToolContext()), "fact_store",
                      {"text": "Ankara is Turkey's capital city.", "subject": "ankara",
                       "predicate": "capital_of", "object": "Türkiye"})  # fmt: skip
    assert not error, mcp
    stored = Fact.objects.get(pk=mcp["fact"]["id"])
    assert (stored.subject_id, stored.object_entity_id) == (rest.subject_id, rest.object_entity_id)
    for field, value in (("subject", "Ankra"), ("object_entity", "Turkei")):
        refused = curator_api.post("/api/v1/facts/", {**body, field: value}, format="json")
        assert refused.status_code == 400 and refused.json()["error"]["field"] == field
