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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from django.db import transaction

if TYPE_CHECKING:
    from .models import Fact

# "relinked": the fact's text is unchanged but its entities changed (a merge moved it
# from a duplicate to the survivor), so it may now repeat or contradict the survivor's.
FactAction = Literal["created", "confirmed", "updated", "deleted", "relinked"]
# (fact id, action) after commit.
FactSavedHook = Callable[[int, FactAction], None]
# (entity ids) after commit: created, renamed, retyped, aliases or description changed,
# deleted. Bulk writes (book ingestion, garbage collection) pass many ids in one call.
EntitySavedHook = Callable[[list[str]], None]
# (entity ids) -> the subset still referred to by the registering app (books: mentions).
EntityReferrersHook = Callable[[list[str]], set[str]]
# (fact text, normalised text, *, scope=, kind=, named=) -> an active fact of that
# project scope and kind that says the same, or None. ``named`` (services.NamedEntities
# or None) lists the entities the new statement names: a fact about others never counts.
DuplicateFinder = Callable[..., "Fact | None"]
# (query, *, scope, all_scopes, k) -> [(fact id, score)] from the graph (personalised
# PageRank); registered by the graph room once it exists. Recall mixes its answer in.
GraphRetriever = Callable[..., list[tuple[int, float]]]
# (*, scopes) -> pending HIGH notifications of that view of the memory as
# [{"id", "title", "link", "created_at"}], and the chat digest as a dict; registered by
# the notifications app (entities never imports it).
NoticesProvider = Callable[..., list[dict]]
DigestProvider = Callable[..., dict]

# (entity id) -> the places that mention it, grouped by book, defining places first:
# [{"book_id", "title", "mentions": [{"chunk_id", "ordinal", "heading", "mention_type",
# "surface", "context"}]}]. Books registers it; the entity page shows it.
MentionReader = Callable[[str], list[dict[str, Any]]]


@dataclass(frozen=True)
class MergeMover:
    """How an app that refers to entities takes part in a merge and its undo.

    ``entity_merge`` calls ``move(survivor_id, duplicate_ids)`` inside its transaction,
    before the duplicates are deleted: the app points its rows at the survivor and
    returns a JSON payload describing exactly what it changed. ``entity_merge_undo``
    calls ``problems(survivor_id, duplicate_ids, payload)`` first (a list of sentences
    naming what changed since, making exact restoration impossible; empty if none) and
    then ``undo(...)`` once the duplicates exist again, inside the undo transaction.
    ``count(duplicate_ids)`` is what the preview shows under ``moves[name]``.
    """

    name: str
    count: Callable[[list[str]], int]
    move: Callable[[str, list[str]], dict[str, Any]]
    problems: Callable[[str, list[str], dict[str, Any]], list[str]]
    undo: Callable[[str, list[str], dict[str, Any]], None]


# (entity ids, most per entity) -> passages naming them, as (passage id, entity id,
# weight, label) rows: the graph's Personalized PageRank walks through them (books: chunks).
PassageLinks = Callable[[list[str], int], list[tuple[int, str, float, str]]]

_fact_saved: list[FactSavedHook] = []
_entity_saved: list[EntitySavedHook] = []
_entity_referrers: list[EntityReferrersHook] = []
_duplicate_finders: list[DuplicateFinder] = []
# (stored text, new text) -> {"contradiction", "duplicate", "compatible": probabilities,
# "blocked": the duplicate guard forbids folding, "label": the verdict}, or None.
PairJudge = Callable[[str, str], "dict[str, Any] | None"]
_pair_judges: list[PairJudge] = []
_merge_movers: list[MergeMover] = []
_entities_ingested: list[EntitySavedHook] = []
_mention_readers: list[MentionReader] = []
_graph_retrievers: list[GraphRetriever] = []
_notices_providers: list[NoticesProvider] = []
_digest_providers: list[DigestProvider] = []
_passage_links: list[PassageLinks] = []
# (fact id, *, scopes) -> what another app knows of a fact, for its page, as
# [{"label", "url"}] (integrity: the contradictions it is part of and how each ended).
FactNotes = Callable[..., list[dict[str, str]]]
_fact_notes: list[FactNotes] = []


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
    """Widen ``fact_store``'s synchronous duplicate check (after the exact-text match).

    Called as ``hook(text, text_norm, scope=..., kind=..., named=...)``: only a fact of
    that scope and kind may be returned, and ``fact_find_duplicate`` drops one linked to
    other entities than ``named``. Recall's finding trigger asks the same finders."""
    return _register(_duplicate_finders, hook)


