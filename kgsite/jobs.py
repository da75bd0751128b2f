"""Options for the jobs every write queues (a fact's check, an index update).

django-q2 stores each successful job and, to keep only the last ``save_limit`` of them,
re-reads those rows (locked) after every success: about 11 ms of the cluster monitor's
CPU per job on PostgreSQL here, three jobs per fact written, on the cores that answer
the requests. The jobs of a write succeed by the thousand and their results are
``None``, so their successes are not stored unless ``KGSITE_Q_SAVE_ROUTINE_SUCCESS``
is on; a failure is always stored (the admin's failed tasks), and the jobs people
start (a book's ingestion, a training, a duplicate scan) keep theirs.
"""

from __future__ import annotations

from django.conf import settings


def routine_job_options() -> dict:
    """Keyword arguments for ``async_task`` of a job queued by every write."""
    return {"save": bool(settings.KGSITE_Q_SAVE_ROUTINE_SUCCESS)}
