"""Books and jobs: upload, the job's progress partial, a failed job's error and retry,
browsing a book's chapters, chunks and mentions."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from books.models import Book, IngestJob

from .conftest import HTMX

pytestmark = pytest.mark.django_db

NOTES = (
    b"# Harbour notes\n\n## Lighthouses\n\nThe Kestrel Light is a granite tower on the north "
    b"mole. Keepers of the Kestrel Light logged every ship.\n\n## Ferries\n\nThe Morning "
    b"Ferry crosses to the island twice a day.\n"
)


def _upload(client, content=NOTES, name="harbour.md", **fields):
    return client.post(
        reverse("books:upload"), {"file": SimpleUploadedFile(name, content), **fields}
    )


def test_an_upload_runs_its_job_to_done_and_the_page_shows_it(
    curator_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(curator_client, title="Harbour Notes")
    job = IngestJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/books/jobs/{job.pk}/"
    html = curator_client.get(response["Location"]).content.decode()
    assert 'data-status="done"' in html and 'value="100"' in html
    assert 'hx-trigger="every 1s"' not in html  # finished: no more polling
    book = Book.objects.get()
    assert f'href="/books/{book.pk}/"' in html


def test_upload_clicked_twice_queues_the_book_once(curator_client):
    """The second click finds the first one's job waiting: the curator is shown that
    job, not a second job that would ingest the same file again."""
    first = _upload(curator_client, title="Harbour Notes")
    second = _upload(curator_client, title="Harbour Notes")
    job = IngestJob.objects.get()
    assert first["Location"] == second["Location"] == f"/books/jobs/{job.pk}/"
    _upload(curator_client, title="Harbour Notes", author="A. Keeper")  # another request
    assert IngestJob.objects.count() == 2


def test_a_queued_job_polls_its_own_partial(curator_client):
    _upload(curator_client)  # the job stays queued: nothing commits in this test
    job = IngestJob.objects.get()
    page = curator_client.get(f"/books/jobs/{job.pk}/")
    assert b'hx-trigger="every 1s"' in page.content and b'data-status="queued"' in page.content
    partial = curator_client.get(f"/books/jobs/{job.pk}/", **HTMX)
    assert partial.templates[0].name == "books/_job.html"
    assert b"<html" not in partial.content


def test_upload_errors_are_shown_inline_and_queue_nothing(curator_client):
    response = _upload(curator_client, content=b"   \n", name="empty.md")
    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html and 'aria-invalid="true"' in html
    response = curator_client.post(reverse("books:upload"), {"title": "x"})
    assert response.status_code == 400 and b"Choose a Markdown" in response.content
    assert not IngestJob.objects.exists()


def test_an_unsupported_file_is_refused_at_the_file_field(curator_client):
    """The refusal named the field 'format', which the form does not have: it showed
    under the author, and the file input was not marked."""
    html = _upload(curator_client, content=b"text", name="notes.docx").content.decode()
    file_input = re.search(r'<input type="file"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in file_input
    after = html[html.index(file_input) :]
    assert after.index("Unsupported file type") < after.index('name="title"')


@pytest.mark.parametrize(
    ("name", "content", "fields", "italian"),
    [
        ("empty.md", b"   \n", {}, "Il documento caricato è vuoto."),
        ("notes.docx", b"text", {}, "Tipo di file non supportato (.docx)"),
        ("ls.txt", b"\x7fELF\x02\x01" + b"\x00" * 64, {}, "Il file è un eseguibile ELF"),
        ("nul.md", b"# A\n\x00\x00 b", {}, "Il file contiene dati binari"),
        ("harbour.md", NOTES, {"title": "\u200b"}, "Il titolo non può essere vuoto."),
        ("harbour.md", NOTES, {"author": "A\x07"}, "L’autore non può contenere caratteri"),
        ("harbour.md", NOTES, {"title": "T" * 513}, "Il titolo supera i 512 caratteri."),
        ("broken.pdf", b"%PDF-1.4\ngarbage", {}, "Impossibile leggere il file PDF: "),
        ("README", b"text", {}, "Tipo di file non supportato (nessuna estensione)"),
    ],
    ids=["empty", "format", "executable", "nul", "title", "author", "long-title", "pdf", "bare"],
)
def test_upload_refusals_read_in_italian_on_the_italian_page(
    curator_client, name, content, fields, italian
):
    """The ingest's refusals are the API's English sentences: the Italian page showed
    them as they were."""
    response = curator_client.post(
        reverse("books:upload"),
        {"file": SimpleUploadedFile(name, content), **fields},
        HTTP_ACCEPT_LANGUAGE="it",
    )
    assert response.status_code == 400
    assert italian in response.content.decode()
    assert not IngestJob.objects.exists()


def test_retry_refusals_read_in_italian(curator_client, tmp_path):
    """'job 1 is done; only a failed job can be retried' and 'the file of this job is
    gone' were the API's English on the Italian job page."""
    done = IngestJob.objects.create(title="Kites", source_name="kites.md", status="done")
    gone = IngestJob.objects.create(
        title="Reels", source_name="reels.md", status="failed", source_path=str(tmp_path / "x")
    )
    italian = {"HTTP_ACCEPT_LANGUAGE": "it", **HTMX}
    answer = curator_client.post(reverse("books:job-retry", args=[done.pk]), **italian)
    assert answer.status_code == 409
    assert "Questo lavoro è completato: si può riprovare solo" in answer.content.decode()
    answer = curator_client.post(reverse("books:job-retry", args=[gone.pk]), **italian)
    assert "Il file di questo lavoro non c’è più" in answer.content.decode()


def test_a_reader_is_offered_no_upload_form(reader_client, curator_client):
    """The books page offered a reader the upload form: the file was sent whole, then
    refused with the 403 page."""
    html = reader_client.get(reverse("books:list")).content.decode()
    assert 'action="/books/upload"' not in html and 'type="file"' not in html
    assert "Only curators upload books." in html
    assert _upload(reader_client).status_code == 403 and not IngestJob.objects.exists()
    assert 'action="/books/upload"' in curator_client.get(reverse("books:list")).content.decode()


def test_a_failed_job_shows_its_error_and_can_be_retried(
    curator_client, django_capture_on_commit_callbacks
):
    _upload(curator_client)
    job = IngestJob.objects.get()
    IngestJob.objects.filter(pk=job.pk).update(status="failed", error="the disk was full")
    html = curator_client.get(f"/books/jobs/{job.pk}/").content.decode()
    assert "the disk was full" in html and "Retry" in html
    with django_capture_on_commit_callbacks(execute=True):
        response = curator_client.post(reverse("books:job-retry", args=[job.pk]), **HTMX)
    assert response.status_code == 200
    job.refresh_from_db()
    assert job.status == "done" and job.error == ""
    response = curator_client.post(reverse("books:job-retry", args=[job.pk]), **HTMX)
    assert response.status_code == 409 and b"only a failed job" in response.content


def test_retry_clicked_twice_shows_the_job_queued_not_an_error(curator_client):
    """The second of two Retry clicks swapped "job 1 is queued; only a failed job can be
    retried" as an alert over the progress the first click had just started."""
    _upload(curator_client)
    job = IngestJob.objects.get()
    IngestJob.objects.filter(pk=job.pk).update(status="failed", error="the disk was full")
    url = reverse("books:job-retry", args=[job.pk])
    assert curator_client.post(url, **HTMX).status_code == 200
    again = curator_client.post(url, **HTMX)
    assert again.status_code == 200 and b'role="alert"' not in again.content
    job.refresh_from_db()
    assert job.status == "queued"
    # a job waiting for its first run (never retried) is still refused
    waiting = IngestJob.objects.create(title="Kites", source_name="kites.md", status="queued")
    refused = curator_client.post(reverse("books:job-retry", args=[waiting.pk]), **HTMX)
    assert refused.status_code == 409 and b"only a failed job" in refused.content


