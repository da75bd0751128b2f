"""Leases of background work recorded on a row (an ingest job, a TransE run).

The worker touches the row's ``updated_at`` every quarter lease (``Heartbeat``) while it
runs; a row still in its running status but silent for a whole lease
(``KGSITE_JOB_LEASE_SECONDS``) had its worker die (``stale``). A schedule of the queue
(``schedule_every_minute``) runs the owner's recovery, which decides what a dead run
becomes (queued again, or failed with its reason).
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Model, QuerySet
from django.utils import timezone
from django_q.models import Schedule

logger = logging.getLogger(__name__)


def lease() -> timedelta:
    return timedelta(seconds=settings.KGSITE_JOB_LEASE_SECONDS)


def alive(updated_at) -> bool:
    """Whether a row last touched at ``updated_at`` may still have a live worker."""
    return updated_at > timezone.now() - lease()


def stale(rows: QuerySet, status: str) -> QuerySet:
    """The rows of ``rows`` in the running ``status`` whose worker has been silent for a
    whole lease."""
    return rows.filter(status=status, updated_at__lt=timezone.now() - lease())


class Heartbeat:
    """Touches the running row every quarter lease from a thread of the worker process, so
    a long step (one slow chunk, one long training epoch) is not taken for a dead worker,
    and a dead worker's row goes stale within one lease."""

    def __init__(self, model: type[Model], pk: int, status: str) -> None:
        self.rows = model._default_manager.filter(pk=pk, status=status)
        self.stop = threading.Event()
        name = f"{model._meta.model_name}-{pk}-beat"
        self.thread = threading.Thread(target=self._run, daemon=True, name=name)

    def _run(self) -> None:
        every = max(0.5, settings.KGSITE_JOB_LEASE_SECONDS / 4)
        try:
            while not self.stop.wait(every):
                try:
                    self.rows.update(updated_at=timezone.now())
                except Exception:  # a busy database: the next beat will do
                    logger.debug("heartbeat of %s skipped", self.thread.name, exc_info=True)
        finally:
            connection.close()

    def __enter__(self) -> Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=30)


def schedule_every_minute(name: str, func: str) -> None:
    """Once: a django-q2 schedule that runs ``func`` (a dotted path) every minute."""
    try:
        Schedule.objects.get_or_create(
            name=name,
            defaults={"func": func, "schedule_type": Schedule.MINUTES, "minutes": 1},
        )
    except Exception:  # the work itself is queued; recovery also runs by hand
        logger.exception("could not schedule %s", func)
