"""django-q2 jobs of the entity graph: take ids, call one service."""

from __future__ import annotations

import logging

from django.db import transaction
from django_q import tasks as queue

from .models import DuplicateScan
from .services import duplicate_scan_request, duplicate_scan_run

logger = logging.getLogger(__name__)

DUPLICATES_GROUP = "duplicates"


def duplicate_scan_task(scan_id: int) -> dict:
    return duplicate_scan_run(scan_id=scan_id).result


def duplicate_scan_enqueue(entity_ids: list[str] | None = None) -> DuplicateScan:
    """Queue a duplicate scan (of these entities, or of all), joining one already
    queued; the job starts once the surrounding transaction commits."""
    scan, new = duplicate_scan_request(entity_ids=entity_ids)
    if new:
        transaction.on_commit(
            lambda: queue.async_task(duplicate_scan_task, scan.pk, group=DUPLICATES_GROUP)
        )
    return scan


def entities_ingested_scan(entity_ids: list[str]) -> None:
    """``on_entities_ingested`` hook: look for duplicates of what a book brought in.

    Runs after the ingestion committed: a broker that refuses the job must not turn it
    into an error (the scan row stays queued; the next request or a full scan takes it).
    """
    try:
        duplicate_scan_enqueue(entity_ids)
    except Exception:
        logger.exception("could not queue a duplicate scan of %d entities", len(entity_ids))
