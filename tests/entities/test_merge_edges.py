"""Merge requests that must be refused, and refused without writing: an entity into
itself, into one merged away, onto a survivor gone meanwhile; REST bad input on the
entity and alias endpoints."""

from __future__ import annotations

import pytest

from entities.models import Alias, Entity, EntityMerge, EntityRedirect
from entities.services import (
    alias_add,
    entity_delete,
    entity_merge,
    entity_merge_undo,
    entity_store,
)
from kgsite.errors import NotFound

from .conftest import _snapshot

pytestmark = pytest.mark.django_db

MERGE = "/api/v1/entities/merge"


def test_a_merge_into_a_merged_away_survivor_is_404_saying_where_it_went(curator_api, graph):
    first = curator_api.post(
        MERGE, {"survivor": graph["survivor"].pk, "duplicates": [graph["dup"].pk]}, format="json"
    )
    assert first.status_code == 200, first.json()
    before = _snapshot()
    response = curator_api.post(
        MERGE,
        {"survivor": graph["dup"].pk, "duplicates": [graph["other"].pk], "allow_cross_type": True},
        format="json",
    )
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["field"] == "survivor"
    assert f"merged into '{graph['survivor'].pk}'" in error["message"]
    assert _snapshot() == before and EntityMerge.objects.count() == 1


def test_a_merged_away_duplicate_is_404_naming_the_duplicates(curator_api, graph):
    curator_api.post(
        MERGE, {"survivor": graph["survivor"].pk, "duplicates": [graph["dup"].pk]}, format="json"
    )
    before = _snapshot()
    response = curator_api.post(
        MERGE,
        {"survivor": graph["survivor"].pk, "duplicates": [graph["dup"].pk], "preview": True},
        format="json",
    )
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "duplicates.0"
    assert _snapshot() == before


def test_an_entity_named_only_as_its_own_duplicate_is_400_and_writes_nothing(curator_api, graph):
    before = _snapshot()
    pk = graph["survivor"].pk
    for preview in (True, False):
        response = curator_api.post(
            MERGE, {"survivor": pk, "duplicates": [pk, pk], "preview": preview}, format="json"
        )
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["field"] == "duplicates.0" and "survivor" in error["message"]
    assert _snapshot() == before and not EntityRedirect.objects.exists()


def test_a_survivor_deleted_meanwhile_is_named_as_the_survivor(graph, curator):
    survivor = graph["survivor"]
    Entity.objects.filter(pk=survivor.pk).delete()
    with pytest.raises(NotFound) as caught:
        entity_merge(survivor=survivor, duplicates=[graph["dup"]], actor=curator)
    assert caught.value.field == "survivor" and survivor.pk in caught.value.message
    assert Entity.objects.filter(pk=graph["dup"].pk).exists()
    assert not EntityMerge.objects.exists()


def test_a_duplicate_deleted_meanwhile_is_named_as_a_duplicate(graph, curator):
    dup = graph["dup"]
    Entity.objects.filter(pk=dup.pk).delete()
    with pytest.raises(NotFound) as caught:
        entity_merge(survivor=graph["survivor"], duplicates=[dup], actor=curator, preview=True)
    assert caught.value.field == "duplicates" and dup.pk in caught.value.message


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"canonical_name": ""}, "canonical_name"),
        ({"canonical_name": "   "}, "canonical_name"),
        ({"canonical_name": 7}, "canonical_name"),
        ({"description": ["a", "list"]}, "description"),
    ],
)
def test_entity_patch_bad_input_is_400_naming_the_field_and_writes_nothing(
    curator_api, payload, field
):
    pg, _ = entity_store(name="PostgreSQL", type="database", description="An RDBMS")
    before = _snapshot()
    response = curator_api.patch(f"/api/v1/entities/{pg.pk}/", payload, format="json")
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["field"] == field
    assert _snapshot() == before


@pytest.mark.parametrize("alias", ["", "   ", None])
def test_alias_post_without_a_name_is_400_and_writes_nothing(curator_api, alias):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    response = curator_api.post(
        f"/api/v1/entities/{pg.pk}/aliases/", {"alias": alias}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["error"]["field"] == "alias"
    assert not Alias.objects.filter(entity=pg).exists()


def test_alias_of_an_unknown_entity_is_404_and_writes_nothing(curator_api):
    response = curator_api.post("/api/v1/entities/nope/aliases/", {"alias": "X"}, format="json")
    assert response.status_code == 404 and "error" in response.json()
    assert not Alias.objects.exists()


def test_a_reader_cannot_merge_or_undo(api, curator_api, graph):
    body = {"survivor": graph["survivor"].pk, "duplicates": [graph["dup"].pk]}
    before = _snapshot()
    assert api.post(MERGE, body, format="json").status_code == 403
    assert _snapshot() == before
    merge = curator_api.post(MERGE, body, format="json").json()["merge"]
    assert api.post(f"/api/v1/merges/{merge['id']}/undo", format="json").status_code == 403
    assert not Entity.objects.filter(pk=graph["dup"].pk).exists()


def test_once_the_survivor_is_deleted_old_ids_and_names_answer_no_entity(
    api, curator_api, curator, graph
):
    survivor, dup = graph["survivor"], graph["dup"]
    entity_merge(survivor=survivor, duplicates=[dup], actor=curator)
    assert api.get(f"/api/v1/entities/{dup.pk}/").status_code == 301
    response = curator_api.get(f"/api/v1/entities/{survivor.pk}/")
    assert response.status_code == 200
    entity_delete(entity=Entity.objects.get(pk=survivor.pk), actor=curator)
    response = api.get(f"/api/v1/entities/{dup.pk}/")
    assert response.status_code == 404 and "error" in response.json()
    found = api.get("/api/v1/entities/lookup", {"name": "Maggie Okonkwo"}).json()
    assert found["match"] == "none" and found["entity"] is None


def test_a_duplicate_already_named_by_a_survivor_alias_is_undone_right_after(curator):
    keeper, _ = entity_store(name="Ada Lovelace", type="person")
    alias_add(entity=keeper, alias="A. Lovelace")
    twin, _ = entity_store(name="A. Lovelace", type="person")
    before = _snapshot()
    merge = entity_merge(survivor=keeper, duplicates=[twin], actor=curator).merge
    entity_merge_undo(merge=merge, actor=curator)
    assert _snapshot() == before
    assert Entity.objects.get(pk=twin.pk).canonical_name == "A. Lovelace"
