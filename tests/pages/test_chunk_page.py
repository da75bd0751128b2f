"""A chunk's page: its text as written (never as markup), the entities it names with the
one it defines first, and the passages of other books about the same entities."""

from __future__ import annotations

import pytest

from books.models import Chunk, Mention
from books.services import book_ingest

pytestmark = pytest.mark.django_db

KITES = b"# Kites\n\n## Box kite\n\nThe Box kite flies in strong wind.\n"
SPOOLS = b"# Spools\n\n## Reel\n\nA Reel keeps the line of the Box kite.\n"


def _chunk(book, text: str) -> Chunk:
    return Chunk.objects.get(book=book, text__contains=text)


def test_a_chunk_shows_what_it_defines_and_where_else_it_is_named(curator_client):
    kites = book_ingest(data=KITES, filename="kites.md", embed=False).book
    spools = book_ingest(data=SPOOLS, filename="spools.md", embed=False).book
    defining = _chunk(kites, "strong wind")
    mention = Mention.objects.get(chunk=defining)
    html = curator_client.get(f"/books/chunks/{defining.pk}/").content.decode()
    assert f'href="/entities/{mention.entity_id}/"' in html
    assert 'class="tag defines"' in html
    other = _chunk(spools, "keeps the line")
    related = html.split("Related in other books")[1]
    assert f'href="/books/chunks/{other.pk}/"' in related and "spools #" in related
    assert f'href="/books/{kites.pk}/"' in html  # the crumbs lead back to the book
    back = curator_client.get(f"/books/chunks/{other.pk}/").content.decode()
    assert f'href="/books/chunks/{defining.pk}/"' in back.split("Related in other books")[1]


def test_a_chunk_naming_nothing_says_so(curator_client):
    book = book_ingest(data=b"# Notes\n\nnothing much here.\n", filename="notes.md", embed=False)
    chunk = Chunk.objects.get(book=book.book)
    html = curator_client.get(f"/books/chunks/{chunk.pk}/").content.decode()
    assert "No entities named here." in html and "None." in html


def test_markup_in_a_book_is_shown_as_text_never_run(curator_client, reader_client):
    data = (
        b"# Kites\n\n## Box kite\n\n<script>alert('kite')</script> "
        b'<img src=x onerror="alert(1)"> The Box kite flies.\n'
    )
    book = book_ingest(data=data, filename="kites.md", embed=False).book
    chunk = _chunk(book, "alert")
    for client in (curator_client, reader_client):
        html = client.get(f"/books/chunks/{chunk.pk}/").content.decode()
        assert "<script>alert(" not in html and "<img src=x" not in html
        assert "&lt;script&gt;alert(" in html
        page = client.get(f"/books/{book.pk}/").content.decode()
        assert "<script>alert(" not in page and "<img src=x" not in page
