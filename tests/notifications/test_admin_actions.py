"""The admin's notification list: it holds every notification, including those addressed
to one person; marking a selection read marks the admin's own and the broadcasts, leaves
someone else's to its recipient, and says so (it was a 500)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from notifications.models import Notification
from notifications.services import notification_create

pytestmark = pytest.mark.django_db


def test_marking_a_selection_with_someone_elses_notice_read_leaves_that_one(admin_client):
    grace = User.objects.create_user("grace")
    broadcast = notification_create(type="system", urgency="high", title="For every curator")
    personal = notification_create(
        type="job_done", urgency="low", title="Your book is in", recipient=grace
    )
    response = admin_client.post(
        "/admin/notifications/notification/",
        {"action": "mark_read", "_selected_action": [broadcast.pk, personal.pk]},
        follow=True,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "1 marked read. 1 addressed to someone else left as they were." in html
    assert list(Notification.objects.filter(read=False)) == [personal]


def test_marking_an_empty_visible_selection_marks_nothing_and_says_so(admin_client):
    grace = User.objects.create_user("grace")
    personal = notification_create(
        type="job_done", urgency="low", title="Your book is in", recipient=grace
    )
    response = admin_client.post(
        "/admin/notifications/notification/",
        {"action": "mark_read", "_selected_action": [personal.pk]},
        follow=True,
    )
    assert "0 marked read. 1 addressed to someone else" in response.content.decode()
    personal.refresh_from_db()
    assert personal.read is False
