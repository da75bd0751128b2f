"""PATCH /entities/<id>/ refuses a field it cannot edit (as a fact's PATCH does) instead of
answering 200 and dropping it: aliases have their own address."""

from __future__ import annotations

import pytest

from entities.models import Alias
from entities.services import entity_store

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("body", [{"aliases": ["Angora"]}, {"name": "Angora"}])
def test_a_field_the_patch_cannot_edit_is_a_400_naming_it(curator_api, body):
    city, _ = entity_store(name="Ankara", type="place")
    response = curator_api.patch(f"/api/v1/entities/{city.pk}/", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == next(iter(body)) and "cannot be edited" in error["message"]
    city.refresh_from_db()
    assert city.canonical_name == "Ankara" and not Alias.objects.exists()


def test_editable_fields_still_save(curator_api):
    city, _ = entity_store(name="Ankara", type="place")
    response = curator_api.patch(
        f"/api/v1/entities/{city.pk}/", {"description": "the capital"}, format="json"
    )
    assert response.status_code == 200 and response.json()["description"] == "the capital"


@pytest.mark.parametrize("description", ["a bell\x07 tower", "x" * 10_001])
def test_a_description_with_control_characters_or_too_long_is_a_400(curator_api, description):
    """A control character was refused on create but stored by PATCH, the pages and the MCP
    tools; the length is checked on every path too."""
    city, _ = entity_store(name="Ankara", type="place")
    response = curator_api.patch(
        f"/api/v1/entities/{city.pk}/", {"description": description}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "description"
    city.refresh_from_db()
    assert city.description == ""


@pytest.mark.parametrize("type_", ["_", "!!!", " - "])
def test_a_type_without_a_letter_or_digit_is_a_400(curator_api, type_):
    response = curator_api.post(
        "/api/v1/entities/", {"canonical_name": "Ankara", "type": type_}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "type"
