"""What every page shares: styled error pages, a favicon, no request to a CDN, job
feedback by phase, live counts, alerts that name their entity, the audit log in words."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from books.models import IngestJob
from books.views import job_view
from entities.services import fact_store
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.services import contradiction_store

from .conftest import HTMX

pytestmark = pytest.mark.django_db

CDN = re.compile(r"""(?:src|href)=["']https?://""")


def test_an_unknown_page_is_a_styled_404(curator_client):
    response = curator_client.get("/no/such/page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "kgsite.css" in html and "Go to the dashboard" in html


def test_a_reader_writing_gets_the_styled_403(reader_client, holmes):
    response = reader_client.post(reverse("entities:alias-add", args=[holmes.pk]))
    assert response.status_code == 403 and b"curator permission" in response.content


def test_the_500_page_renders_without_a_request_context():
    from django.template.loader import render_to_string

    html = render_to_string("500.html")
    assert "Something went wrong" in html and "kgsite.css" in html


def test_the_favicon_is_served(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")


def test_no_page_links_a_cdn(curator_client, holmes):
    for url in ["/", f"/entities/{holmes.pk}/", "/integrity/", "/books/", "/api/redoc/"]:
        assert not CDN.search(curator_client.get(url).content.decode()), url
    script = curator_client.get(reverse("redoc-script"))
    assert script.status_code == 200
    body = b"".join(script.streaming_content) if script.streaming else script.content
    assert b"cdn.redoc.ly" not in body and b"Redoc" in body


def test_job_progress_moves_through_the_phases_without_restarting():
    job = IngestJob(status=IngestJob.Status.RUNNING, phase="parse", done=1, total=1)
    seen = [job_view(job)["percent"]]
    for phase in ("extract", "write", "embed"):
        for done in (0, 5, 10):
            job.phase, job.done, job.total = phase, done, 10
            seen.append(job_view(job)["percent"])
    assert seen == sorted(seen) and seen[0] > 0 and seen[-1] < 100
    view = job_view(job)
    assert view["step"] == 4 and view["steps"] == 4


def test_a_second_upload_of_the_same_file_says_unchanged(curator_client):
    job = IngestJob.objects.create(
        title="Harbour", status=IngestJob.Status.DONE, result={"action": "unchanged", "chunks": 3}
    )
    html = curator_client.get(reverse("books:job", args=[job.pk])).content.decode()
    assert "Unchanged" in html and "already ingested" in html


def test_a_job_that_took_seconds_does_not_say_zero_minutes():
    from datetime import timedelta

    from kgsite.templatetags.kgsite import duration

    assert duration(timedelta(seconds=8)) == "8 seconds"
    assert duration(timedelta(seconds=125)) == "2 min 5 s"


def test_the_dashboard_counts_refresh_alone(curator_client, holmes):
    html = curator_client.get("/").content.decode()
    assert 'hx-get="/dashboard/counts"' in html and "every 15s" in html
    counts = curator_client.get("/dashboard/counts").content.decode()
    assert "<html" not in counts and "open contradictions" in counts


def _contradiction(holmes):
    a = fact_store(text="Holmes was born in 1854", entities=[holmes], source="almanac").fact
    b = fact_store(text="Holmes was born in 1861", entities=[holmes], source="letters").fact
    verdict = Verdict("contradiction", "date", 0.95, "the years differ")
    return contradiction_store(fact_a=a, fact_b=b, verdict=verdict) or Contradiction.objects.get(
        fact_a=a, fact_b=b
    )


def test_contradiction_cards_and_bell_items_name_and_link_their_entity(curator_client, holmes):
    c = _contradiction(holmes)
    link = f'href="/entities/{holmes.pk}/"'
    card = curator_client.get(reverse("integrity:detail", args=[c.pk])).content.decode()
    assert card.count(link) >= 2  # both facts' entity (and the heading)
    assert "almanac" in card and "letters" in card
    panel = curator_client.get(reverse("notifications:panel")).content.decode()
    assert link in panel
    badge = curator_client.get(reverse("notifications:badge")).content.decode()
    assert link in badge  # the urgent banner too
    inbox = curator_client.get("/integrity/").content.decode()
    assert 'hx-get="/integrity/count"' in inbox
    assert "1 open" in curator_client.get("/integrity/count", **HTMX).content.decode()


def test_the_audit_log_names_fact_creation_and_keeps_its_filter(curator_client, curator, holmes):
    fact = fact_store(text="Holmes keeps a scrapbook", entities=[holmes], actor=curator).fact
    html = curator_client.get("/audit/", {"action": "fact.create"}).content.decode()
    assert "wrote the fact" in html and f'href="/entities/facts/{fact.pk}/"' in html
    assert "entities.fact" not in html
    undo = re.search(r'action="(/audit/\d+/undo)"', html).group(1)
    response = curator_client.post(undo, {"next": "/audit/?action=fact.create"})
    assert response["Location"] == "/audit/?action=fact.create"
