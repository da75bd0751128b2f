"""Deleting one of two books that share an entity: what a reader of the other book still
sees (its mentions, its passages in search, its related chunks) and what is gone."""

from __future__ import annotations

import pytest

from books.models import Chunk
from entities.models import Entity

CONDITIONS = "15-appendix-ph-a-conditions.md"
SPELLS = "srd-spells-excerpt.md"


@pytest.fixture
def deleted(curator_api, ingest, vector_dir):
    gone = ingest(CONDITIONS).book
    kept = ingest(SPELLS).book
    blinded = Entity.objects.get(name_norm="blinded", type="condition")
    chunk_ids = set(Chunk.objects.filter(book=gone).values_list("pk", flat=True))
    response = curator_api.delete(f"/api/v1/books/{gone.pk}/")
    assert response.status_code == 200
    return {
        "gone": gone,
        "kept": kept,
        "blinded": blinded,
        "chunk_ids": chunk_ids,
        **response.json(),
    }


def test_the_summary_counts_what_went(deleted):
    assert deleted["book_id"] == deleted["gone"].pk
    assert deleted["chunks"] == len(deleted["chunk_ids"]) > 0
    # An entity the other book still mentions is kept; the rest go with the book.
    assert deleted["entities_kept"] > 0 and deleted["entities_removed"] > 0
    assert Entity.objects.filter(pk=deleted["blinded"].pk).exists()


def test_the_other_books_mentions_remain_and_the_deleted_ones_go(api, deleted):
    blinded = deleted["blinded"]
    mentions = api.get(f"/api/v1/entities/{blinded.pk}/mentions").json()["results"]
    assert mentions and {m["book"]["id"] for m in mentions} == {deleted["kept"].pk}
    books = api.get(f"/api/v1/entities/{blinded.pk}/books").json()
    assert [b["book"]["id"] for b in books] == [deleted["kept"].pk]


def test_search_and_related_chunks_no_longer_offer_the_deleted_book(api, deleted):
    phrase = "a blinded creature can't see and automatically fails any check"
    response = api.get("/api/v1/chunks/search", {"q": phrase, "k": 10}).json()
    assert response["results"] and response["index_complete"]
    assert {r["book"]["id"] for r in response["results"]} == {deleted["kept"].pk}
    for chunk in Chunk.objects.filter(book=deleted["kept"])[:5]:
        related = api.get(f"/api/v1/chunks/{chunk.pk}/related").json()
        assert all(r["book"]["id"] != deleted["gone"].pk for r in related)


def test_the_deleted_books_pages_and_routes_are_404(api, curator_api, deleted, curator):
    from django.test import Client

    gone = deleted["gone"]
    chunk = min(deleted["chunk_ids"])
    assert curator_api.delete(f"/api/v1/books/{gone.pk}/").status_code == 404
    assert api.get(f"/api/v1/books/{gone.pk}/").status_code == 404
    assert api.get(f"/api/v1/chunks/{chunk}/related").status_code == 404
    page = Client()
    page.force_login(curator)
    assert page.get(f"/books/{gone.pk}/").status_code == 404
    assert page.get(f"/books/chunks/{chunk}/").status_code == 404
    listing = page.get("/books/").content.decode()
    assert deleted["title"] not in listing and deleted["kept"].title in listing


@pytest.mark.parametrize("which", ["gone", "never"])
def test_a_mentions_filter_on_a_book_that_is_not_there_is_a_400_naming_it(api, deleted, which):
    # As the chunk search says: an empty list would read as "not mentioned in that book".
    book_id = deleted["gone"].pk if which == "gone" else 987654
    url = f"/api/v1/entities/{deleted['blinded'].pk}/mentions"
    response = api.get(url, {"book": book_id})
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid",
        "message": f"No book {book_id}.",
        "field": "book",
    }
    search = api.get("/api/v1/chunks/search", {"q": "blinded", "book": book_id})
    assert search.status_code == 400 and search.json()["error"]["field"] == "book"
    kept = api.get(url, {"book": deleted["kept"].pk})
    assert kept.status_code == 200 and kept.json()["results"]
