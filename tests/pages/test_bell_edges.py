"""The bell at its edges: where following a notification leads, where marking one read
without htmx sends the browser back to (never off the site), what a reader's bell holds,
and bad ids."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from books.models import IngestJob
from entities.services import entity_store, fact_store
from notifications.models import Notification
from notifications.services import notification_create, notification_mark_unread_by_key

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _notice(**kwargs) -> Notification:
    kwargs.setdefault("type", "system")
    kwargs.setdefault("urgency", "medium")
    kwargs.setdefault("title", "Something to look at")
    return notification_create(**kwargs)


def _open(client, notification: Notification):
    return client.get(reverse("notifications:open", args=[notification.pk]))


# --- following a notification ------------------------------------------------------------------


def test_a_failed_job_leads_to_the_job_page(curator_client):
    job = IngestJob.objects.create(title="Kites", source_name="kites.md", status="failed")
    notice = _notice(
        type="job_failed",
        urgency="high",
        title="Ingesting Kites failed",
        payload={"job_id": job.pk, "error": "bad"},
        link=f"/api/v1/jobs/{job.pk}/",
    )
    response = _open(curator_client, notice)
    assert response.status_code == 302 and response["Location"] == f"/books/jobs/{job.pk}/"
    notice.refresh_from_db()
    assert notice.read is False  # it stays until dealt with


def test_a_failed_job_notice_without_its_id_leads_home_not_to_the_api(curator_client):
    notice = _notice(type="job_failed", payload={}, link="/api/v1/jobs/7/")
    response = _open(curator_client, notice)
    assert response.status_code == 302 and response["Location"] == "/"


def test_a_notice_about_two_facts_leads_to_the_newer_fact(curator_client):
    harbour, _ = entity_store(name="Kestrel Harbour", type="place")
    older = fact_store(text="Kestrel Harbour has two moles.", entities=[harbour]).fact
    newer = fact_store(text="Kestrel Harbour has three moles.", entities=[harbour]).fact
    notice = _notice(
        type="duplicate",
        payload={"fact_a": {"id": older.pk}, "fact_b": {"id": newer.pk}},
        link="/api/v1/facts/",
    )
    response = _open(curator_client, notice)
    assert response["Location"] == reverse("entities:fact", args=[newer.pk])
    panel = curator_client.get("/notifications/panel", **HTMX).content.decode()
    assert "Kestrel Harbour" in panel  # the bell says what the notice is about


def test_a_page_link_is_followed_as_stored(curator_client):
    notice = _notice(link="/books/")
    assert _open(curator_client, notice)["Location"] == "/books/"


@pytest.mark.parametrize("pk", ["999999", "99999999999999999999"])
def test_an_unknown_notification_is_a_404(curator_client, pk):
    assert curator_client.get(f"/notifications/{pk}/").status_code == 404


def test_another_curators_notification_is_a_404(curator_client):
    grace = User.objects.create_user("grace")
    notice = _notice(title="For Grace only", recipient=grace)
    assert _open(curator_client, notice).status_code == 404


# --- marking read without htmx ------------------------------------------------------------------


def test_marking_read_from_a_plain_form_returns_to_the_page_it_was_on(curator_client):
    notice = _notice()
    response = curator_client.post(
        reverse("notifications:read"), {"id": notice.pk, "next": "/books/?page=2"}
    )
    assert response.status_code == 302 and response["Location"] == "/books/?page=2"
    notice.refresh_from_db()
    assert notice.read is True


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/phish",
        "//evil.example/phish",
        "///evil.example",
        "javascript:alert(1)",
        "http:\\\\evil.example",
    ],
)
def test_marking_read_never_sends_the_browser_off_the_site(curator_client, target):
    notice = _notice()
    response = curator_client.post(reverse("notifications:read"), {"id": notice.pk, "next": target})
    assert response.status_code == 302
    location = response["Location"]
    assert location == "/", location


@pytest.mark.parametrize("target", ["home", "no-such-view", "books:list"])
def test_a_next_that_is_no_path_is_no_server_error(curator_client, target):
    notice = _notice()
    response = curator_client.post(reverse("notifications:read"), {"id": notice.pk, "next": target})
    assert response.status_code == 302
    notice.refresh_from_db()
    assert notice.read is True


def test_marking_all_read_leaves_another_curators_own_notice_unread(curator_client):
    grace = User.objects.create_user("grace")
    hers = _notice(title="For Grace only", recipient=grace)
    _notice(title="For every curator")
    curator_client.post(reverse("notifications:read"), {"all": "1"}, **HTMX)
    hers.refresh_from_db()
    assert hers.read is False
    assert Notification.objects.filter(recipient__isnull=True, read=False).count() == 0


def test_mark_all_read_leaves_a_notice_raised_after_the_panel_was_drawn(curator_client):
    """The panel was open when an urgent notice came in (the badge showed it, the panel
    did not): "Mark all read" marked it read before anyone had seen it."""
    seen = _notice(title="Shown in the panel")
    panel = curator_client.get(reverse("notifications:panel"), **HTMX).content.decode()
    form = re.search(r"<form[^>]*notifications/read.*?</form>", panel, re.S).group(0)
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
    late = _notice(title="Raised after the panel was drawn", urgency="high")
    response = curator_client.post(reverse("notifications:read"), fields, **HTMX)
    assert response.status_code == 200
    seen.refresh_from_db()
    late.refresh_from_db()
    assert seen.read is True and late.read is False
    assert "Raised after the panel was drawn" in response.content.decode()


def test_mark_all_read_leaves_a_notice_reopened_after_the_panel_was_drawn(curator_client):
    """An older notice reopened while the panel was open (an undone resolution raises it
    again) has an id below the ones shown: "Mark all read" marked it read unseen."""
    older = _notice(title="Reopened while the panel was open", key="pair:1")
    Notification.objects.filter(pk=older.pk).update(read=True)
    seen = _notice(title="Shown in the panel")
    panel = curator_client.get(reverse("notifications:panel"), **HTMX).content.decode()
    assert "Reopened while" not in panel
    form = re.search(r"<form[^>]*notifications/read.*?</form>", panel, re.S).group(0)
    fields: dict[str, list[str]] = {}
    for name, value in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form):
        fields.setdefault(name, []).append(value)
    notification_mark_unread_by_key(key="pair:1")
    response = curator_client.post(reverse("notifications:read"), fields, **HTMX)
    assert response.status_code == 200
    seen.refresh_from_db()
    older.refresh_from_db()
    assert seen.read is True and older.read is False
    assert "Reopened while the panel was open" in response.content.decode()


@pytest.mark.parametrize("raw", ["abc", "-1", "1.5", "", " 3", "²", "①", "9" * 25])
def test_a_malformed_id_is_an_inline_error_and_marks_nothing(curator_client, raw):
    _notice()
    response = curator_client.post(reverse("notifications:read"), {"id": raw}, **HTMX)
    assert response.status_code == 400 and b'role="alert"' in response.content
    assert "HX-Trigger" not in response
    assert Notification.objects.filter(read=True).count() == 0


# --- who sees the bell ------------------------------------------------------------------------


def test_a_readers_bell_holds_only_their_own_notices(reader_client, reader):
    _notice(urgency="high", title="A contradiction for the curators")
    _notice(urgency="low", title="Your book is in", recipient=reader)
    badge = reader_client.get("/notifications/badge", **HTMX).content.decode()
    assert 'data-count="1"' in badge and "contradiction" not in badge
    panel = reader_client.get("/notifications/panel", **HTMX).content.decode()
    assert "Your book is in" in panel and "for the curators" not in panel


def test_a_reader_may_not_mark_read_even_their_own(reader_client, reader):
    """Writes on the site need the curator permission; the reader's notice stays."""
    mine = _notice(urgency="low", title="Your book is in", recipient=reader)
    response = reader_client.post(reverse("notifications:read"), {"id": mine.pk}, **HTMX)
    assert response.status_code == 403
    mine.refresh_from_db()
    assert mine.read is False


