"""The bell: unread badge with the HIGH banner, the panel grouped by urgency, mark read,
and notifications addressed to one curator stay theirs."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from notifications.models import Notification
from notifications.services import notification_create

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _notices():
    high = notification_create(type="system", urgency="high", title="Index rebuild failed")
    medium = notification_create(type="duplicate", urgency="medium", title="Two similar facts")
    low = notification_create(type="job_done", urgency="low", title="Book ingested")
    return high, medium, low


def test_the_badge_counts_unread_and_raises_the_high_banner(curator_client):
    _notices()
    html = curator_client.get("/notifications/badge", **HTMX).content.decode()
    assert 'data-count="3"' in html and "badge high" in html
    assert 'id="high-banner" hx-swap-oob="true"' in html and "Index rebuild failed" in html


def test_the_panel_groups_by_urgency_and_marks_read(curator_client):
    high, medium, low = _notices()
    html = curator_client.get("/notifications/panel", **HTMX).content.decode()
    assert html.index("High") < html.index("Medium") < html.index("Low")
    response = curator_client.post(reverse("notifications:read"), {"id": high.pk}, **HTMX)
    assert response.status_code == 200 and response["HX-Trigger"] == "kg:notifications"
    assert b"Index rebuild failed" not in response.content
    badge = curator_client.get("/notifications/badge", **HTMX).content.decode()
    assert 'data-count="2"' in badge and "Urgent" not in badge
    curator_client.post(reverse("notifications:read"), {"all": "1"}, **HTMX)
    assert not Notification.objects.filter(read=False).exists()


def test_marking_an_unknown_notification_is_an_inline_error(curator_client):
    response = curator_client.post(reverse("notifications:read"), {"id": "999"}, **HTMX)
    assert response.status_code == 400 and b'role="alert"' in response.content
    response = curator_client.post(reverse("notifications:read"), {}, **HTMX)
    assert response.status_code == 400


def test_a_notification_for_another_curator_is_not_in_my_bell(curator_client):
    other = User.objects.create_user("grace")
    notification_create(type="system", urgency="high", title="For Grace only", recipient=other)
    html = curator_client.get("/notifications/panel", **HTMX).content.decode()
    assert "For Grace only" not in html


def test_marking_an_unknown_notification_without_htmx_says_so_on_the_page(curator_client):
    """The full-page post redirected as if it had worked: the refusal was dropped."""
    other = User.objects.create_user("grace")
    theirs = notification_create(type="system", urgency="high", title="Grace's", recipient=other)
    response = curator_client.post(
        reverse("notifications:read"), {"id": str(theirs.pk)}, HTTP_REFERER="/", follow=True
    )
    assert response.redirect_chain and response.status_code == 200
    assert f"no notification with id {theirs.pk}" in response.content.decode()
    assert not Notification.objects.get(pk=theirs.pk).read


def test_the_bells_refusals_read_in_italian(curator_client):
    """The bell said "choose a notification" and "no notification with id 5" in English
    on the Italian pages."""
    other = User.objects.create_user("grace")
    theirs = notification_create(type="system", urgency="high", title="Grace's", recipient=other)
    curator_client.post(reverse("set_language"), {"language": "it", "next": "/"})
    url = reverse("notifications:read")
    missing = curator_client.post(url, {"id": "abc"}, **HTMX).content.decode()
    assert "scegli una notifica" in missing
    hidden = curator_client.post(url, {"id": str(theirs.pk)}, **HTMX).content.decode()
    assert f"nessuna notifica con id {theirs.pk}" in hidden and "no notification" not in hidden


def test_a_failed_ingest_reads_in_italian_in_the_bell_and_its_banner(curator_client):
    """The notice is stored in the API's English ('Ingesting Kites failed'): the Italian
    bell showed it so, in the panel and the urgent banner."""
    from books.models import IngestJob
    from books.services.jobs import _notify_failure

    job = IngestJob.objects.create(title="Kites", source_name="kites.md", status="failed")
    _notify_failure(job, "ValueError: bad")
    curator_client.post(reverse("set_language"), {"language": "it", "next": "/"})
    panel = curator_client.get("/notifications/panel", **HTMX).content.decode()
    badge = curator_client.get("/notifications/badge", **HTMX).content.decode()
    for html in (panel, badge):
        assert "Acquisizione di “Kites” non riuscita" in html and "Ingesting" not in html
