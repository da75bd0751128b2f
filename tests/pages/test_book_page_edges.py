"""The books pages at their edges: what the upload form lets a curator pick and refuses,
paging through a long book and one chapter of it, pages of rows that are gone, and what a
reader (no curator permission) or a visitor may do."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from books.models import Book, Chunk, IngestJob
from books.parsing import SUPPORTED_EXTENSIONS
from books.services import book_delete, book_ingest

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _book(title: str = "Kite Manual", chapters: dict[str, int] | None = None) -> Book:
    """A Markdown book of small sections: ``chapters`` maps a chapter's title to how many
    sections (one chunk each) it holds."""
    chapters = chapters or {"Lines": 30}
    parts = [f"# {title}\n"]
    for chapter, sections in chapters.items():
        parts.append(f"## {chapter}\n")
        parts += [f"### Knot {i}\n\nKnot number {i} holds the line.\n" for i in range(sections)]
    data = "\n".join(parts).encode()
    return book_ingest(data=data, filename="kites.md", title=title, embed=False).book


def _upload(client, content: bytes, name: str, **fields):
    return client.post(
        reverse("books:upload"), {"file": SimpleUploadedFile(name, content), **fields}
    )


# --- the upload form ------------------------------------------------------------------------


def test_the_file_picker_offers_every_format_the_ingest_reads(curator_client):
    html = curator_client.get(reverse("books:list")).content.decode()
    accept = re.search(r'type="file" name="file" accept="([^"]*)"', html).group(1).split(",")
    assert set(SUPPORTED_EXTENSIONS) <= set(accept)
    for name in ("EPUB", "HTML", "PDF"):
        assert name in html  # the label says what may be uploaded


def test_an_upload_without_a_file_names_every_format(curator_client):
    response = curator_client.post(reverse("books:upload"), {"title": "Kites"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "EPUB" in html and 'value="Kites"' in html  # the title typed is kept
    assert not IngestJob.objects.exists()


def test_the_upload_limit_is_the_configured_one(curator_client, settings):
    settings.KGSITE_MAX_UPLOAD_BYTES = 1000
    response = _upload(curator_client, b"# Kites\n\n" + b"Kites fly. " * 200, "kites.md")
    assert response.status_code == 400
    assert b"1000" in response.content or b"1,000" in response.content
    assert not IngestJob.objects.exists()
    settings.KGSITE_MAX_UPLOAD_BYTES = 100_000
    response = _upload(curator_client, b"# Kites\n\n" + b"Kites fly. " * 200, "kites.md")
    assert response.status_code == 302


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("kites.md", b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, "PNG image"),
        ("kites.txt", b"\x00\x01\x02" * 100, "binary data"),
        ("kites.docx", b"# Kites\n", "Unsupported file type (.docx)"),
        ("kites.epub", b"not a zip at all", "The EPUB could not be read"),
        ("kites.pdf", b"%PDF-1.4\ngarbage", "The PDF could not be read"),
        ("kites.html", b"<html><body></body></html>", "empty"),
    ],
)
def test_a_file_with_nothing_to_ingest_is_an_inline_error_and_queues_nothing(
    curator_client, name, content, says
):
    response = _upload(curator_client, content, name, author="A. Flyer")
    assert response.status_code == 400
    html = response.content.decode()
    assert says in html and 'role="alert"' in html
    assert 'value="A. Flyer"' in html
    assert not IngestJob.objects.exists() and not Book.objects.exists()


@pytest.mark.parametrize("title", ["Kites\x00", "\u200b\u200b"], ids=["nul", "invisible"])
def test_a_title_that_would_not_show_or_store_is_an_error_on_the_title(curator_client, title):
    response = _upload(curator_client, b"# Kites\n\nKites fly.\n", "kites.md", title=title)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'name="title" value="' in html and html.count('aria-invalid="true"') == 1
    assert "title must" in html
    assert not IngestJob.objects.exists()


def test_a_title_of_only_spaces_is_the_file_name(curator_client):
    response = _upload(curator_client, b"# Kites\n\nKites fly.\n", "kite_manual.md", title="   ")
    assert response.status_code == 302
    assert IngestJob.objects.get().title == "kite manual"


# --- paging -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "shown"),
    [("1", "page 1 of 2"), ("2", "page 2 of 2"), ("0", "page 2 of 2"), ("-1", "page 2 of 2")]
    + [("999", "page 2 of 2"), ("abc", "page 1 of 2"), ("", "page 1 of 2")],
)
def test_any_page_number_shows_a_page_of_the_book(curator_client, page, shown):
    book = _book(chapters={"Lines": 30})  # 32 chunks: title, chapter, 30 knots
    response = curator_client.get(f"/books/{book.pk}/?page={page}")
    assert response.status_code == 200
    assert shown in response.content.decode()


def test_the_pages_of_a_chapter_stay_in_that_chapter(curator_client):
    book = _book(chapters={"Q&A + notes": 30, "Spools": 3})
    html = curator_client.get(reverse("books:detail", args=[book.pk])).content.decode()
    link = re.search(r'href="(\?chapter=[^"]*)"[^>]*>Q&amp;A \+ notes<', html).group(1)
    first = curator_client.get(f"/books/{book.pk}/{link}").content.decode()
    assert "Knot 0" in first and "Spools" not in first.split('id="chunks"')[1]
    following = re.search(r'href="(\?page=2[^"]*)"', first).group(1).replace("&amp;", "&")
    second = curator_client.get(f"/books/{book.pk}/{following}", **HTMX)
    assert second.status_code == 200
    text = second.content.decode()
    assert "Knot 29" in text and "page 2 of 2" in text


def test_an_unknown_chapter_shows_no_chunks_not_an_error(curator_client):
    book = _book(chapters={"Lines": 2})
    response = curator_client.get(f"/books/{book.pk}/?chapter=Nowhere")
    assert response.status_code == 200
    assert "Knot 0" not in response.content.decode().split('id="chunks"')[1]


# --- rows that are gone -------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/books/{}/", "/books/chunks/{}/", "/books/jobs/{}/"])
@pytest.mark.parametrize("pk", ["999999", "99999999999999999999"])
def test_a_missing_book_chunk_or_job_is_a_404(curator_client, path, pk):
    assert curator_client.get(path.format(pk)).status_code == 404


def test_after_a_reingest_the_old_chunk_pages_are_gone_and_the_new_ones_answer(curator_client):
    book = _book(chapters={"Lines": 2})
    old = list(Chunk.objects.filter(book=book).values_list("pk", flat=True))
    data = b"# Kite Manual\n\n## Spools\n\nA spool keeps the line.\n"
    result = book_ingest(data=data, filename="kites.md", title="Kite Manual", embed=False)
    assert result.action == "replaced" and result.book.pk == book.pk
    assert all(curator_client.get(f"/books/chunks/{pk}/").status_code == 404 for pk in old)
    html = curator_client.get(f"/books/{book.pk}/").content.decode()
    assert "Spools" in html and "Knot 0" not in html


def test_a_job_page_outlives_its_deleted_book(curator_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        _upload(curator_client, b"# Kites\n\nKites fly high.\n", "kites.md")
    job = IngestJob.objects.get()
    book = Book.objects.get()
    book_delete(book=book)
    response = curator_client.get(f"/books/jobs/{job.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-status="done"' in html and f'href="/books/{book.pk}/"' not in html
    assert curator_client.get("/books/").status_code == 200


# --- who may do what ------------------------------------------------------------------------------


def test_a_reader_browses_books_but_cannot_upload_or_retry(reader_client):
    book = _book(chapters={"Lines": 2})
    job = IngestJob.objects.create(title="Kites", source_name="kites.md", status="failed")
    assert reader_client.get("/books/").status_code == 200
    assert reader_client.get(f"/books/{book.pk}/").status_code == 200
    response = _upload(reader_client, b"# Kites\n\nKites fly.\n", "kites.md")
    assert response.status_code == 403
    assert reader_client.post(reverse("books:job-retry", args=[job.pk])).status_code == 403
    assert IngestJob.objects.count() == 1
    job.refresh_from_db()
    assert job.status == "failed"


def test_a_visitor_is_sent_to_log_in_and_nothing_is_queued():
    client = Client()
    response = _upload(client, b"# Kites\n\nKites fly.\n", "kites.md")
    assert response.status_code == 302 and "/login" in response["Location"]
    assert client.get("/books/")["Location"].startswith("/accounts/login") or (
        "login" in client.get("/books/")["Location"]
    )
    assert not IngestJob.objects.exists()


@pytest.mark.parametrize("method", ["put", "delete", "patch"])
def test_other_methods_are_refused(curator_client, method):
    assert getattr(curator_client, method)("/books/upload").status_code == 405


@pytest.mark.parametrize("entity_type", ["c#", "q+a", "r&d"])
def test_the_pages_of_candidates_of_one_type_stay_of_that_type(curator_client, entity_type):
    from entities.models import Entity
    from entities.services import entity_store

    for i in range(23):
        entity, _ = entity_store(name=f"Gadget {i:02}", type=entity_type)
        Entity.objects.filter(pk=entity.pk).update(candidate=True)
    entity_store(name="Other gadget", type="software")
    Entity.objects.filter(name_norm="other gadget").update(candidate=True)
    first = curator_client.get(reverse("books:candidates"), {"type": entity_type}).content.decode()
    following = re.search(r'href="(\?page=2[^"]*)"', first).group(1).replace("&amp;", "&")
    second = curator_client.get(reverse("books:candidates") + following).content.decode()
    assert "Other gadget" not in second
    assert len(set(re.findall(r"Gadget \d\d", second))) == 3  # the 23 less the first 20


@pytest.mark.parametrize(
    "data",
    [
        b"# Kites\n\nAn introduction to kites.\n\n## Lines\n\nA line.\n\n## Spools\n\nA spool.\n",
        b"A preface before any heading.\n\n# Lines\n\nA line.\n\n# Spools\n\nA spool.\n",
    ],
    ids=["text-under-the-title", "preface"],
)
def test_every_chapter_in_the_list_opens_on_its_own_chunks(curator_client, data):
    book = book_ingest(data=data, filename="kites.md", embed=False).book
    html = curator_client.get(f"/books/{book.pk}/").content.decode()
    chapters = html.split('aria-label="chapters"')[1].split("</nav>")[0]
    pattern = r'href="(\?chapter=[^"]*)"[^>]*>([^<]+)</a> <small class="muted">(\d+)<'
    links = re.findall(pattern, chapters)
    assert links and sum(int(n) for _l, _t, n in links) == book.chunk_count
    for link, title, count in links:
        shown = curator_client.get(f"/books/{book.pk}/{link.replace('&amp;', '&')}", **HTMX)
        chunks = shown.content.decode().count('href="/books/chunks/')
        assert chunks == int(count), (title, chunks, count)


def test_retrying_a_job_whose_file_is_gone_says_to_upload_it_again(curator_client, tmp_path):
    gone = tmp_path / "kites.md"
    failed = IngestJob.objects.create(
        title="Kites", source_name="kites.md", source_path=str(gone), status="failed", error="x"
    )
    response = curator_client.post(reverse("books:job-retry", args=[failed.pk]), **HTMX)
    assert response.status_code == 409
    assert "upload it again" in response.content.decode()
    failed.refresh_from_db()
    assert failed.status == "failed"


def test_a_reader_sees_a_failed_job_without_its_retry_button(curator_client, reader_client):
    failed = IngestJob.objects.create(title="Kites", source_name="kites.md", status="failed")
    assert ">Retry<" in curator_client.get(f"/books/jobs/{failed.pk}/").content.decode()
    html = reader_client.get(f"/books/jobs/{failed.pk}/").content.decode()
    assert "Failed" in html and ">Retry<" not in html


# --- every chunk that mentions an entity -----------------------------------------------------


def _kite_book_with_many_mentions(chunks: int):
    """A book in which every section names the Delta Kite (one chunk each), a stored
    entity the ingest finds through the gazetteer."""
    from entities.services import entity_store

    entity, _created = entity_store(name="Delta Kite", type="product")
    parts = ["# Kite Log\n"] + [
        f"## Flight {i}\n\nThe Delta Kite flew over hill {i} today.\n" for i in range(chunks)
    ]
    data = "\n".join(parts).encode()
    book = book_ingest(data=data, filename="log.md", title="Kite Log", embed=False).book
    return book, entity


def test_the_entity_page_links_to_every_chunk_beyond_the_mentions_it_lists(curator_client):
    from books.selectors import MENTIONS_PER_BOOK
    from books.views import CHUNK_PAGE_SIZE

    book, entity = _kite_book_with_many_mentions(max(MENTIONS_PER_BOOK, CHUNK_PAGE_SIZE) + 5)
    n = entity.mentions.filter(book=book).count()
    assert n > MENTIONS_PER_BOOK
    page = curator_client.get(reverse("entities:detail", args=[entity.pk])).content.decode()
    link = f"{reverse('books:detail', args=[book.pk])}?entity={entity.pk}"
    assert link in page  # the entity page lists the first ones and links to the rest

    html = curator_client.get(link).content.decode()
    assert f"The {n} chunks that mention Delta Kite." in html
    shown = set(re.findall(r'id="chunk-(\d+)"', html))
    ids = entity.mentions.filter(book=book).values_list("chunk_id", flat=True)
    chunks = {str(pk) for pk in ids}
    assert shown < chunks and len(shown) == CHUNK_PAGE_SIZE  # the first page
    rest = curator_client.get(link + "&page=2").content.decode()
    assert set(re.findall(r'id="chunk-(\d+)"', rest)) == chunks - shown  # pages keep the filter


def test_a_short_mention_list_has_no_link_and_an_unknown_entity_is_a_404(curator_client):
    book, entity = _kite_book_with_many_mentions(2)
    assert entity.mentions.filter(book=book).count() == 2
    page = curator_client.get(reverse("entities:detail", args=[entity.pk])).content.decode()
    assert "?entity=" not in page
    detail = reverse("books:detail", args=[book.pk])
    assert curator_client.get(detail + "?entity=nosuchid").status_code == 404
