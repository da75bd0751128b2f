"""django-q2 tasks of the books app: take ids, call one service."""

from __future__ import annotations

import logging

from .models import IngestJob
from .services import ingest_job_run, ingest_jobs_recover

logger = logging.getLogger(__name__)


def ingest_job_task(job_id: int) -> dict:
    """Run one ingest job. A failure is recorded on the job (status, error, a
    ``job_failed`` notification) and not raised: the job row is the record users see,
    and an inline (sync) queue must not turn it into an error of the upload request."""
    try:
        job = ingest_job_run(job_id=job_id)
    except Exception:
        logger.exception("ingest job %s failed", job_id)
        job = IngestJob.objects.get(pk=job_id)
    return {"job_id": job.pk, "status": job.status, "result": job.result, "error": job.error}


def ingest_jobs_recover_task() -> list[int]:
    """Scheduled every minute: queue again the jobs whose worker died."""
    return ingest_jobs_recover()
