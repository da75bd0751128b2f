"""The entity graph's kinds in the vectors room ("facts", "entities") and the hooks that
keep them in step with writes. Registered from ``EntitiesConfig.ready()``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgsite.vectors.index import Key, register_kind, register_model_kind
from kgsite.vectors.service import similar_items, vector_changed

from .. import hooks
from ..models import Alias, Entity, Fact


def entity_text(name: str, entity_type: str, aliases: Iterable[str], description: str) -> str:
    """What an entity "says" for similarity: its names, type and description."""
    parts = [name]
    others = [a for a in aliases if a]
    if others:
        parts.append(f"({', '.join(others)})")
    if entity_type:
        parts.append(f"[{entity_type.replace('_', ' ')}]")
    text = " ".join(parts)
    return f"{text}: {description}" if description else text


def _entity_rows(ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:
    qs = Entity.objects.order_by("pk")
    aliases = Alias.objects.order_by("alias_norm")
    if ids is not None:
        qs = qs.filter(pk__in=list(ids))
        aliases = aliases.filter(entity_id__in=list(ids))
    by_entity: dict[str, list[str]] = {}
    for entity_id, alias in aliases.values_list("entity_id", "alias"):
        by_entity.setdefault(entity_id, []).append(alias)
    for pk, name, entity_type, description in qs.values_list(
        "pk", "canonical_name", "type", "description"
    ):
        yield pk, entity_text(name, entity_type, by_entity.get(pk, ()), description)


def _entity_keys() -> Iterable[Key]:
    return Entity.objects.order_by().values_list("pk", flat=True)


def _entity_count() -> int:
    return Entity.objects.count()


def fact_saved_index(fact_id: int, action: str) -> None:
    """Index the fact as it now stands ("created", "updated") or drop it ("deleted").
    A "confirmed" or "relinked" save leaves the text alone."""
    if action not in ("confirmed", "relinked"):
        vector_changed("facts", [fact_id])


def entity_saved_index(entity_ids: list[str]) -> None:
    """Names, aliases or description changed, or the entities were deleted."""
    vector_changed("entities", entity_ids)


def kinds_register() -> None:
    register_model_kind("facts", Fact)
    register_kind("entities", _entity_rows, keys=_entity_keys, count=_entity_count, key_type=str)
    hooks.on_fact_saved(fact_saved_index)
    hooks.on_entity_saved(entity_saved_index)


def similar_facts(text: str, k: int, min_score: float = 0.0) -> list[tuple[int, float]]:
    """Facts of any status closest in meaning to ``text`` (integrity's duplicate check)."""
    return [(int(key), score) for key, score in similar_items("facts", text, k, min_score)]
