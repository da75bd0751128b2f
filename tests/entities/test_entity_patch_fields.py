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
