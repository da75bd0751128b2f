"""Reading facts over REST: a project's reader sees its facts and global memory, never
another project's; bad scope parameters are a 400 naming the field; an unknown or
merged-away entity filter says so instead of answering an empty list."""

from __future__ import annotations

import pytest

from entities.services import entity_merge, entity_store, fact_store

pytestmark = pytest.mark.django_db

FACTS = "/api/v1/facts/"


@pytest.fixture
def harbour(db):
    port, _ = entity_store(name="Port Ellery", type="place")
    texts = {
        "": "Port Ellery has one lighthouse.",
        "alpha": "Port Ellery ferries leave at seven.",
        "beta": "Port Ellery ferries leave at five.",
    }
    facts = {
        scope: fact_store(text=t, entities=[port], scope=scope).fact for scope, t in texts.items()
    }
    return port, facts


def _texts(response) -> set[str]:
    assert response.status_code == 200, response.content
    return {f["text"] for f in response.json()["results"]}


def test_each_reader_sees_its_project_and_global_memory_only(api, harbour):
    port, facts = harbour
    by = {scope: fact.text for scope, fact in facts.items()}
    assert _texts(api.get(FACTS, {"entity": port.pk})) == {by[""]}
    assert _texts(api.get(FACTS, {"entity": port.pk, "scope": "alpha"})) == {by[""], by["alpha"]}
    assert _texts(api.get(FACTS, {"scope": "beta"})) == {by[""], by["beta"]}
    assert _texts(api.get(FACTS, {"entity": port.pk, "all_scopes": "true"})) == set(by.values())
    assert _texts(api.get(FACTS, {"scope": "gamma"})) == {by[""]}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"all_scopes": "maybe"}, "all_scopes"),
        ({"scope": "x" * 129}, "scope"),
        ({"scope": "alpha\x07"}, "scope"),
    ],
)
def test_bad_scope_parameters_are_400_naming_the_field(api, harbour, params, field):
    response = api.get(FACTS, params)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["field"] == field


def test_an_unknown_entity_filter_is_404_naming_the_field(api, harbour):
    response = api.get(FACTS, {"entity": "no-such-entity"})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["field"] == "entity" and "no-such-entity" in error["message"]


def test_a_merged_away_entity_filter_says_where_it_went(api, curator, harbour):
    port, _facts = harbour
    town, _ = entity_store(name="Ellery Harbour", type="place")
    fact_store(text="Ellery Harbour silted up in winter.", entities=[town])
    entity_merge(survivor=port, duplicates=[town], actor=curator)
    response = api.get(FACTS, {"entity": town.pk})
    assert response.status_code == 404
    assert f"merged into '{port.pk}'" in response.json()["error"]["message"]
    moved = _texts(api.get(FACTS, {"entity": port.pk}))
    assert "Ellery Harbour silted up in winter." in moved


def test_a_source_filter_with_surrounding_blanks_finds_the_stored_source(api, harbour):
    port, facts = harbour
    fact_store(text="Port Ellery's pier is 200 m long.", entities=[port], source="survey 1901")
    assert _texts(api.get(FACTS, {"source": "  survey 1901 "})) == {
        "Port Ellery's pier is 200 m long."
    }
    every = _texts(api.get(FACTS, {"source": "   "}))  # blank: no filter
    assert every == {facts[""].text, "Port Ellery's pier is 200 m long."}


def test_an_entity_filter_with_surrounding_blanks_finds_the_entity(api, harbour):
    """GET /facts/search trimmed the id; the list answered 404 "no entity with id ' x '"."""
    port, facts = harbour
    assert _texts(api.get(FACTS, {"entity": f" {port.pk} "})) == {facts[""].text}
    response = api.get("/api/v1/entities/duplicates", {"entity": f" {port.pk}\t"})
    assert response.status_code == 200, response.content
