"""Imported entity ids in entity merges: a duplicate's source ids follow it to the
survivor (so lookup by them still answers) and come back on undo. Registered as a
``hooks.MergeMover`` from ``EntitiesConfig.ready()``."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_noop

from kgsite.errors import Wording

from ..models import ExternalEntityId


def source_ids_count(duplicate_ids: list[str]) -> int:
    return ExternalEntityId.objects.filter(entity_id__in=duplicate_ids).count()


def source_ids_move(survivor_id: str, duplicate_ids: list[str]) -> dict[str, Any]:
    rows = ExternalEntityId.objects.filter(entity_id__in=duplicate_ids).order_by("pk")
    moved = [[pk, entity_id] for pk, entity_id in rows.values_list("pk", "entity_id")]
    ExternalEntityId.objects.filter(pk__in=[pk for pk, _ in moved]).update(entity_id=survivor_id)
    return {"moved": moved}


def source_ids_problems(
    survivor_id: str, duplicate_ids: list[str], payload: dict[str, Any]
) -> list[str]:
    moved = [pk for pk, _ in payload.get("moved", [])]
    still = set(
        ExternalEntityId.objects.filter(pk__in=moved, entity_id=survivor_id).values_list(
            "pk", flat=True
        )
    )
    return [
        Wording(
            gettext_noop("imported entity id %(id)s no longer points to the survivor"), {"id": pk}
        )
        for pk in moved
        if pk not in still
    ]


def source_ids_undo(survivor_id: str, duplicate_ids: list[str], payload: dict[str, Any]) -> None:
    for pk, entity_id in payload.get("moved", []):
        ExternalEntityId.objects.filter(pk=pk).update(entity_id=entity_id)
