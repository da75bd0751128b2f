"""django-q2 jobs of the integrity app: take ids, call one service."""

from __future__ import annotations

import logging

from django_q import tasks as queue

from kgsite.jobs import routine_job_options
from notifications.services import notification_mark_read_by_key

from .services import fact_check_defer, fact_check_run

logger = logging.getLogger(__name__)

INTEGRITY_GROUP = "integrity"


def fact_check_task(fact_id: int) -> dict:
    return fact_check_run(fact_id=fact_id)


def fact_check_enqueue(fact_id: int, action: str) -> None:
    """``on_fact_saved`` hook: check a newly created fact in the background, and a fact
    a merge relinked to another entity (it may now repeat or contradict that entity's).

    Runs after the fact has committed, so a broker that refuses the job must not turn
    the save into an error: the fact is remembered as pending instead.
    """
    if action not in ("created", "relinked"):
        return
    try:
        queue.async_task(fact_check_task, fact_id, group=INTEGRITY_GROUP, **routine_job_options())
    except Exception as exc:
        logger.exception("could not queue the background check of fact %s", fact_id)
        fact_check_defer(fact_id=fact_id, error=exc)


def contradiction_deleted(sender, instance, **kwargs) -> None:
    """``post_delete`` of a contradiction (its fact deleted for good in the admin, or the
    row itself): its notification is closed, so the bell no longer counts it nor links
    to a page that is gone."""
    notification_mark_read_by_key(key=f"contradiction:{instance.pk}")
