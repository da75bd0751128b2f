"""Ingestion jobs: create, lease, heartbeat, recover after a crash, retry."""

from __future__ import annotations

import hashlib
import logging
import time
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_noop
from django_q import tasks as queue

from kgsite import leases
from kgsite.converters import parse_id
from kgsite.errors import Conflict, DomainError, InvalidInput, Wording
from kgsite.models import audit
from kgsite.text import normalize
from notifications.models import Notification
from notifications.services import (
    notification_create,
    notification_mark_read_by_key,
    notification_mark_unread_by_key,
)

from ..models import Book, IngestJob
from .ingest import (
    _book_ingest_bytes,
    _ingest_check,
    _read_source,
    book_ingest,
    title_from_filename,
)
from .writing import IngestResult, PhaseProgress

logger = logging.getLogger(__name__)


# --- jobs ------------------------------------------------------------------------------


def uploads_dir() -> Path:
    folder = Path(settings.DATA_DIR) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@transaction.atomic
def ingest_job_create(
    *,
    filename: str,
    data: bytes | None = None,
    path: str | Path | None = None,
    title: str = "",
    author: str = "",
    extractor: str | None = None,
) -> IngestJob:
    """Check the request, keep the file where the worker will read it, queue the job.

    Bad input fails here, before anything is queued: the uploader hears at once.
    """
    if data is None:
        raw, filename = _read_source(path, None, filename)
        source = Path(path).resolve()  # type: ignore[arg-type]
    else:
        raw = data
        source = None
    checked = _ingest_check(
        raw=raw, filename=filename, title=title, extractor=extractor, author=author or ""
    )
    if source is None:
        digest = hashlib.sha256(raw).hexdigest()
        source = uploads_dir() / f"{digest}{Path(filename).suffix.lower()}"
        if not source.exists():
            source.write_bytes(raw)
    fields = {
        "title": title or title_from_filename(filename),
        "author": author,
        "source_name": filename[:512],
        "source_path": str(source),
        "extractor": checked.extractor.name,
    }
    if (waiting := _same_job_waiting(fields, upload=data is not None)) is not None:
        return waiting  # Upload clicked twice: one job, not a second run of the same file
    job = IngestJob.objects.create(**fields)
    transaction.on_commit(lambda: _enqueue(job.pk))
    return job


def _same_job_waiting(fields: dict, *, upload: bool) -> IngestJob | None:
    """The job already queued for this very request (same file, title, author and
    extractor), or running it when the file is an upload's copy (named by its content):
    a file on disk may have changed since its running job read it."""
    statuses = [IngestJob.Status.QUEUED]
    if upload:
        statuses.append(IngestJob.Status.RUNNING)
    return IngestJob.objects.filter(status__in=statuses, **fields).order_by("-created_at").first()


# The job function lives in books/tasks.py, which imports this module: the queue takes
# its dotted path (tests/test_architecture.py checks that it resolves).
INGEST_JOB_TASK = "books.tasks.ingest_job_task"
RECOVER_TASK = "books.tasks.ingest_jobs_recover_task"
BOOKS_GROUP = "books"


def _enqueue(job_id: int) -> None:
    # On the ingestion queue when there is one (KGSITE_INGEST_CLUSTER).
    cluster = settings.KGSITE_INGEST_CLUSTER or None
    try:
        queue.async_task(INGEST_JOB_TASK, job_id, group=BOOKS_GROUP, cluster=cluster)
    except Exception as exc:  # the broker is down: runs after commit, so never a 500
        logger.debug("could not queue ingest job %s: %s", job_id, exc)  # said on the job
        _enqueue_failed(job_id, exc)
        return
    _recovery_scheduled()


def _failure(error: str) -> dict:
    """How a job records its error: the English text (the API's) and, when it is a
    ``Wording``, its template and params, for a page to say it in its own language."""
    stored = error.stored() if isinstance(error, Wording) else None
    return {"error": str(error)[:5000], "error_wording": stored}


