"""Merging entities keeps recall's references: an episode that named a duplicate names
the survivor, an imported fact id moves with it, and undo puts both back."""

from __future__ import annotations

import pytest

from entities.models import ExternalFactLink
from entities.recall.models import Episode
from entities.services import entity_merge, entity_merge_undo, entity_store


@pytest.mark.django_db(transaction=True)
def test_merge_moves_episode_and_imported_fact_links_and_undo_restores_them(curator):
    survivor, _ = entity_store(name="Postgres", type="software")
    dup, _ = entity_store(name="PostgreSQL database", type="software")
    episode = Episode.objects.create(narrative="Tuned the PostgreSQL database vacuum.")
    episode.entities.add(dup)
    ExternalFactLink.objects.create(store="old.sqlite", external_id="41", entity=dup)
    ExternalFactLink.objects.create(store="old.sqlite", external_id="7", entity=survivor)
    ExternalFactLink.objects.create(store="old.sqlite", external_id="7", entity=dup)

    preview = entity_merge(survivor=survivor, duplicates=[dup], actor=curator, preview=True)
    assert preview.plan.moves["recall"] == 3

    merge = entity_merge(survivor=survivor, duplicates=[dup], actor=curator).merge
    assert list(episode.entities.values_list("pk", flat=True)) == [survivor.pk]
    assert sorted(
        ExternalFactLink.objects.filter(entity=survivor).values_list("external_id", flat=True)
    ) == ["41", "7"]

    entity_merge_undo(merge=merge, actor=curator)
    assert list(episode.entities.values_list("pk", flat=True)) == [dup.pk]
    links = sorted(ExternalFactLink.objects.values_list("external_id", "entity_id"))
    assert links == sorted([("41", dup.pk), ("7", survivor.pk), ("7", dup.pk)])
