"""The bell follows what the curator does on other pages at once, not at its next poll
(every 10 s): an action that deals with a notice takes it off the badge and the urgent
banner in the same click. Its panel closes as a pop-up does."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from playwright.sync_api import expect

from books.models import IngestJob
from books.services import ingest_jobs_recover, jobs
from notifications.services import notification_create

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NOTES = "# Harbour Notes\n\n## Kestrel Light\n\nThe Kestrel Light stands on the north mole.\n"


def _failed_job(tmp_path) -> IngestJob:
    """A job whose worker kept dying: failed, with its urgent notice."""
    source = tmp_path / "harbour-notes.md"
    source.write_text(NOTES, encoding="utf-8")
    job = IngestJob.objects.create(
        title="Harbour Notes",
        source_name=source.name,
        source_path=str(source),
        extractor="offline",
    )
    IngestJob.objects.filter(pk=job.pk).update(
        status="running",
        attempts=settings.KGSITE_JOB_MAX_ATTEMPTS,
        phase="extract",
        updated_at=timezone.now() - timedelta(seconds=settings.KGSITE_JOB_LEASE_SECONDS + 1),
    )
    ingest_jobs_recover()
    job.refresh_from_db()
    assert job.status == "failed"
    return job


def test_retry_takes_the_failure_off_the_bell_at_once(
    page, live_server, e2e_curator, tmp_path, monkeypatch
):
    job = _failed_job(tmp_path)
    monkeypatch.setattr(jobs, "_enqueue", lambda job_id: None)  # it waits for a worker
    log_in(page, live_server, e2e_curator, path=f"/books/jobs/{job.pk}/")
    banner = page.locator("#high-banner")
    expect(banner).to_contain_text("Harbour Notes")
    badge = page.locator("#bell-badge .badge")
    expect(badge).to_have_attribute("data-count", "1")
    page.get_by_role("button", name="Retry").click()
    expect(page.locator(".job")).to_have_attribute("data-status", "queued")
    # Well before the badge's next poll.
    expect(badge).to_have_attribute("data-count", "0", timeout=3_000)
    expect(banner).to_be_empty(timeout=1_000)


def test_the_bells_panel_closes_with_escape_or_a_click_elsewhere(page, live_server, e2e_curator):
    notification_create(type="system", urgency="low", title="Index check passed")
    log_in(page, live_server, e2e_curator)
    bell = page.get_by_label("notifications", exact=True)
    panel = page.locator("#bell-panel")
    bell.click()
    expect(panel).to_contain_text("Index check passed")
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(bell).to_be_focused()  # the keyboard goes on from the bell
    bell.click()
    expect(panel).to_be_visible()
    page.get_by_role("heading", level=1).click()
    expect(panel).to_be_hidden()