def _error_of(exc: BaseException) -> str:
    """A failure's words: a domain error's wording, or the exception's own."""
    return exc.wording if isinstance(exc, DomainError) else f"{type(exc).__name__}: {exc}"


def _enqueue_failed(job_id: int, exc: Exception) -> None:
    """A job the queue refused fails at once, saying so, with its notice: it waited for a
    worker for ever (only a running job is recovered), and Retry is for a failed one."""
    message = Wording(
        gettext_noop("the job could not be queued (%(why)s); retry it later"),
        {"why": f"{type(exc).__name__}: {exc}"},
    )
    if IngestJob.objects.filter(pk=job_id, status=IngestJob.Status.QUEUED).update(
        status=IngestJob.Status.FAILED, finished_at=timezone.now(), **_failure(message)
    ):
        _notify_failure(IngestJob.objects.get(pk=job_id), message)


def _recovery_scheduled() -> None:
    """Once: a django-q2 schedule that runs ``ingest_jobs_recover`` every minute."""
    leases.schedule_every_minute("kgsite: recover ingest jobs", RECOVER_TASK)


def _claim(job: IngestJob) -> bool:
    """Take the job unless a live worker holds it (its heartbeat is within the lease).

    Compare-and-set on ``updated_at``: of two workers handed the same job, one wins.
    """
    if job.status == IngestJob.Status.RUNNING and leases.alive(job.updated_at):
        return False
    now = timezone.now()
    return bool(
        IngestJob.objects.filter(pk=job.pk, status=job.status, updated_at=job.updated_at).update(
            status=IngestJob.Status.RUNNING,
            started_at=now,
            updated_at=now,
            error="",
            error_wording=None,
            attempts=F("attempts") + 1,
        )
    )


def _previous_version_ready(job: IngestJob) -> None:
    """A new version of a book whose worker was killed leaves the previous one intact:
    the book is "ready" again (as after any other failure), not "ingesting" for ever."""
    title = job.title or title_from_filename(job.source_name)
    Book.objects.filter(title_norm=normalize(title), status=Book.Status.INGESTING).update(
        status=Book.Status.READY
    )


def ingest_jobs_recover() -> list[int]:
    """Find running jobs whose worker died (no heartbeat for a lease) and queue them again,
    up to ``KGSITE_JOB_MAX_ATTEMPTS`` runs; then they fail with a notification."""
    requeued: list[int] = []
    for job in leases.stale(IngestJob.objects.all(), IngestJob.Status.RUNNING):
        died = _death(job)
        if job.attempts >= settings.KGSITE_JOB_MAX_ATTEMPTS:
            if IngestJob.objects.filter(pk=job.pk, updated_at=job.updated_at).update(
                status=IngestJob.Status.FAILED, finished_at=timezone.now(), **_failure(died)
            ):
                _previous_version_ready(job)
                _notify_failure(job, died)
            continue
        if IngestJob.objects.filter(
            pk=job.pk, status=IngestJob.Status.RUNNING, updated_at=job.updated_at
        ).update(
            status=IngestJob.Status.QUEUED,
            error=f"{died}; retrying",
            error_wording=None,
            warnings=[*job.warnings, f"{died}; retried"],
            updated_at=timezone.now(),
        ):
            _enqueue(job.pk)
            requeued.append(job.pk)
    return requeued


def _time_limit() -> tuple[int, str]:
    """The ingestion queue's time limit for one run, and the setting that sets it."""
    name = settings.KGSITE_INGEST_CLUSTER
    cluster = settings.Q_CLUSTER.get("ALT_CLUSTERS", {}).get(name) if name else None
    if cluster:
        return int(cluster["timeout"]), "KGSITE_INGEST_TIMEOUT"
    return int(settings.Q_CLUSTER["timeout"]), "KGSITE_Q_TIMEOUT"


