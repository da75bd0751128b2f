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


def test_notifications_cannot_be_deleted_in_the_admin(admin_client):
    """Marking read is the one thing the admin does to a notification: a delete removed
    someone else's personal notice, or the only alert of an open contradiction, unseen."""
    grace = User.objects.create_user("grace")
    personal = notification_create(
        type="job_done", urgency="low", title="Your book is in", recipient=grace
    )
    alert = notification_create(type="system", urgency="high", title="Check the index")
    url = f"/admin/notifications/notification/{personal.pk}/delete/"
    assert admin_client.get(url).status_code == 403
    admin_client.post(url, {"post": "yes"})
    admin_client.post(
        "/admin/notifications/notification/",
        {"action": "delete_selected", "_selected_action": [personal.pk, alert.pk], "post": "yes"},
    )
    assert set(Notification.objects.all()) == {personal, alert}
    # A user deleted in the admin still takes their own notices along.
    response = admin_client.post(f"/admin/auth/user/{grace.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert list(Notification.objects.all()) == [alert]
