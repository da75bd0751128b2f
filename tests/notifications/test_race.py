"""Background checks raising the same notice at once: real threads, real connections, on
whichever database the run selects. The bell must show one notice, and no writer fails."""

from __future__ import annotations

import pytest

from notifications.models import Notification
from notifications.services import notification_create
from tests.entities.test_race import THREADS, run_together

pytestmark = pytest.mark.django_db(transaction=True)


def test_eight_writers_of_one_key_make_one_notice():
    results, errors = run_together(
        lambda: notification_create(
            type="system", urgency="high", title="Index rebuild failed", key="index:failed"
        )
    )
    assert errors == []
    assert len(results) == THREADS
    assert len({n.pk for n in results}) == 1
    assert Notification.objects.count() == 1


def test_eight_events_of_one_series_make_one_unread_notice():
    counter = iter(range(THREADS))

    def raise_one():
        return notification_create(
            type="system",
            urgency="medium",
            title="The queue is backing up",
            key=f"queue:{next(counter)}",
            series="queue:",
        )

    results, errors = run_together(raise_one)
    assert errors == []
    assert len(results) == THREADS
    assert Notification.objects.filter(read=False).count() == 1
    assert len({n.pk for n in results}) == 1