def pair_judge(hook: PairJudge) -> PairJudge:
    """Judge whether a new statement restates a stored one, whatever their cosine:
    recall's finding trigger asks it about the memories its retrieval finds (integrity:
    the pair model with the duplicate guard's consent)."""
    return _register(_pair_judges, hook)


def pair_judges() -> list[PairJudge]:
    return list(_pair_judges)


def on_entities_ingested(hook: EntitySavedHook) -> EntitySavedHook:
    """Run ``hook(entity_ids)`` after commit when a machine (book ingestion) created
    entities in bulk: the duplicate scan looks at them."""
    return _register(_entities_ingested, hook)


def merge_mover(mover: MergeMover) -> MergeMover:
    """Take part in entity merges and their undo (books: mentions)."""
    for existing in _merge_movers:
        if existing.name == mover.name:
            return existing
    _merge_movers.append(mover)
    return mover


def mention_reader(hook: MentionReader) -> MentionReader:
    """Supply the book mentions shown on an entity's page."""
    return _register(_mention_readers, hook)


def graph_retriever(hook: GraphRetriever) -> GraphRetriever:
    """Add graph retrieval (personalised PageRank) to free-query recall."""
    return _register(_graph_retrievers, hook)


def high_notices(hook: NoticesProvider) -> NoticesProvider:
    """Tell session-start recall which HIGH notifications are pending."""
    return _register(_notices_providers, hook)


def notification_digest(hook: DigestProvider) -> DigestProvider:
    """Give the MCP server's ``notifications_digest`` tool its answer."""
    return _register(_digest_providers, hook)


def passage_links(hook: PassageLinks) -> PassageLinks:
    """Offer passages (book chunks) that name entities to the graph's PageRank."""
    return _register(_passage_links, hook)


def fact_notes(hook: FactNotes) -> FactNotes:
    """Say on a fact's page what the registering app knows of it (why it ended)."""
    return _register(_fact_notes, hook)


def fact_notes_read(fact_id: int, *, scopes) -> list[dict[str, str]]:
    """Every registered app's notes on this fact, for a reader's view (``ScopeFilter``)."""
    notes: list[dict[str, str]] = []
    for hook in list(_fact_notes):
        notes += hook(fact_id, scopes=scopes)
    return notes


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


def entities_ingested_fire(entity_ids: list[str]) -> None:
    ids = list(entity_ids)
    for hook in list(_entities_ingested):
        transaction.on_commit(lambda h=hook: h(ids))


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


def merge_movers() -> list[MergeMover]:
    return list(_merge_movers)


def entity_mentions_read(entity_id: str) -> list[dict[str, Any]]:
    """Every registered reader's mention groups for this entity, in registration order."""
    groups: list[dict[str, Any]] = []
    for reader in list(_mention_readers):
        groups += reader(entity_id)
    return groups


def graph_retrievers() -> list[GraphRetriever]:
    return list(_graph_retrievers)


def high_notices_get(*, scopes=None) -> list[dict]:
    """Pending HIGH notices of the reader's view (``ScopeFilter``; None: global memory)."""
    notices: list[dict] = []
    for hook in list(_notices_providers):
        notices += hook(scopes=scopes)
    return notices


def digest_providers() -> list[DigestProvider]:
    return list(_digest_providers)


class suspended:
    """Switch off the fact-saved hooks inside a block (benchmarks timing the bare write)."""

    def __enter__(self) -> None:
        self._saved = list(_fact_saved)
        _fact_saved.clear()

    def __exit__(self, *exc: object) -> None:
        _fact_saved[:] = self._saved
