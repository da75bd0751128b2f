"""django-q2 tasks of the books app: take ids, call one service."""

from __future__ import annotations

from .services import ingest_job_run


def ingest_job_task(job_id: int) -> dict:
    """Run one ingest job; failures are recorded on the job by the service."""
    job = ingest_job_run(job_id=job_id)
    return {"job_id": job.pk, "status": job.status, "result": job.result}
