"""A failed job's error on its page: said in the page's language from the wording stored
with the job (how its run ended, or the ingest's refusal), while the job's ``error`` (the
API's) stays English; an exception's own words, and jobs stored before the wording, as
they were recorded."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from books.models import IngestJob
from books.services import (
    book_ingest_now,
    ingest_job_create,
    ingest_job_run,
    ingest_jobs_recover,
    jobs,
)

pytestmark = pytest.mark.django_db


def _page(client, job: IngestJob, language: str) -> str:
    return client.get(f"/books/jobs/{job.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()


def _died(settings, tmp_path) -> IngestJob:
    """A job whose worker fell silent while finding entities, on its last run."""
    job = IngestJob.objects.create(title="Kites", source_name="kites.md", extractor="offline")
    silent = timezone.now() - timedelta(seconds=settings.KGSITE_JOB_LEASE_SECONDS + 1)
    IngestJob.objects.filter(pk=job.pk).update(
        status="running",
        phase="extract",
        attempts=3,
        started_at=silent - timedelta(seconds=5),
        updated_at=silent,
    )
    settings.KGSITE_JOB_MAX_ATTEMPTS = 3
    assert ingest_jobs_recover() == []
    return job


def _refused(settings, tmp_path) -> IngestJob:
    """A queued file that turned out to be an executable when the worker read it."""
    path = tmp_path / "kites.md"
    path.write_bytes(b"# Kites\n\nA kite flies.\n")
    job = ingest_job_create(filename="kites.md", path=path, extractor="offline")
    path.write_bytes(b"\x7fELF\x02\x01" + b"\x00" * 64)
    with pytest.raises(Exception, match="ELF"):
        ingest_job_run(job_id=job.pk)
    return job


def _interrupted(settings, tmp_path) -> IngestJob:
    from books.extraction.offline import OfflineExtractor

    def stopped(self, chunks, **kwargs):
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(OfflineExtractor, "extract", stopped)
        with pytest.raises(KeyboardInterrupt):
            book_ingest_now(data=b"# Kites\n\nA kite flies.\n", filename="kites.md")
    return IngestJob.objects.get()


def _not_queued(settings, tmp_path) -> IngestJob:
    def refused(*args, **kwargs):
        raise ConnectionError("connection refused")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs.queue, "async_task", refused)
        job = ingest_job_create(filename="kites.md", data=b"# Kites\n\nA kite flies.\n")
        jobs._enqueue(job.pk)  # as on commit
    return job


def _exception(settings, tmp_path) -> IngestJob:
    def broken(**kwargs):
        raise ValueError("bad table")

    path = tmp_path / "kites.md"
    path.write_bytes(b"# Kites\n\nA kite flies.\n")
    job = ingest_job_create(filename="kites.md", path=path, extractor="offline")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs, "book_ingest", broken)
        with pytest.raises(ValueError):
            ingest_job_run(job_id=job.pk)
    return job


@pytest.mark.parametrize(
    ("fail", "english", "italian"),
    [
        (
            _died,
            "the worker died during extract (run 3)",
            "il worker si è fermato durante ricerca delle entità (esecuzione 3)",
        ),
        (
            _refused,
            "The file is an ELF executable, not text: nothing ingested.",
            "Il file è un eseguibile ELF, non testo: non è stato acquisito niente.",
        ),
        (_interrupted, "interrupted (KeyboardInterrupt) during ", "interrotto (KeyboardInterrupt)"),
        (
            _not_queued,
            "the job could not be queued (ConnectionError: connection refused); retry it later",
            "non è stato possibile accodare il lavoro (ConnectionError: connection refused)",
        ),
        (_exception, "ValueError: bad table", "ValueError: bad table"),  # its own words
    ],
    ids=["died", "refused", "interrupted", "not-queued", "exception"],
)
def test_a_failed_jobs_error_reads_in_the_pages_language(
    curator_client, settings, tmp_path, fail, english, italian
):
    """The job page translated a failed job's error by matching its English sentence: a
    sentence reworded in the service was English again on the Italian page."""
    failed = fail(settings, tmp_path)
    failed.refresh_from_db()
    assert failed.status == "failed" and failed.error.startswith(english)  # the API's
    assert italian in _page(curator_client, failed, "it")
    if english != italian:
        assert english not in _page(curator_client, failed, "it")


def test_the_api_reports_a_failed_jobs_error_in_english(curator_api, settings, tmp_path):
    failed = _died(settings, tmp_path)
    body = curator_api.get(f"/api/v1/jobs/{failed.pk}/", HTTP_ACCEPT_LANGUAGE="it").json()
    assert body["error"] == "the worker died during extract (run 3)"


def test_a_job_that_failed_before_wordings_were_stored_shows_its_text(curator_client):
    old = IngestJob.objects.create(
        title="Kites", source_name="kites.md", status="failed", error="the disk was full"
    )
    assert "the disk was full" in _page(curator_client, old, "it")


def test_a_retried_job_keeps_no_wording_of_its_last_failure(settings, tmp_path):
    """The retry clears the error; its wording goes with it (the page said it again)."""
    failed = _refused(settings, tmp_path)
    failed.refresh_from_db()
    (tmp_path / "kites.md").write_bytes(b"# Kites\n\nA kite flies.\n")
    jobs.ingest_job_retry(job=failed)
    failed.refresh_from_db()
    assert failed.error == "" and failed.error_wording is None
