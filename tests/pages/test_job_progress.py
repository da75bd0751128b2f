"""What a curator watching an ingest sees: the bar moves forward through the phases and
never back, the line under it names the step, a finished job stops polling, an unchanged
file says so, and the jobs panel shows the latest ten."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from books.models import IngestJob
from books.views import PHASES, RECENT_JOBS, job_view

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def job(**fields) -> IngestJob:
    fields.setdefault("title", "Kites")
    fields.setdefault("source_name", "kites.md")
    return IngestJob.objects.create(**fields)


def bar(html: str) -> int:
    return int(re.search(r'<progress class="progress" max="100" value="(\d+)"', html).group(1))


@pytest.mark.parametrize(
    ("fields", "percent", "line"),
    [
        ({"status": "queued"}, 0, "Waiting for a worker"),
        ({"status": "running"}, 0, "Starting"),
        ({"status": "running", "phase": "parse", "total": 1}, 0, "Step 1 of 4: reading the file"),
        ({"status": "running", "phase": "extract", "done": 5, "total": 10}, 27, "5 / 10"),
        ({"status": "running", "phase": "write", "done": 10, "total": 10}, 65, "Step 3 of 4"),
        ({"status": "running", "phase": "embed", "total": 0}, 65, "Step 4 of 4: indexing"),
        ({"status": "running", "phase": "embed", "done": 40, "total": 40}, 99, "Step 4 of 4"),
        ({"status": "done", "phase": "embed", "done": 40, "total": 40}, 100, "Done"),
        ({"status": "failed", "phase": "extract", "done": 5, "total": 10}, 27, "Failed"),
    ],
    ids=lambda v: v.get("phase", v["status"]) if isinstance(v, dict) else None,
)
def test_the_job_page_shows_the_step_and_how_far_the_whole_job_is(
    curator_client, fields, percent, line
):
    html = curator_client.get(f"/books/jobs/{job(**fields).pk}/").content.decode()
    assert bar(html) == percent
    assert line in html
    finished = fields["status"] in ("done", "failed")
    assert ('hx-trigger="every 1s"' in html) is not finished


@given(
    steps=st.lists(
        st.tuples(st.integers(0, len(PHASES) - 1), st.integers(0, 500), st.integers(0, 500)),
        min_size=2,
        max_size=12,
    )
)
def test_the_bar_never_goes_back_as_a_job_moves_on(steps):
    """Phases come in order and, within one, ``done`` only grows: so must the bar."""
    ordered = sorted((phase, min(done, total), total) for phase, done, total in steps)
    # Within a phase the total is fixed when the phase starts.
    totals = {phase: total for phase, _done, total in reversed(ordered)}
    shown = []
    for phase, done, _total in ordered:
        total = totals[phase]
        view = job_view(
            IngestJob(status="running", phase=PHASES[phase][0], done=min(done, total), total=total)
        )
        assert 0 <= view["percent"] <= 99
        shown.append(view["percent"])
    assert shown == sorted(shown)
    assert job_view(IngestJob(status="done"))["percent"] == 100


def test_an_unchanged_file_says_nothing_was_redone(curator_client):
    unchanged = job(status="done", result={"action": "unchanged", "chunks": 3})
    html = curator_client.get(f"/books/jobs/{unchanged.pk}/").content.decode()
    assert "Unchanged" in html and "nothing was redone" in html
    assert "3 chunks" not in html
    panel = curator_client.get("/books/jobs/", **HTMX).content.decode()
    assert ">unchanged<" in panel


def test_a_job_with_many_warnings_counts_them_and_lists_the_first_twenty(curator_client):
    warned = job(status="done", warnings=[f"chapter {i}: a table was cut" for i in range(25)])
    html = curator_client.get(f"/books/jobs/{warned.pk}/").content.decode()
    assert "25 warnings" in html
    assert html.count("a table was cut") == 20
    assert "chapter 19:" in html and "chapter 20:" not in html


def test_the_jobs_panel_shows_the_latest_ten_and_polls_only_while_one_is_unfinished(
    curator_client,
):
    for i in range(RECENT_JOBS + 2):
        job(title=f"Book {i:02}", status="done", finished_at=timezone.now())
    panel = curator_client.get("/books/jobs/", **HTMX).content.decode()
    titles = re.findall(r">Book (\d\d)<", panel)
    assert titles == [f"{i:02}" for i in range(RECENT_JOBS + 1, 1, -1)]  # newest first
    assert "hx-trigger" not in panel
    job(title="Book running", status="running", phase="extract", done=1, total=4)
    panel = curator_client.get("/books/jobs/", **HTMX).content.decode()
    assert 'hx-trigger="every 2s"' in panel and "finding entities" in panel
    assert "Book 02" not in panel  # pushed out by the newer job


def test_the_job_partial_alone_is_what_htmx_swaps(curator_client):
    running = job(status="running", phase="write", done=1, total=2)
    partial = curator_client.get(f"/books/jobs/{running.pk}/", **HTMX).content.decode()
    assert partial.lstrip().startswith("<section") and "<html" not in partial
    assert f'id="job-{running.pk}"' in partial and 'hx-swap="outerHTML"' in partial


def test_a_done_job_whose_book_was_deleted_says_so(curator_client):
    """The page said only 'Done · 100 %', with no book to open and no word of why."""
    gone = job(status="done", result={"title": "Kites", "chunks": 3, "action": "created"})
    html = curator_client.get(f"/books/jobs/{gone.pk}/").content.decode()
    assert "“Kites” was deleted since." in html
