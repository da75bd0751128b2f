"""Ingest jobs survive a worker that dies: detected by their lease, retried, resumed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from books import services
from books.models import Book, Chunk, IngestJob, Mention
from books.services import ingest_job_run, ingest_jobs_recover
from kgsite.vectors import service

DATA = Path(__file__).resolve().parent.parent / "data" / "books"
ROOT = Path(__file__).resolve().parents[2]
BOOK = "15-appendix-ph-a-conditions.md"


class WorkerKilled(BaseException):
    """What a SIGKILL looks like from inside: nothing after it runs."""


def queued_job() -> IngestJob:
    return IngestJob.objects.create(
        title="Conditions", source_name=BOOK, source_path=str(DATA / BOOK), extractor="offline"
    )


def age(job: IngestJob, seconds: float) -> None:
    IngestJob.objects.filter(pk=job.pk).update(
        updated_at=timezone.now() - timedelta(seconds=seconds)
    )


def die_while_embedding(monkeypatch) -> None:
    def killed(**kwargs):
        raise WorkerKilled

    monkeypatch.setattr(services.ingest, "chunks_embed", killed)
    monkeypatch.setattr(services.writing, "chunks_embed", killed)


@pytest.mark.django_db
def test_a_job_whose_worker_died_is_retried_and_embeds_what_is_missing(
    monkeypatch, settings, vector_dir
):
    job = queued_job()
    with monkeypatch.context() as patch:
        die_while_embedding(patch)
        with pytest.raises(WorkerKilled):
            ingest_job_run(job_id=job.pk)
    job.refresh_from_db()
    book = Book.objects.get()
    # Stranded as the issue found it: running, the book readable, its chunks unindexed.
    assert job.status == "running" and job.phase == "embed"
    assert book.status == "ready" and not book.embedded
    assert not any(
        pk in service.vector_index("chunks") for pk in Chunk.objects.values_list("pk", flat=True)
    )

    assert ingest_jobs_recover() == []  # the lease has not run out: maybe still alive
    age(job, settings.KGSITE_JOB_LEASE_SECONDS + 1)
    assert ingest_jobs_recover() == [job.pk]  # queued again (and run: the queue is inline)

    job.refresh_from_db()
    book.refresh_from_db()
    assert job.status == "done" and job.attempts == 2
    assert job.result["action"] == "resumed"  # not "unchanged" with vectors missing
    # The job page's counts are the book's, not zeros.
    assert job.result["mentions"] == Mention.objects.filter(book=book).count() > 0
    assert job.result["words"] == book.word_count > 0
    assert any("died during embed" in w for w in job.warnings)
    assert book.embedded
    index = service.vector_index("chunks")
    assert all(pk in index for pk in Chunk.objects.values_list("pk", flat=True))


@pytest.mark.django_db
def test_a_job_a_live_worker_holds_is_left_alone():
    job = queued_job()
    IngestJob.objects.filter(pk=job.pk).update(status="running", attempts=1)
    assert ingest_job_run(job_id=job.pk).status == "running"
    assert not Book.objects.exists()
    assert ingest_jobs_recover() == []


@pytest.mark.django_db
def test_a_job_that_keeps_killing_its_worker_fails_with_a_notification(settings):
    from notifications.models import Notification

    job = queued_job()
    IngestJob.objects.filter(pk=job.pk).update(
        status="running", attempts=settings.KGSITE_JOB_MAX_ATTEMPTS, phase="extract"
    )
    age(job, settings.KGSITE_JOB_LEASE_SECONDS + 1)
    assert ingest_jobs_recover() == []
    job.refresh_from_db()
    assert job.status == "failed" and "died during extract" in job.error
    assert Notification.objects.filter(type="job_failed").exists()


@pytest.mark.django_db
def test_a_failed_job_delivered_again_by_the_queue_stays_failed(settings):
    """The queue hands a dead worker's task out again once its retry time has passed,
    long after the recovery gave the job up and told the curators it failed: the job ran
    again, unasked, and its book appeared under a "failed" notice. Only Retry runs it."""
    job = queued_job()
    IngestJob.objects.filter(pk=job.pk).update(
        status="running", attempts=settings.KGSITE_JOB_MAX_ATTEMPTS, phase="extract"
    )
    age(job, settings.KGSITE_JOB_LEASE_SECONDS + 1)
    ingest_jobs_recover()
    job.refresh_from_db()
    assert job.status == "failed"

    again = ingest_job_run(job_id=job.pk)  # the queue's late delivery
    assert (again.status, again.attempts) == ("failed", settings.KGSITE_JOB_MAX_ATTEMPTS)
    assert "died during extract" in again.error
    assert not Book.objects.exists()


@pytest.mark.django_db
def test_a_job_retried_by_a_curator_has_its_runs_again(monkeypatch, settings, vector_dir):
    """A curator's Retry of a job that used up its runs starts it afresh: the next dead
    worker is retried, not the end of it ('run 4' failed at once)."""
    job = queued_job()
    IngestJob.objects.filter(pk=job.pk).update(
        status="failed", attempts=settings.KGSITE_JOB_MAX_ATTEMPTS, error="the worker died"
    )
    services.ingest_job_retry(job=job)
    with monkeypatch.context() as patch:
        die_while_embedding(patch)
        with pytest.raises(WorkerKilled):
            ingest_job_run(job_id=job.pk)
    age(job, settings.KGSITE_JOB_LEASE_SECONDS + 1)
    assert ingest_jobs_recover() == [job.pk]
    job.refresh_from_db()
    assert job.status == "done" and job.attempts == 2


@pytest.mark.django_db
def test_a_job_stopped_at_the_queues_time_limit_says_so(settings):
    """A book longer to read than the queue's time limit was reported as 'the worker
    died', three times: nothing told the operator to raise the limit."""
    from notifications.models import Notification

    job = queued_job()
    limit = settings.Q_CLUSTER["timeout"]
    IngestJob.objects.filter(pk=job.pk).update(
        status="running",
        attempts=settings.KGSITE_JOB_MAX_ATTEMPTS,
        phase="extract",
        started_at=timezone.now() - timedelta(seconds=limit + 60),
    )
    age(job, settings.KGSITE_JOB_LEASE_SECONDS + 1)  # its last beat, a lease ago
    assert ingest_jobs_recover() == []
    job.refresh_from_db()
    assert job.status == "failed"
    assert f"time limit of {limit} s (KGSITE_Q_TIMEOUT) during extract" in job.error
    assert "KGSITE_Q_TIMEOUT" in Notification.objects.get(type="job_failed").payload["error"]


