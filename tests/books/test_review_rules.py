"""The candidate review queue as rules over generated books.

A book proposes the entities its extractor found; a curator accepts, retypes or rejects
them in bulk, and a rejection can be undone. For generated reference books (fixed
seeds) and any choice of candidates:

* rejecting removes exactly the chosen candidates and their mentions, nothing else;
* undoing the rejection restores every row as it was (same ids, names, evidence,
  aliases and mentions), and it cannot be undone twice;
* accepting takes candidates out of the queue and keeps them; an accepted entity can
  no longer be rejected, and the refusal changes nothing;
* retyping gives the type, confirms, and keeps the mentions pointing at the entity.
"""

from __future__ import annotations

import random

import pytest

from books.models import Mention
from books.review import (
    candidate_count,
    candidates_accept,
    candidates_pending,
    candidates_reject,
    candidates_reject_undo,
    candidates_reject_undoable,
    candidates_retype,
)
from books.services import book_ingest
from entities.models import Alias, Entity
from kgsite.errors import DomainError

from .test_ingest_rules import NAMES, book_text

pytestmark = pytest.mark.django_db
ENTITY_FIELDS = ("id", "canonical_name", "name_norm", "type", "candidate", "evidence", "curated")
MENTION_FIELDS = ("id", "entity_id", "chunk_id", "mention_type", "surface", "start", "end")


def shelf(seed: int) -> list[str]:
    """Ingest a generated book; the ids of the candidates it proposed."""
    rng = random.Random(seed)
    data = book_text(rng.sample(NAMES, k=6), rng)
    book_ingest(data=data, filename="field-guide.md", extractor="offline", embed=False)
    pending = list(candidates_pending().values_list("pk", flat=True))
    assert len(pending) >= 3, "the generated book proposed too few candidates"
    return pending


def snapshot() -> dict:
    return {
        "entities": list(Entity.objects.order_by("pk").values_list(*ENTITY_FIELDS)),
        "aliases": list(Alias.objects.order_by("pk").values_list("entity_id", "alias", "manual")),
        "mentions": list(Mention.objects.order_by("pk").values_list(*MENTION_FIELDS)),
    }


@pytest.mark.parametrize("seed", [2501, 2502, 2503])
def test_reject_removes_exactly_the_chosen_and_undo_restores_every_row(seed: int) -> None:
    pending = shelf(seed)
    chosen = random.Random(seed).sample(pending, k=len(pending) // 2 + 1)
    before = snapshot()

    entry = candidates_reject(entity_ids=chosen, actor=None)

    after = snapshot()
    assert not Entity.objects.filter(pk__in=chosen).exists()
    assert [row for row in before["entities"] if row[0] not in chosen] == after["entities"]
    assert [m for m in before["mentions"] if m[1] not in chosen] == after["mentions"]
    assert candidate_count() == len(pending) - len(chosen)
    assert candidates_reject_undoable(entry)

    candidates_reject_undo(entry=entry, actor=None)

    assert snapshot() == before
    assert not candidates_reject_undoable(entry)
    with pytest.raises(DomainError):
        candidates_reject_undo(entry=entry, actor=None)
    assert snapshot() == before


def test_accepted_candidates_leave_the_queue_and_cannot_be_rejected() -> None:
    pending = shelf(2504)
    accepted, rest = pending[:2], pending[2:]
    assert candidates_accept(entity_ids=accepted, actor=None) == len(accepted)
    assert set(candidates_pending().values_list("pk", flat=True)) == set(rest)
    assert not Entity.objects.filter(pk__in=accepted, candidate=True).exists()
    before = snapshot()
    with pytest.raises(DomainError):
        candidates_reject(entity_ids=[accepted[0], rest[0]], actor=None)
    assert snapshot() == before


def test_an_accepted_candidate_outlives_the_book_that_proposed_it() -> None:
    from books.models import Book
    from books.services import book_delete

    pending = shelf(2506)
    accepted, rest = pending[:1], pending[1:]
    candidates_accept(entity_ids=accepted, actor=None)
    book_delete(book=Book.objects.get(), actor=None)
    assert Entity.objects.filter(pk__in=accepted).count() == 1
    assert not Entity.objects.filter(pk__in=rest).exists()


def test_retyped_candidates_keep_their_mentions() -> None:
    pending = shelf(2505)
    chosen = pending[:2]
    mentions = {pk: Mention.objects.filter(entity_id=pk).count() for pk in chosen}
    assert candidates_retype(entity_ids=chosen, type="Marsh Plant", actor=None) == 2
    for pk in chosen:
        entity = Entity.objects.get(pk=pk)
        assert (entity.type, entity.candidate) == ("marsh_plant", False)
        assert Mention.objects.filter(entity_id=pk).count() == mentions[pk]
    assert not candidates_pending(type="marsh_plant").exists()


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: candidates_reject(entity_ids=[], actor=None), "ids"),
        (lambda: candidates_accept(entity_ids=["", ""], actor=None), "ids"),
        (lambda: candidates_retype(entity_ids=["x"], type="  ", actor=None), "type"),
    ],
)
def test_an_empty_choice_names_its_field(call, field) -> None:
    with pytest.raises(DomainError) as info:
        call()
    assert info.value.field == field


def test_a_rejection_is_not_undone_once_the_book_that_proposed_them_is_gone() -> None:
    """Undo would bring back candidates no book mentions any more: entities the book's
    deletion would have collected, listed for review with no evidence."""
    from books.models import Book
    from books.services import book_delete

    pending = shelf(2507)
    entry = candidates_reject(entity_ids=pending[:2], actor=None)
    book_delete(book=Book.objects.get(), actor=None)
    assert not candidates_reject_undoable(entry)
    with pytest.raises(DomainError, match="deleted or re-ingested"):
        candidates_reject_undo(entry=entry, actor=None)
    assert not Entity.objects.exists()
