"""A check the job queue refused is kept, run later, and reported when it fails."""

from __future__ import annotations

import io

import pytest

from entities.models import Fact
from entities.services import fact_store
from integrity import services
from integrity.models import Contradiction, PendingFactCheck
from notifications.models import Notification

pytestmark = pytest.mark.django_db


def store(text: str, subject=None, **kwargs) -> Fact:
    return fact_store(text=text, subject=subject, **kwargs).fact


@pytest.fixture
def broken_broker(monkeypatch):
    import django_q.tasks

    def refuse(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(django_q.tasks, "async_task", refuse)
    return monkeypatch


def test_a_refused_check_is_kept_and_run_by_the_next_check(
    alice, no_index, broken_broker, django_capture_on_commit_callbacks
):
    import django_q.tasks

    with django_capture_on_commit_callbacks(execute=True):
        first = store("Alice lives in Paris.", alice)
        second = store("Alice lives in Lyon.", alice)  # no exception reaches the caller
    assert {p.fact_id for p in PendingFactCheck.objects.all()} == {first.pk, second.pk}
    assert not Contradiction.objects.exists()
    notice = Notification.objects.get()  # one per outage, not one per fact
    assert (notice.type, notice.urgency, notice.read) == ("job_failed", "medium", False)
    assert "broker unreachable" in notice.payload["error"]

    broken_broker.undo()
    assert django_q.tasks.async_task is not None
    with django_capture_on_commit_callbacks(execute=True):
        store("Alice speaks French.", alice)
    # The next background check ran the pending ones too: the conflict is found.
    contradiction = Contradiction.objects.get()
    assert (contradiction.fact_a_id, contradiction.fact_b_id) == (first.pk, second.pk)
    assert not PendingFactCheck.objects.exists()
    notice.refresh_from_db()
    assert notice.read


def test_pending_checks_command(alice, no_index, broken_broker, django_capture_on_commit_callbacks):
    from django.core.management import call_command

    with django_capture_on_commit_callbacks(execute=True):
        store("Alice lives in Paris.", alice)
        store("Alice lives in Lyon.", alice)
    out = io.StringIO()
    call_command("check_pending_facts", stdout=out)
    assert "checked 2 of 2 pending facts; 0 left" in out.getvalue()
    assert Contradiction.objects.count() == 1
    assert Notification.objects.get(type="job_failed").read


def test_a_failing_pending_check_stays_pending(alice, no_index, broken_broker, monkeypatch):
    fact = store("Alice lives in Paris.", alice)
    services.fact_check_defer(fact_id=fact.pk, error="down")

    def explode(*, fact_id):
        raise RuntimeError("database hiccup")

    monkeypatch.setattr(services, "fact_check", explode)
    assert services.fact_checks_pending_run() == 0
    assert PendingFactCheck.objects.filter(fact=fact).exists()
    assert not Notification.objects.get(type="job_failed").read


def test_recording_a_refused_check_never_raises(alice, monkeypatch, caplog):
    # The fact vanished before the hook ran: nothing to remember.
    services.fact_check_defer(fact_id=10**9, error="down")
    assert not PendingFactCheck.objects.exists()
    # The database refuses too: logged, not raised (the fact has committed already).
    fact = store("Alice lives in Paris.", alice)

    def refuse(**kwargs):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(PendingFactCheck.objects, "get_or_create", refuse)
    services.fact_check_defer(fact_id=fact.pk, error="down")
    assert "could not record the pending check" in caplog.text
