"""A book title is checked at 512 characters as shown; its folded form (the book's
identity on re-ingest) can be longer ("ß" folds to "ss"). PostgreSQL refused such a
book with a DataError (a failed upload); the folded column must hold it."""

from __future__ import annotations

import pytest

from books.models import Book
from books.services import book_ingest
from kgsite.text import normalize

pytestmark = pytest.mark.django_db

TEXT = b"# Heading\n\nSome text about the streets of a town.\n"


def test_a_long_title_that_folds_longer_is_stored_and_replaced_by_its_folded_twin(vector_dir):
    title = " ".join(["Straße"] * 73)  # 510 characters, 583 once folded
    assert len(title) <= 512 < len(normalize(title))
    book_ingest(data=TEXT, filename="streets.md", title=title, extractor="offline")
    book = Book.objects.get()
    assert book.title == title
    assert book.title_norm == normalize(title)
    assert len(book.title_norm) <= Book._meta.get_field("title_norm").max_length

    result = book_ingest(
        data=TEXT + b"\nMore.\n",
        filename="streets.md",
        title=title.replace("Straße", "STRAẞE"),
        extractor="offline",
    )
    assert Book.objects.count() == 1
    assert (result.book.pk, result.action) == (book.pk, "replaced")