def test_a_readers_bell_offers_no_mark_read_buttons(reader_client, reader):
    """Marking read needs the curator permission on the site: the reader's panel
    offered "Mark read" and "Mark all read", and each click swapped the 403 page into
    the bell. The panel says instead that the notices stay until a curator acts."""
    _notice(urgency="high", title="Your book failed", recipient=reader)
    panel = reader_client.get("/notifications/panel", **HTMX).content.decode()
    assert "Your book failed" in panel and "Only curators mark" in panel
    assert reverse("notifications:read") not in panel and "Mark" not in panel
    banner = reader_client.get("/notifications/badge", **HTMX).content.decode()
    assert "Your book failed" in banner and reverse("notifications:read") not in banner


def test_a_visitor_is_sent_to_log_in():
    client = Client()
    for path in ("/notifications/badge", "/notifications/panel"):
        response = client.get(path)
        assert response.status_code == 302 and "login" in response["Location"]
    notice = _notice()
    assert client.post(reverse("notifications:read"), {"id": notice.pk}).status_code == 302
    notice.refresh_from_db()
    assert notice.read is False


def test_the_badge_counts_past_the_panels_twenty(curator_client):
    for i in range(25):
        _notice(urgency="low", title=f"Note {i}")
    badge = curator_client.get("/notifications/badge", **HTMX).content.decode()
    assert 'data-count="25"' in badge
    panel = curator_client.get("/notifications/panel", **HTMX).content.decode()
    assert panel.count("Note ") == 20 and "Note 24" in panel and "Note 4<" not in panel
