"""The admin goes through the same rules as the API: nothing it may do that they forbid."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from books.models import Book, IngestJob
from entities.models import Fact
from entities.services import fact_store
from notifications.models import Notification
from notifications.services import notification_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser("admin", password="admin-pass"))
    return client


def test_a_fact_cannot_be_deleted_from_the_admin(admin_client):
    fact = fact_store(text="Kemal Sunal was born in Istanbul.").fact
    assert admin_client.get(f"/admin/entities/fact/{fact.pk}/delete/").status_code == 403
    response = admin_client.post(
        "/admin/entities/fact/",
        {"action": "delete_selected", "_selected_action": [fact.pk], "post": "yes"},
    )
    assert response.status_code in (200, 302)
    assert Fact.objects.filter(pk=fact.pk).exists()
    # Retracting stays possible: the change page is there.
    assert admin_client.get(f"/admin/entities/fact/{fact.pk}/change/").status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "/admin/books/book/add/",
        "/admin/books/ingestjob/add/",
        "/admin/books/chunk/add/",
        "/admin/books/mention/add/",
        "/admin/notifications/notification/add/",
    ],
)
def test_nothing_the_pipeline_makes_can_be_made_by_hand(admin_client, url):
    assert admin_client.get(url).status_code == 403
    admin_client.post(url, {"title": "Hand-made", "urgency": "high", "type": "system"})
    assert not Book.objects.exists()
    assert not IngestJob.objects.exists()
    assert not Notification.objects.exists()


def test_notifications_are_marked_read_through_the_service(admin_client):
    n = notification_create(type="system", urgency="high", title="Check Ankara")
    response = admin_client.post(
        "/admin/notifications/notification/",
        {"action": "mark_read", "_selected_action": [n.pk]},
    )
    assert response.status_code == 302
    n.refresh_from_db()
    assert n.read and n.read_at is not None
