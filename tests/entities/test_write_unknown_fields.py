"""POST /facts/, POST /entities/ and POST /entities/<id>/aliases/ refuse a field they do
not know, by name, and store nothing: a client that writes "object" (the MCP tool's name) instead of
"object_value", or "alias" for "aliases", would otherwise get a 201 and a fact or entity
without what it sent."""

from __future__ import annotations

import pytest

from entities.models import Alias, Entity, Fact
from entities.services import entity_store

pytestmark = pytest.mark.django_db


def test_a_fact_with_an_unknown_field_is_refused_and_not_stored(curator_api):
    alice, _ = entity_store(name="Alice", type="person")
    body = {"text": "Alice lives in Turin.", "subject": str(alice.pk), "predicate": "lives_in",
            "object": "Turin"}  # fmt: skip
    response = curator_api.post("/api/v1/facts/", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "object"
    assert "object_value" in error["message"]  # the accepted fields are listed
    assert not Fact.objects.exists()


def test_an_entity_with_an_unknown_field_is_refused_and_not_stored(curator_api):
    body = {"canonical_name": "Ankara", "type": "place", "alias": ["Angora"]}
    response = curator_api.post("/api/v1/entities/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "alias"
    assert not Entity.objects.exists() and not Alias.objects.exists()


def test_an_alias_with_an_unknown_field_is_refused_and_not_added(curator_api):
    """{"alias": ..., "manual": false} was a 201 adding a manual alias, the flag dropped."""
    city, _ = entity_store(name="Izmir", type="place")
    body = {"alias": "Smyrna", "manual": False}
    response = curator_api.post(f"/api/v1/entities/{city.pk}/aliases/", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "manual" and "alias" in error["message"]
    assert not Alias.objects.exists()
    body = {"alias": "Smyrna"}
    response = curator_api.post(f"/api/v1/entities/{city.pk}/aliases/", body, format="json")
    assert response.status_code == 201


def test_known_fields_still_store(curator_api):
    alice, _ = entity_store(name="Alice", type="person")
    body = {"text": "Alice lives in Turin.", "subject": str(alice.pk), "predicate": "lives_in",
            "object_value": "Turin"}  # fmt: skip
    response = curator_api.post("/api/v1/facts/", body, format="json")
    assert response.status_code == 201
    assert Fact.objects.get().object_value == "Turin"
