"""Any book, any second version of it, then its deletion (Hypothesis): after each write
the mentions point at the words they name inside chunks of their own book, and once the
book is deleted nothing it brought is left: no chunk, no mention, no entity."""

from __future__ import annotations

import pytest
from django.db.models import F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from books.models import Book, Chunk, Mention
from books.services import book_delete, book_ingest
from entities.models import Alias, Entity

pytestmark = pytest.mark.django_db

NAMES = ["Box Kite", "Kestrel Light", "Orla Brenn", "Port Varrow", "Tamsin Island", "Reel"]
SENTENCES = [
    "{a} stands beside {b}.",
    "The {a} was built by {b}.",
    "Keepers of {a} logged every ship.",
    "{a} is a granite tower on the north mole.",
    "Nobody lives there.",
]


@st.composite
def books(draw) -> bytes:
    sections = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    parts = ["# Harbour notes\n"]
    for heading in sections:
        parts.append(f"## {heading}\n")
        for template in draw(st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=3)):
            a, b = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
            parts.append(template.format(a=a, b=b))
        parts.append("")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(parts).encode()


def consistent() -> None:
    assert not Mention.objects.exclude(book_id=F("chunk__book_id")).exists()
    for mention in Mention.objects.select_related("chunk"):
        chunk = mention.chunk
        offset = mention.start - chunk.start
        assert chunk.text[offset : offset + len(mention.surface)] == mention.surface
    for book in Book.objects.all():
        assert Chunk.objects.filter(book=book).count() == book.chunk_count


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=books(), second=books())
def test_a_book_its_next_version_and_its_deletion_leave_nothing_stale(first, second):
    try:
        one = book_ingest(data=first, filename="harbour.md", embed=False)
        consistent()
        two = book_ingest(data=second, filename="harbour.md", embed=False)
        assert two.book.pk == one.book.pk
        assert two.action == ("unchanged" if first == second else "replaced")
        consistent()
        named = set(Mention.objects.values_list("entity_id", flat=True))
        assert set(Entity.objects.values_list("pk", flat=True)) == named  # no orphan
        book_delete(book=two.book)
        assert not Chunk.objects.exists() and not Mention.objects.exists()
        assert not Entity.objects.exists() and not Alias.objects.exists()
    finally:
        Book.objects.all().delete()
        Entity.objects.all().delete()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(harbour=books(), island=books())
def test_deleting_one_of_two_books_keeps_exactly_what_the_other_still_names(harbour, island):
    try:
        kept = book_ingest(data=harbour, filename="harbour.md", embed=False).book
        gone = book_ingest(data=island, filename="island.md", embed=False).book
        still_named = set(Mention.objects.filter(book=kept).values_list("entity_id", flat=True))
        before = set(Entity.objects.values_list("pk", flat=True))
        summary = book_delete(book=gone)
        consistent()
        assert set(Entity.objects.values_list("pk", flat=True)) == still_named
        assert summary["entities_removed"] == len(before - still_named)
        assert set(Mention.objects.values_list("book_id", flat=True)) <= {kept.pk}
    finally:
        Book.objects.all().delete()
        Entity.objects.all().delete()
