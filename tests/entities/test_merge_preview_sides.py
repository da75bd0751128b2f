"""The side-by-side merge preview (what a curator reads before confirming) shows
exactly what the merge then does: the aliases it says move end up on the survivor, the
ones it strikes through do not, every fact it lists follows the survivor, and a
duplicate's name is announced as a new alias only when it becomes one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from entities.models import Alias, EntityFact
from entities.previews import merge_sides
from entities.services import entity_merge, entity_store

pytestmark = pytest.mark.django_db


def _aliases(entity) -> set[str]:
    return set(Alias.objects.filter(entity=entity).values_list("alias", flat=True))


def _fact_ids(entity) -> set[int]:
    return set(EntityFact.objects.filter(entity=entity).values_list("fact_id", flat=True))


@pytest.fixture
def named_twice(graph):
    """A third duplicate whose name the survivor already carries as an alias."""
    twin, _ = entity_store(name="M. Okonkwo", type="place")
    return twin


def test_the_sides_announce_exactly_the_aliases_and_facts_the_merge_moves(
    graph, curator, named_twice
):
    survivor = graph["survivor"]
    duplicates = [graph["dup"], graph["other"], named_twice]
    plan = entity_merge(
        survivor=survivor, duplicates=duplicates, actor=curator, allow_cross_type=True, preview=True
    ).plan
    sides = merge_sides(plan)
    assert [s.entity.pk for s in sides] == [survivor.pk] + [d.pk for d in duplicates]
    assert sides[0].survivor and not any(s.survivor for s in sides[1:])
    moving = {a["alias"] for s in sides[1:] for a in s.aliases if a["why"] is None}
    struck = {a["alias"] for s in sides[1:] for a in s.aliases if a["why"]}
    assert moving == {"Mags", "Maggie the Builder"} and struck == {"M. Okonkwo"}
    announced = {s.entity.canonical_name for s in sides[1:] if s.name_added}
    listed = {f["id"] for s in sides for f in s.facts}
    shared = {f["id"] for s in sides[1:] for f in s.facts if f["shared"]}
    survivor_aliases = _aliases(survivor)
    assert {s.entity.pk: s.fact_count for s in sides} == {
        e.pk: len(_fact_ids(e)) for e in [survivor, *duplicates]
    }

    entity_merge(survivor=survivor, duplicates=duplicates, actor=curator, allow_cross_type=True)

    assert _aliases(survivor) == survivor_aliases | moving | announced
    assert announced == {"Maggie Okonkwo", "Okonkwo"}  # "M. Okonkwo" was already there
    assert listed <= _fact_ids(survivor)
    assert shared == {graph["facts"]["both"].pk, graph["facts"]["knows"].pk}
    for fact_id in shared:  # "already on both": one link on the survivor, not two
        assert EntityFact.objects.filter(entity=survivor, fact_id=fact_id).count() == 1


def test_a_name_the_survivor_already_carries_is_not_announced_as_a_new_alias(
    curator_client, graph, named_twice
):
    url = reverse("entities:merge-preview", args=[graph["survivor"].pk])
    response = curator_client.post(
        url, {"duplicates": [named_twice.pk], "allow_cross_type": "1"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200 and "Confirm merge" in html
    assert "“M. Okonkwo” becomes an alias" not in html
    assert "already names" in html
