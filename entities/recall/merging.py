"""Recall's part in entity merges: episodes that name a duplicate and facts imported from
an entity memory (``ExternalFactLink``) follow it to the survivor, and come back on undo.
Registered as a ``hooks.MergeMover`` from ``EntitiesConfig.ready()``."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_noop

from kgsite.errors import Wording

from ..models import ExternalFactLink
from .models import Episode

EpisodeEntity = Episode.entities.through


def recall_refs_count(duplicate_ids: list[str]) -> int:
    return (
        EpisodeEntity.objects.filter(entity_id__in=duplicate_ids).count()
        + ExternalFactLink.objects.filter(entity_id__in=duplicate_ids).count()
    )


def recall_refs_move(survivor_id: str, duplicate_ids: list[str]) -> dict[str, Any]:
    """Point episodes and external fact ids at the survivor; say exactly what changed."""
    episode_links = list(
        EpisodeEntity.objects.filter(entity_id__in=duplicate_ids).values_list(
            "episode_id", "entity_id"
        )
    )
    had = set(
        EpisodeEntity.objects.filter(entity_id=survivor_id).values_list("episode_id", flat=True)
    )
    added = sorted({episode for episode, _e in episode_links} - had)
    EpisodeEntity.objects.bulk_create(
        [EpisodeEntity(episode_id=episode, entity_id=survivor_id) for episode in added]
    )
    moved, dropped = [], []
    taken = set(
        ExternalFactLink.objects.filter(entity_id=survivor_id).values_list("store", "external_id")
    )
    for link in ExternalFactLink.objects.filter(entity_id__in=duplicate_ids).order_by("pk"):
        key = (link.store, link.external_id)
        if key in taken:  # the survivor already holds this id: the duplicate's row goes
            dropped.append(
                {
                    "store": link.store,
                    "external_id": link.external_id,
                    "entity_id": link.entity_id,
                    "fact_id": link.fact_id,
                }
            )
            link.delete()
        else:
            taken.add(key)
            moved.append([link.pk, link.entity_id])
            ExternalFactLink.objects.filter(pk=link.pk).update(entity_id=survivor_id)
    return {
        "episode_links": episode_links,
        "episodes_added": added,
        "external_moved": moved,
        "external_dropped": dropped,
    }


def recall_refs_problems(
    survivor_id: str, duplicate_ids: list[str], payload: dict[str, Any]
) -> list[str]:
    moved = dict(payload.get("external_moved", []))
    still = set(
        ExternalFactLink.objects.filter(pk__in=list(moved), entity_id=survivor_id).values_list(
            "pk", flat=True
        )
    )
    return [
        Wording(
            gettext_noop("imported fact reference %(id)s no longer points to the survivor"),
            {"id": pk},
        )
        for pk in sorted(moved)
        if pk not in still
    ]


def recall_refs_undo(survivor_id: str, duplicate_ids: list[str], payload: dict[str, Any]) -> None:
    EpisodeEntity.objects.filter(
        entity_id=survivor_id, episode_id__in=payload.get("episodes_added", [])
    ).delete()
    EpisodeEntity.objects.bulk_create(
        [
            EpisodeEntity(episode_id=episode, entity_id=entity)
            for episode, entity in payload.get("episode_links", [])
        ],
        ignore_conflicts=True,
    )
    for pk, entity_id in payload.get("external_moved", []):
        ExternalFactLink.objects.filter(pk=pk).update(entity_id=entity_id)
    ExternalFactLink.objects.bulk_create(
        [ExternalFactLink(**row) for row in payload.get("external_dropped", [])]
    )