def _death(job: IngestJob) -> Wording:
    """Why a running job fell silent: its worker died, or the queue stopped it at its time
    limit (then a retry stops there again: the operator raises the limit)."""
    during = {"phase": job.phase or "the job", "n": job.attempts}
    limit, setting = _time_limit()
    ran = (job.updated_at - job.started_at).total_seconds() if job.started_at else 0
    if ran >= limit - settings.KGSITE_JOB_LEASE_SECONDS:
        return Wording(
            gettext_noop(
                "the run reached the queue's time limit of %(limit)s s (%(setting)s) during "
                "%(phase)s (run %(n)s)"
            ),
            {"limit": limit, "setting": setting, **during},
        )
    return Wording(gettext_noop("the worker died during %(phase)s (run %(n)s)"), during)


def ingest_job_run(*, job_id: int, progress: PhaseProgress | None = None) -> IngestJob:
    """Run a queued job; record progress, the result, or the failure on the job.

    Safe to deliver twice: a done job, or one a live worker holds, is left alone; a job
    whose worker died is taken over, and each phase picks up what is missing. A failed
    job is left alone too (the queue may hand a dead worker's task out again long after
    the recovery gave the job up): only a curator's Retry queues it again.
    """
    job = IngestJob.objects.get(pk=job_id)
    if job.status in (IngestJob.Status.DONE, IngestJob.Status.FAILED) or not _claim(job):
        return job
    job.refresh_from_db()
    with leases.Heartbeat(IngestJob, job.pk, IngestJob.Status.RUNNING):
        return _ingest_job_execute(job, progress)


def _ingest_job_execute(job: IngestJob, progress: PhaseProgress | None) -> IngestJob:
    try:
        result = book_ingest(
            path=job.source_path,
            filename=job.source_name,
            title=job.title or None,
            author=job.author,
            extractor=job.extractor or None,
            job=job,
            progress=progress,
        )
    except Exception as exc:  # recorded on the job, then re-raised for the caller
        message = _error_of(exc)
        IngestJob.objects.filter(pk=job.pk).update(
            status=IngestJob.Status.FAILED, finished_at=timezone.now(), **_failure(message)
        )
        _notify_failure(job, message)
        raise
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestJob.Status.DONE,
        book_id=_still_stored(result.book),
        result=result.as_dict(),
        warnings=[*job.warnings, *result.warnings][:500],  # a retry's note stays
        done=max(job.total, result.chunks),
        total=max(job.total, result.chunks),
        finished_at=timezone.now(),
    )
    _earlier_failures_closed(result.book.title)
    job.refresh_from_db()
    return job


FAILURE_KEY = "ingest-job-failed:"


def _earlier_failures_closed(title: str) -> None:
    """The book is in now: the bell's notices of earlier failed ingests of this title
    (a version that failed, then uploaded again fixed) are dealt with."""
    norm = normalize(title)
    unread = Notification.objects.filter(key__startswith=FAILURE_KEY, read=False)
    ids = [parse_id(key[len(FAILURE_KEY) :]) for key in unread.values_list("key", flat=True)]
    failed = IngestJob.objects.filter(pk__in=[i for i in ids if i], status=IngestJob.Status.FAILED)
    for pk, job_title, source in failed.values_list("pk", "title", "source_name"):
        if normalize(job_title or title_from_filename(source)) == norm:
            notification_mark_read_by_key(key=f"{FAILURE_KEY}{pk}")


def _still_stored(book: Book) -> int | None:
    """The book's id, or None when a curator deleted it while the job was finishing
    (embedding its chunks): the job ends done without it, and never brings it back."""
    return book.pk if Book.objects.filter(pk=book.pk).exists() else None


def _notify_failure(job: IngestJob, message: str) -> None:
    """One notice per job: a retried job that fails again raises its notice again (the
    retry closed it), with the new error."""
    key = f"{FAILURE_KEY}{job.pk}"
    payload = {"job_id": job.pk, "error": message[:1000]}
    try:
        notification_create(
            type="job_failed",
            urgency="high",
            title=f"Ingesting {job.title or job.source_name} failed",
            payload=payload,
            link=f"/api/v1/jobs/{job.pk}/",
            key=key,
        )
        notification_mark_unread_by_key(key=key, payload=payload)
    except Exception:
        logger.exception("could not record the job_failed notification")