def test_a_book_page_lists_chapters_chunks_and_mentions(
    curator_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        _upload(curator_client, title="Harbour Notes")
    book = Book.objects.get()
    html = curator_client.get(f"/books/{book.pk}/").content.decode()
    assert "Harbour notes" in html and "Lighthouses" in html and "Kestrel Light" in html
    chunk_id = int(html.split('href="/books/chunks/')[1].split("/")[0])
    chunk = curator_client.get(f"/books/chunks/{chunk_id}/")
    assert chunk.status_code == 200
    dashboard = curator_client.get("/").content.decode()
    assert "Harbour Notes" in dashboard  # the recent job, on the dashboard


def test_an_upload_the_queue_refuses_fails_its_job_saying_so(
    curator_client, monkeypatch, django_capture_on_commit_callbacks
):
    """With the broker down the upload answered a 500, and its job waited for a worker
    for ever: the recovery only takes running jobs, and Retry only failed ones."""
    from books.services import jobs
    from notifications.models import Notification

    def refused(*args, **kwargs):
        raise ConnectionError("Error 111 connecting to localhost:6379. Connection refused.")

    monkeypatch.setattr(jobs.queue, "async_task", refused)
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(curator_client)
    job = IngestJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/books/jobs/{job.pk}/"
    assert job.status == "failed" and "could not be queued" in job.error
    assert Notification.objects.filter(type="job_failed", read=False).count() == 1
    html = curator_client.get(response["Location"]).content.decode()
    assert "could not be queued" in html and "Retry" in html
