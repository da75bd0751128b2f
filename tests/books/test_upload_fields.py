"""What an uploader types beside the file: the author is checked as the title is, on the
page and through the API, before any job is queued (PostgreSQL refused an over-long
author with a 500 where SQLite kept it whole)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from books.models import Book, IngestJob
from books.services import book_ingest

pytestmark = pytest.mark.django_db

KITES = b"# Kites\n\n## Box kites\n\nThey fly.\n\n## Delta kites\n\nThey glide.\n"
BAD_AUTHORS = [
    ("x" * 513, "author is longer than 512 characters"),
    ("Ann\x07Lee", "author must not hold control characters"),
]


def _file() -> SimpleUploadedFile:
    return SimpleUploadedFile("kites.md", KITES)


@pytest.mark.parametrize(("author", "message"), BAD_AUTHORS)
def test_a_bad_author_on_the_upload_page_is_the_forms_error(curator_client, author, message):
    response = curator_client.post("/books/upload", {"file": _file(), "author": author})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not IngestJob.objects.exists()


@pytest.mark.parametrize(("author", "message"), BAD_AUTHORS)
def test_a_bad_author_through_the_api_is_a_400_naming_it(curator_api, author, message):
    response = curator_api.post(
        "/api/v1/books/", {"file": _file(), "author": author}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "author"
    assert not IngestJob.objects.exists()


def test_a_field_the_upload_does_not_take_is_a_400_naming_it(curator_api):
    """ "titel" was dropped: the book was queued under its file name's title."""
    response = curator_api.post(
        "/api/v1/books/", {"file": _file(), "titel": "Kites of the World"}, format="multipart"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "titel" and "title" in error["message"]
    assert not IngestJob.objects.exists()


def test_an_author_of_512_characters_is_kept_whole(
    curator_client, django_capture_on_commit_callbacks
):
    author = "Ann Lee " * 64
    with django_capture_on_commit_callbacks(execute=True):
        response = curator_client.post("/books/upload", {"file": _file(), "author": author})
    assert response.status_code == 302
    assert IngestJob.objects.get().author == author.strip()


@pytest.mark.parametrize(("author", "message"), BAD_AUTHORS)
def test_a_scripted_ingest_refuses_a_bad_author_and_keeps_no_book(author, message):
    from kgsite.errors import InvalidInput

    with pytest.raises(InvalidInput, match=message):
        book_ingest(data=KITES, filename="kites.md", author=author, embed=False)
    assert not IngestJob.objects.exists() and not Book.objects.exists()


@pytest.mark.parametrize(
    ("name", "title"), [("box_kites.md", "box kites"), ("   .md", ".md"), ("KITES.MD", "KITES")]
)
def test_the_job_and_the_book_take_the_same_title_from_the_file_name(
    curator_api, django_capture_on_commit_callbacks, name, title
):
    with django_capture_on_commit_callbacks(execute=True):
        response = curator_api.post(
            "/api/v1/books/", {"file": SimpleUploadedFile(name, KITES)}, format="multipart"
        )
    assert response.status_code == 202
    assert response.json()["title"] == title
    job = curator_api.get(f"/api/v1/jobs/{response.json()['id']}/").json()
    assert job["status"] == "done"
    book = curator_api.get(f"/api/v1/books/{job['book']}/").json()
    assert book["title"] == job["title"] == title
