"""Merges the entity page must refuse, saying why and writing nothing: an entity into
itself, a duplicate merged away meanwhile, a survivor merged away, a reader's request."""

from __future__ import annotations

import pytest
from django.urls import reverse

from entities.models import Alias, Entity, EntityFact, EntityMerge
from entities.services import alias_add, entity_merge, entity_store, fact_store

from .conftest import HTMX

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(curator):
    grace, _ = entity_store(name="Grace Hopper", type="person")
    alias_add(entity=grace, alias="Amazing Grace")
    hopper, _ = entity_store(name="G. M. Hopper", type="person")
    alias_add(entity=hopper, alias="Rear Admiral Hopper")
    fact_store(text="G. M. Hopper wrote the first compiler.", entities=[hopper])
    third, _ = entity_store(name="Grace B. Murray", type="person")
    return grace, hopper, third


def _state() -> tuple:
    return (
        sorted(Entity.objects.values_list("pk", "canonical_name")),
        sorted(Alias.objects.values_list("entity_id", "alias")),
        sorted(EntityFact.objects.values_list("entity_id", "fact_id", "role")),
        EntityMerge.objects.count(),
    )


@pytest.mark.parametrize("step", ["entities:merge-preview", "entities:merge"])
def test_an_entity_cannot_be_merged_into_itself(curator_client, people, step):
    grace = people[0]
    before = _state()
    response = curator_client.post(
        reverse(step, args=[grace.pk]), {"duplicates": [grace.pk]}, **HTMX
    )
    assert response.status_code == 400
    assert b"cannot also be a duplicate" in response.content
    assert b"Confirm merge" not in response.content
    assert _state() == before


@pytest.mark.parametrize("step", ["entities:merge-preview", "entities:merge"])
def test_a_duplicate_merged_away_meanwhile_is_refused(curator_client, curator, people, step):
    grace, hopper, third = people
    entity_merge(survivor=third, duplicates=[hopper], actor=curator)
    before = _state()
    response = curator_client.post(
        reverse(step, args=[grace.pk]), {"duplicates": [hopper.pk]}, **HTMX
    )
    assert response.status_code == 400
    assert b"no longer exists" in response.content
    assert _state() == before
    # What the other merge moved stays with its survivor.
    assert Alias.objects.filter(entity=third, alias="Rear Admiral Hopper").exists()


def test_a_survivor_merged_away_meanwhile_is_not_found(curator_client, curator, people):
    grace, hopper, third = people
    entity_merge(survivor=third, duplicates=[grace], actor=curator)
    before = _state()
    for step in ("entities:merge-preview", "entities:merge"):
        response = curator_client.post(
            reverse(step, args=[grace.pk]), {"duplicates": [hopper.pk]}, **HTMX
        )
        assert response.status_code == 404, step
    assert _state() == before and Entity.objects.filter(pk=hopper.pk).exists()


def test_a_stale_page_naming_one_duplicate_gone_merges_none_of_them(
    curator_client, curator, people
):
    """Two duplicates chosen, one merged elsewhere before confirming: nothing merges,
    so the curator is not surprised by a half-done merge."""
    grace, hopper, third = people
    entity_merge(survivor=third, duplicates=[hopper], actor=curator)
    response = curator_client.post(
        reverse("entities:merge", args=[grace.pk]),
        {"duplicates": [hopper.pk, third.pk]},
        **HTMX,
    )
    assert response.status_code == 400
    assert Entity.objects.filter(pk=third.pk).exists()
    assert EntityMerge.objects.count() == 1


@pytest.mark.parametrize("step", ["entities:merge-preview", "entities:merge"])
def test_a_reader_can_neither_preview_nor_merge(reader_client, people, step):
    grace, hopper, _third = people
    before = _state()
    response = reader_client.post(
        reverse(step, args=[grace.pk]), {"duplicates": [hopper.pk]}, **HTMX
    )
    assert response.status_code == 403
    assert b"Rear Admiral Hopper" not in response.content
    assert _state() == before


def test_undoing_a_merge_is_refused_to_a_reader(reader_client, curator, people):
    grace, hopper, _third = people
    merge = entity_merge(survivor=grace, duplicates=[hopper], actor=curator).merge
    response = reader_client.post(reverse("entities:merge-undo", args=[merge.pk]))
    assert response.status_code == 403
    assert not Entity.objects.filter(pk=hopper.pk).exists()
    assert EntityMerge.objects.get(pk=merge.pk).undone_at is None
