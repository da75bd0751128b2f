"""The books API: upload, list, detail, delete, job progress, mentions, books, related."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from books.models import Book, Chunk
from entities.models import Entity

CONDITIONS = "15-appendix-ph-a-conditions.md"
SPELLS = "srd-spells-excerpt.md"


def upload(client, path, name=None, **fields):
    data = {"file": SimpleUploadedFile(name or path.name, path.read_bytes()), **fields}
    return client.post("/api/v1/books/", data, format="multipart")


@pytest.fixture
def two_books(ingest):
    ingest(CONDITIONS)
    ingest(SPELLS)
    return Entity.objects.get(name_norm="blinded", type="condition")


def test_upload_queues_job_and_book_appears(
    curator_api, book_path, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(curator_api, book_path(CONDITIONS), title="Conditions")
    assert response.status_code == 202
    job_id = response.json()["id"]
    job = curator_api.get(f"/api/v1/jobs/{job_id}/").json()
    assert job["status"] == "done"
    assert job["progress"] == 1.0
    assert job["total"] > 0 and job["done"] == job["total"]
    books = curator_api.get("/api/v1/books/").json()["results"]
    assert [b["title"] for b in books] == ["Conditions"]
    detail = curator_api.get(f"/api/v1/books/{books[0]['id']}/").json()
    assert detail["chunk_count"] > 0 and detail["status"] == "ready"


@pytest.mark.parametrize(
    ("name", "content", "field"),
    [("notes.docx", b"hello", "file"), ("empty.md", b"", "file"), ("blank.txt", b" \n", "file")],
)
def test_upload_bad_file_is_400_naming_field(curator_api, tmp_path, name, content, field):
    path = tmp_path / name
    path.write_bytes(content)
    response = upload(curator_api, path)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field
    assert not Book.objects.exists()


def test_upload_unknown_extractor_is_400(curator_api, book_path):
    response = upload(curator_api, book_path(CONDITIONS), extractor="magic")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "extractor"


def test_reader_cannot_upload_or_delete(api, reader, book_path, ingest):
    api.force_authenticate(reader)
    assert upload(api, book_path(CONDITIONS)).status_code == 403
    book = ingest(CONDITIONS).book
    assert api.delete(f"/api/v1/books/{book.pk}/").status_code == 403
    assert Book.objects.filter(pk=book.pk).exists()


def test_delete_book(curator_api, ingest):
    book = ingest(CONDITIONS).book
    response = curator_api.delete(f"/api/v1/books/{book.pk}/")
    assert response.status_code == 200
    assert response.json()["entities_removed"] > 0
    assert curator_api.get(f"/api/v1/books/{book.pk}/").status_code == 404


def test_mentions_defines_first_and_filters(api, two_books):
    url = f"/api/v1/entities/{two_books.pk}/mentions"
    results = api.get(url).json()["results"]
    assert results[0]["mention_type"] == "defines"
    assert results[0]["chunk"]["heading_path"][-1] == "Blinded"
    assert all(r["mention_type"] == "references" for r in results[1:])
    assert results[1]["context"]
    spells = Book.objects.get(source_name=SPELLS)
    in_spells = api.get(url, {"book": spells.pk}).json()["results"]
    assert in_spells and all(r["book"]["id"] == spells.pk for r in in_spells)
    refs = api.get(url, {"mention_type": "references"}).json()["results"]
    assert refs and all(r["mention_type"] == "references" for r in refs)
    bad = api.get(url, {"mention_type": "owns"})
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "mention_type"
    assert api.get(url, {"book": "x"}).json()["error"]["field"] == "book"
    assert api.get("/api/v1/entities/nope/mentions").status_code == 404


@pytest.mark.parametrize("limit", ["1_0", "\uff15", " 5"])
def test_a_limit_python_alone_would_read_as_a_number_is_a_400(api, db, limit):
    """int() reads "1_0" as 10 and full-width digits as digits: the limit was taken and
    the answer was a 404 about the chunk, not a 400 about the limit."""
    response = api.get("/api/v1/chunks/999999/related", {"limit": limit})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "limit"


def test_entity_books_lists_defining_book_first(api, two_books):
    books = api.get(f"/api/v1/entities/{two_books.pk}/books").json()
    assert [b["book"]["source_name"] for b in books] == [CONDITIONS, SPELLS]
    assert books[0]["defines"] == 1 and books[1]["defines"] == 0


def test_related_chunks_come_from_other_books(api, two_books):
    chunk = next(
        c
        for c in Chunk.objects.filter(book__source_name=SPELLS)
        if c.heading_path[-1:] == ["Blindness/Deafness"]
    )
    related = api.get(f"/api/v1/chunks/{chunk.pk}/related", {"limit": 3}).json()
    assert related
    assert all(r["book"]["source_name"] == CONDITIONS for r in related)
    assert any(r["heading_path"][-1] == "Blinded" for r in related[:2])
    assert any(e["canonical_name"] == "Blinded" for r in related for e in r["shared"])
    bad = api.get(f"/api/v1/chunks/{chunk.pk}/related", {"limit": 0})
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "limit"
    assert api.get("/api/v1/chunks/999999/related").status_code == 404


def test_job_not_found(api, db):
    response = api.get("/api/v1/jobs/12345/")
    assert response.status_code == 404


def test_upload_with_nothing_to_ingest_is_400_and_queues_nothing(curator_api, unreadable_book):
    from books.models import IngestJob

    path, message = unreadable_book
    response = upload(curator_api, path)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "file"
    assert error["message"].startswith(message)
    assert not IngestJob.objects.exists()


# --- semantic search over chunks ------------------------------------------------------


def search(client, **params):
    return client.get("/api/v1/chunks/search", params)


def test_ingested_chunks_are_found_by_a_phrase_from_them(api, ingest, vector_dir):
    from kgsite.vectors.service import vector_index

    conditions = ingest(CONDITIONS).book
    spells = ingest(SPELLS).book
    # The ingest indexed every chunk.
    assert vector_index("chunks").live_count == Chunk.objects.count()

    phrase = "a blinded creature can't see and automatically fails any check that requires sight"
    response = search(api, q=phrase, k=3)
    assert response.status_code == 200
    results = response.json()["results"]
    assert len(results) == 3
    best = results[0]
    assert best["heading_path"][-1] == "Blinded"
    assert best["book"]["id"] == conditions.pk
    assert best["excerpt"].startswith("Blinded — A blinded creature can't see")
    assert results[0]["score"] >= results[1]["score"] >= results[2]["score"]
    chunk = Chunk.objects.get(pk=best["id"])
    assert chunk.heading_path == best["heading_path"]

    in_spells = search(api, q="requires sight", k=5, book=spells.pk).json()["results"]
    assert in_spells and {r["book"]["id"] for r in in_spells} == {spells.pk}


def test_chunk_search_on_an_empty_store_finds_nothing(api, db, vector_dir):
    response = search(api, q="anything at all")
    assert response.status_code == 200
    assert response.json() == {"results": [], "index_complete": True}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "q"),
        ({"q": "   "}, "q"),
        ({"q": "\u200b\u2060"}, "q"),  # shows nothing: it answered the passages closest to it
        ({"q": "x" * 2001}, "q"),
        ({"q": "sight", "k": "0"}, "k"),
        ({"q": "sight", "k": "51"}, "k"),
        ({"q": "sight", "k": "many"}, "k"),
        ({"q": "sight", "book": "first"}, "book"),
        ({"q": "sight", "book": "999999"}, "book"),
    ],
)
def test_chunk_search_bad_parameters_are_400_naming_the_field(api, db, vector_dir, params, field):
    response = search(api, **params)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_read_routes_answer_with_or_without_trailing_slash(api, two_books, vector_dir):
    blinded = two_books
    chunk = Chunk.objects.filter(book__source_name=SPELLS).first()
    for route in (
        f"/api/v1/entities/{blinded.pk}/mentions",
        f"/api/v1/entities/{blinded.pk}/books",
        f"/api/v1/chunks/{chunk.pk}/related",
        "/api/v1/chunks/search?q=blinded",
    ):
        bare = api.get(route)
        slashed = api.get(route.replace("?", "/?") if "?" in route else route + "/")
        assert bare.status_code == slashed.status_code == 200, route
        assert bare.json() == slashed.json(), route
