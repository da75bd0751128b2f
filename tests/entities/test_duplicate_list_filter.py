"""The duplicate list's ``entity`` filter answers an unknown or merged-away id as the fact
list's and the fact search's do: a 404 naming ``entity``, and where a merged one went."""

from __future__ import annotations

import pytest

from entities.services import entity_merge, entity_store

pytestmark = pytest.mark.django_db


def test_a_merged_away_entity_names_the_filter_and_where_it_went(curator_api):
    kept, _ = entity_store(name="Odessa Vale", type="place")
    gone, _ = entity_store(name="Odessa Vale Town", type="place")
    entity_merge(survivor=kept, duplicates=[gone], actor=None)
    response = curator_api.get("/api/v1/entities/duplicates", {"entity": gone.pk})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["field"] == "entity"  # it said "id": no such field in this request
    assert kept.pk in error["message"]
    facts = curator_api.get("/api/v1/facts/", {"entity": gone.pk}).json()["error"]
    assert facts == error


def test_an_unknown_entity_names_the_filter(curator_api):
    response = curator_api.get("/api/v1/entities/duplicates", {"entity": "nosuchentity"})
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "entity"
