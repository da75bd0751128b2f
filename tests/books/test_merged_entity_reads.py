"""Where an entity is mentioned, asked by an id a merge took away: a 404 that says where
the id went (as GET /api/v1/entities/<id>/ answers 301 and the fact list says), so a
client holding the old id can follow it instead of taking it for an unknown entity."""

from __future__ import annotations

import pytest

from entities import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def merged(curator):
    ada, _ = services.entity_store(name="Ada Byron", type="person")
    copy, _ = services.entity_store(name="A. Byron", type="person")
    services.entity_merge(survivor=ada, duplicates=[copy], actor=curator)
    return {"ada": ada.pk, "old": copy.pk}


@pytest.mark.parametrize("tail", ["mentions", "books"])
def test_a_merged_away_id_says_where_it_went(api, merged, tail):
    response = api.get(f"/api/v1/entities/{merged['old']}/{tail}")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["field"] == "id"
    assert error["message"] == (
        f"no entity with id '{merged['old']}' (it was merged into '{merged['ada']}')"
    )
    assert api.get(f"/api/v1/entities/{merged['ada']}/{tail}").status_code == 200


@pytest.mark.parametrize("tail", ["mentions", "books"])
def test_an_id_never_known_is_a_plain_404(api, merged, tail):
    response = api.get(f"/api/v1/entities/no-such-id/{tail}")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "no entity with id 'no-such-id'"
