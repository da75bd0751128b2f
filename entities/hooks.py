"""Where other apps plug into the entity graph's writes, by name and by type.

The entity graph never imports the apps that react to it (vectors, integrity, books, the
graph of relations). Each of them registers its callbacks here from its ``ready()``, and
the write services call the ``*_fire``/query functions below. A reader looking for "what
happens when a fact is saved" finds every registration by searching for ``on_fact_saved``.

Callbacks of the ``*_saved`` kinds run after the surrounding transaction commits, so a
failing or slow reaction never undoes or delays the write that caused it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from django.db import transaction

if TYPE_CHECKING:
    from .models import Fact

FactAction = Literal["created", "confirmed", "updated", "deleted"]
# (fact id, action) after commit.
FactSavedHook = Callable[[int, FactAction], None]
# (entity ids) after commit: created, renamed, retyped, aliases or description changed,
# deleted. Bulk writes (book ingestion, garbage collection) pass many ids in one call.
EntitySavedHook = Callable[[list[str]], None]
# (entity ids) -> the subset still referred to by the registering app (books: mentions).
EntityReferrersHook = Callable[[list[str]], set[str]]
# (fact text, normalised text) -> an existing fact that says the same, or None.
DuplicateFinder = Callable[[str, str], "Fact | None"]
# (entity ids, most per entity) -> passages naming them, as (passage id, entity id,
# weight, label) rows: the graph's Personalized PageRank walks through them (books: chunks).
PassageLinks = Callable[[list[str], int], list[tuple[int, str, float, str]]]
# (merged-away entity id, surviving entity id) after commit: move what pointed at the first.
EntitiesMergedHook = Callable[[str, str], None]

_fact_saved: list[FactSavedHook] = []
_entity_saved: list[EntitySavedHook] = []
_entity_referrers: list[EntityReferrersHook] = []
_duplicate_finders: list[DuplicateFinder] = []
_entities_merged: list[EntitiesMergedHook] = []
_passage_links: list[PassageLinks] = []


def _register(registry: list, hook: Callable) -> Callable:
    if hook not in registry:
        registry.append(hook)
    return hook


# --- registration (call from an AppConfig.ready()) -----------------------------------------


def on_fact_saved(hook: FactSavedHook) -> FactSavedHook:
    """Run ``hook(fact_id, action)`` after a fact is created, confirmed, updated or deleted."""
    return _register(_fact_saved, hook)


def on_entity_saved(hook: EntitySavedHook) -> EntitySavedHook:
    """Run ``hook(entity_ids)`` after entities or their aliases change, or are deleted."""
    return _register(_entity_saved, hook)


def entity_referrers(hook: EntityReferrersHook) -> EntityReferrersHook:
    """Tell garbage collection which entities the registering app still refers to."""
    return _register(_entity_referrers, hook)


def duplicate_finder(hook: DuplicateFinder) -> DuplicateFinder:
    """Widen ``fact_store``'s synchronous duplicate check (after the exact-text match)."""
    return _register(_duplicate_finders, hook)


def on_entities_merged(hook: EntitiesMergedHook) -> EntitiesMergedHook:
    """Run ``hook(source_id, target_id)`` after entity ``source_id`` merged into
    ``target_id`` (the graph moves its edges)."""
    return _register(_entities_merged, hook)


def passage_links(hook: PassageLinks) -> PassageLinks:
    """Offer passages (book chunks) that name entities to the graph's PageRank."""
    return _register(_passage_links, hook)


# --- calls made by entities.services ------------------------------------------------------


def fact_saved_fire(fact_id: int, action: FactAction) -> None:
    for hook in list(_fact_saved):
        transaction.on_commit(lambda h=hook: h(fact_id, action))


def entity_saved_fire(entity_id: str) -> None:
    entities_saved_fire([entity_id])


def entities_saved_fire(entity_ids: list[str]) -> None:
    ids = list(entity_ids)
    for hook in list(_entity_saved):
        transaction.on_commit(lambda h=hook: h(ids))


def entities_merged_fire(source_id: str, target_id: str) -> None:
    for hook in list(_entities_merged):
        transaction.on_commit(lambda h=hook: h(source_id, target_id))


def entities_referred(entity_ids: Iterable[str]) -> set[str]:
    """The ids among ``entity_ids`` that some app still refers to."""
    ids = list(entity_ids)
    referred: set[str] = set()
    for hook in list(_entity_referrers):
        if not ids:
            break
        found = hook(ids)
        referred |= found
        ids = [i for i in ids if i not in found]
    return referred


def passages_of(entity_ids: list[str], per_entity: int) -> list[tuple[int, str, float, str]]:
    """Every registered app's passages naming these entities (at most ``per_entity``
    each, per app)."""
    rows: list[tuple[int, str, float, str]] = []
    for hook in list(_passage_links):
        rows.extend(hook(list(entity_ids), per_entity))
    return rows


def duplicate_finders() -> list[DuplicateFinder]:
    return list(_duplicate_finders)


class suspended:
    """Switch off the fact-saved hooks inside a block (benchmarks timing the bare write)."""

    def __enter__(self) -> None:
        self._saved = list(_fact_saved)
        _fact_saved.clear()

    def __exit__(self, *exc: object) -> None:
        _fact_saved[:] = self._saved
