"""The jobs every write queues do not store their successes (django-q2 prunes stored
successes by re-reading the last 250 after each one: the cluster's CPU per write)."""

from __future__ import annotations

import pytest
from django_q.models import Failure, Success

from entities.services import entity_store, fact_store

pytestmark = pytest.mark.django_db


def test_a_written_fact_leaves_no_success_rows_of_its_jobs(django_capture_on_commit_callbacks):
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    with django_capture_on_commit_callbacks(execute=True) as jobs:
        fact_store(text="Ada Lovelace wrote the first published program.", subject=ada)
    assert len(jobs) >= 2  # its check and its index update ran
    assert Success.objects.count() == 0
    assert Failure.objects.count() == 0


def test_an_operator_can_keep_them(settings, django_capture_on_commit_callbacks):
    settings.KGSITE_Q_SAVE_ROUTINE_SUCCESS = True
    with django_capture_on_commit_callbacks(execute=True):
        fact_store(text="Grace Hopper built the first compiler.")
    assert set(Success.objects.values_list("func", flat=True)) >= {
        "integrity.tasks.fact_check_task"
    }


def test_a_failing_routine_job_is_still_stored():
    """What the cluster's monitor does with a failed job queued with these options (in
    the tests' synchronous queue a failure raises instead of reaching it)."""
    from django.utils import timezone
    from django_q.brokers import get_broker
    from django_q.monitor import save_task

    from kgsite.jobs import routine_job_options

    now = timezone.now()
    package = {
        "id": "0" * 32,
        "name": "failed-check",
        "func": "integrity.tasks.fact_check_task",
        "args": (7,),
        "kwargs": {},
        "started": now,
        "stopped": now,
        "result": "RuntimeError: the pair model file is unreadable",
        "success": False,
        "sync": True,
        **routine_job_options(),
    }
    save_task(package, get_broker())
    failed = Failure.objects.get(func="integrity.tasks.fact_check_task")
    assert "the pair model file is unreadable" in str(failed.result)