@transaction.atomic
def ingest_job_retry(*, job: IngestJob, actor=None) -> IngestJob:
    """Queue a failed job again from the file it kept (uploads stay under uploads/) and
    close its failure notice. The notice's key is per job, so a second failure raises
    that notice again (with its error), not a new one."""
    job = IngestJob.objects.select_for_update().get(pk=job.pk)
    if job.status != IngestJob.Status.FAILED:
        raise Conflict(
            f"job {job.pk} is {job.status}; only a failed job can be retried",
            field="job_id",
            code="not_failed",
        )
    if not job.source_path or not Path(job.source_path).is_file():
        raise Conflict(
            "the file of this job is gone; upload it again", field="job_id", code="source_missing"
        )
    if actor is not None:
        audit(
            actor=actor, action="ingest_job.retry", target=job, payload={"error": job.error[:500]}
        )
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestJob.Status.QUEUED,
        error="",
        error_wording=None,
        phase="",
        done=0,
        total=0,
        started_at=None,
        finished_at=None,
        attempts=0,  # a curator's retry has its runs again (a dead worker is retried)
    )
    notification_mark_read_by_key(key=f"{FAILURE_KEY}{job.pk}")
    transaction.on_commit(lambda: _enqueue(job.pk))
    job.refresh_from_db()
    return job


def book_ingest_now(
    *,
    path: str | Path | None = None,
    data: bytes | None = None,
    filename: str = "",
    title: str | None = None,
    author: str = "",
    extractor: str | None = None,
    progress: PhaseProgress | None = None,
    embed: bool = True,
) -> tuple[IngestJob, IngestResult]:
    """Ingest inline, still recording a job (for ``--sync`` and scripts).

    The file is read once, and a text format is parsed once: the check's parse is the
    ingest's.
    """
    started = time.perf_counter()
    # Bad input fails before a job row is written: an empty book leaves no failed job.
    raw, filename = _read_source(path, data, filename)
    checked = _ingest_check(
        raw=raw, filename=filename, title=title, extractor=extractor, author=author or ""
    )
    job = IngestJob.objects.create(
        title=title or "",
        author=author or "",
        source_name=filename,
        source_path=str(Path(path).resolve()) if path else "",  # a worker may resume it
        extractor=extractor or "",
        status=IngestJob.Status.RUNNING,
        started_at=timezone.now(),
    )
    try:
        # Alive while a long phase reports nothing: else the recovery takes this run for
        # a dead worker's and hands the book to a worker, which ingests it alongside.
        with leases.Heartbeat(IngestJob, job.pk, IngestJob.Status.RUNNING):
            result = _book_ingest_bytes(
                raw=raw,
                filename=filename,
                checked=checked,
                title=title,
                author=author,
                job=job,
                progress=progress,
                embed=embed,
                started=started,
            )
    except Exception as exc:
        message = _error_of(exc)
        IngestJob.objects.filter(pk=job.pk).update(
            status=IngestJob.Status.FAILED, finished_at=timezone.now(), **_failure(message)
        )
        if not isinstance(exc, InvalidInput):
            _notify_failure(job, message)
        raise
    except BaseException as exc:  # Ctrl-C: the operator stopped it; no worker takes it on
        interrupted = Wording(
            gettext_noop("interrupted (%(why)s) during %(phase)s"),
            {"why": type(exc).__name__, "phase": job.phase or "the job"},
        )
        IngestJob.objects.filter(pk=job.pk).update(
            status=IngestJob.Status.FAILED, finished_at=timezone.now(), **_failure(interrupted)
        )
        raise
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestJob.Status.DONE,
        book_id=_still_stored(result.book),
        title=result.book.title,
        extractor=result.book.extractor,
        result=result.as_dict(),
        warnings=result.warnings[:500],
        finished_at=timezone.now(),
    )
    _earlier_failures_closed(result.book.title)
    job.refresh_from_db()
    return job, result
