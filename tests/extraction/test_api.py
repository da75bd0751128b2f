from __future__ import annotations

import pytest
from django.conf import settings

from entities.services import alias_add, entity_store

pytestmark = pytest.mark.django_db

# The documented cap (KGSITE_MAX_EXTRACT_CHARS, 20,000 by default): longer texts are books.
LIMIT = settings.KGSITE_MAX_EXTRACT_CHARS
URL = "/api/v1/extract/entities"


def error(response) -> dict:
    assert response.status_code == 400, response.content
    return response.json()["error"]


def test_a_reader_finds_entities_with_offsets(api):
    ts, _ = entity_store(name="TypeScript", type="programming_language")
    alias_add(entity=ts, alias="ts")
    text = "  TypeScript, or ts for short"
    response = api.post(URL, {"text": text}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    first, second = body["entities"]
    assert first == {
        "surface_form": "TypeScript",
        "canonical_id": ts.id,
        "canonical_name": "TypeScript",
        "entity_type": "programming_language",
        "start": 2,
        "end": 12,
        "candidates": [],
    }
    assert text[second["start"] : second["end"]] == "ts"


def test_group_by_type(api):
    entity_store(name="Rust", type="programming_language")
    entity_store(name="Lisbon", type="place")
    body = api.post(
        URL, {"text": "Rust in Lisbon, Rust again", "groupByType": True}, format="json"
    ).json()
    assert set(body) == {"groups", "count"}
    assert body["count"] == 3
    assert [d["surface_form"] for d in body["groups"]["programming_language"]] == ["Rust"] * 2
    assert [d["surface_form"] for d in body["groups"]["place"]] == ["Lisbon"]


def test_empty_store_gives_an_empty_list(api):
    response = api.post(URL, {"text": "TypeScript and Rust"}, format="json")
    assert response.status_code == 200
    assert response.json() == {"entities": [], "count": 0}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "text"),
        ({"text": ""}, "text"),
        ({"text": None}, "text"),
        ({"text": "x" * (LIMIT + 1)}, "text"),
        ({"text": "ok", "includeUnknown": "maybe"}, "includeUnknown"),
        ({"text": "ok", "groupByType": [1]}, "groupByType"),
        ({"text": "ok", "types": "person"}, "types"),
    ],
)
def test_bad_input_is_400_naming_the_field(api, body, field):
    assert error(api.post(URL, body, format="json"))["field"] == field


def test_text_at_the_limit_is_accepted(api):
    entity_store(name="Rust", type="programming_language")
    response = api.post(URL, {"text": "Rust " + "x" * (LIMIT - 5)}, format="json")
    assert response.status_code == 200
    assert response.json()["count"] == 1


def test_get_is_not_allowed(api):
    assert api.get(URL).status_code == 405