@pytest.mark.django_db
def test_a_new_version_that_keeps_killing_its_worker_leaves_the_book_ready(settings):
    """A SIGKILL runs no cleanup: the book stayed "ingesting" for ever, though its
    previous version is intact and no run was left to finish the new one."""
    book = services.book_ingest(path=DATA / BOOK, title="Conditions", embed=False).book
    Book.objects.filter(pk=book.pk).update(status=Book.Status.INGESTING)  # as the run left it
    job = queued_job()
    IngestJob.objects.filter(pk=job.pk).update(
        status="running", attempts=settings.KGSITE_JOB_MAX_ATTEMPTS, phase="write"
    )
    age(job, settings.KGSITE_JOB_LEASE_SECONDS + 1)
    assert ingest_jobs_recover() == []
    book.refresh_from_db()
    assert book.status == "ready" and Chunk.objects.filter(book=book).exists()


@pytest.mark.django_db
def test_chunk_search_says_incomplete_while_a_book_lacks_vectors(api, monkeypatch, vector_dir):
    job = queued_job()
    with monkeypatch.context() as patch:
        die_while_embedding(patch)
        with pytest.raises(WorkerKilled):
            ingest_job_run(job_id=job.pk)
    body = api.get("/api/v1/chunks/search", {"q": "blinded creature"}).json()
    assert body["index_complete"] is False


# --- a real worker process, killed -------------------------------------------------------


def _database_url() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    host = s.get("HOST") or "127.0.0.1"
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{host}:{s.get('PORT') or 5432}/{s['NAME']}"


def _wait(what, timeout: float, every: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = what()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout} s")


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_killed_mid_embed_leaves_a_whole_searchable_book(api, tmp_path, settings):
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    service.vector_indexes_reset()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.dev",
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,  # tasks are signed with it
        "DATABASE_URL": _database_url(),
        "KGSITE_DATA_DIR": str(tmp_path),
        "KGSITE_VECTOR_DIR": str(tmp_path / "vectors"),
        "KGSITE_EMBEDDER": "tests.books.slow_embedder.SlowEmbedder",
        "KGSITE_JOB_LEASE_SECONDS": "2",
        "KGSITE_Q_WORKERS": "1",
        "KGSITE_LOG_LEVEL": "ERROR",
    }
    env.pop("REDIS_URL", None)
    log = open(tmp_path / "worker.log", "w")  # noqa: SIM115 - read on failure

    def worker() -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env,
            start_new_session=True, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    from django_q.tasks import async_task

    job = queued_job()
    async_task("books.tasks.ingest_job_task", job.pk, sync=False)  # to the ORM broker
    first = worker()
    try:
        _wait(lambda: IngestJob.objects.filter(pk=job.pk, phase="embed").exists(), 120)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    job.refresh_from_db()
    assert job.status == "running" and not Book.objects.get().embedded

    second = worker()
    try:
        time.sleep(2.5)  # the lease runs out
        recover = "from books.services import ingest_jobs_recover; print(ingest_jobs_recover())"
        subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", recover], cwd=ROOT, env=env, check=True,
            capture_output=True,
        )  # fmt: skip
        _wait(lambda: IngestJob.objects.filter(pk=job.pk, status="done").exists(), 180)
    finally:
        os.killpg(second.pid, signal.SIGINT)
        try:
            second.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(second.pid, signal.SIGKILL)
    job.refresh_from_db()
    book = Book.objects.get()
    assert job.attempts == 2 and job.result["action"] == "resumed"
    assert book.status == "ready" and book.embedded
    service.vector_indexes_reset()  # read what the worker wrote
    index = service.vector_index("chunks")
    index.refresh()
    chunk_ids = list(Chunk.objects.values_list("pk", flat=True))
    assert [pk for pk in chunk_ids if pk not in index] == []
    body = api.get("/api/v1/chunks/search", {"q": "blinded creature can't see"}).json()
    assert body["index_complete"] is True
    assert body["results"] and body["results"][0]["book"]["id"] == book.pk


@pytest.mark.django_db
def test_ingestion_goes_to_its_own_queue_when_one_is_named(settings, monkeypatch):
    import django_q.tasks

    sent = []
    monkeypatch.setattr(django_q.tasks, "async_task", lambda *a, **kw: sent.append(kw))
    settings.KGSITE_INGEST_CLUSTER = "kgsite-ingest"
    services._enqueue(1)
    settings.KGSITE_INGEST_CLUSTER = ""
    services._enqueue(2)
    assert [kw["cluster"] for kw in sent] == ["kgsite-ingest", None]
