"""The Content-Security-Policy in a real browser (issue 27 item 9): every page keeps
working under it, and Chromium reports no refused script or style.

A refusal shows in the console ("Refused to ... because it violates the following
Content Security Policy directive"); each test collects those and expects none, and
checks that what the page does with scripts still happens: HTMX swaps, the bell's panel,
the graph drawn on its canvas.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from entities.graph.edges import edges_rebuild
from entities.services import entity_store, fact_store
from notifications.services import notification_create

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def refused(page) -> list[str]:
    """The console's CSP refusals on this page, as they happen."""
    messages: list[str] = []

    def keep(message) -> None:
        if "Content Security Policy" in message.text:
            messages.append(message.text)

    page.on("console", keep)
    return messages


def _policy(page, url: str) -> str:
    response = page.goto(url)
    return response.headers.get("content-security-policy", "")


def test_every_page_carries_the_policy(page, live_server, e2e_curator, refused):
    policy = _policy(page, f"{live_server.url}/accounts/login/")
    assert "script-src 'self'" in policy and "object-src 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    log_in(page, live_server, e2e_curator)
    entity, _ = entity_store(name="Saoirse Vantongeren", type="person")
    for path in ("/", "/entities/", f"/entities/{entity.pk}/", "/integrity/", "/books/",
                 "/audit/", "/notifications/"):  # fmt: skip
        assert "default-src 'self'" in _policy(page, f"{live_server.url}{path}"), path
        page.wait_for_load_state("networkidle")
    assert refused == [], "\n".join(refused)


def test_htmx_keeps_working_under_the_policy(page, live_server, e2e_curator, refused):
    entity_store(name="Tamsin Oyelaran", type="person")
    entity_store(name="Tamsin Brevik", type="person")
    notification_create(type="system", urgency="low", title="Index check passed")
    log_in(page, live_server, e2e_curator, path="/entities/")
    page.get_by_label("Search").fill("oyelaran")  # an hx-get swap of the results
    results = page.locator("#entity-results")
    expect(results.get_by_role("link", name="Tamsin Oyelaran")).to_be_visible()
    expect(results.get_by_role("link", name="Tamsin Brevik")).to_have_count(0)
    expect(page.locator("#bell-badge .badge")).to_have_text("1")  # hx-trigger="load"
    page.get_by_label("notifications", exact=True).click()  # hx-get into the panel
    expect(page.locator("#bell-panel")).to_contain_text("Index check passed")
    assert refused == [], "\n".join(refused)


def test_the_graph_page_draws_under_the_policy(page, live_server, e2e_curator, refused):
    app, _ = entity_store(name="Ledgerly", type="software")
    lib, _ = entity_store(name="Quillpack", type="library")
    fact_store(text="Ledgerly uses Quillpack", subject=app, object_entity=lib,
               predicate="uses")  # fmt: skip
    edges_rebuild()
    log_in(page, live_server, e2e_curator, path=f"/graph/entity/{app.pk}/")
    canvas = page.locator("#entity-graph canvas")
    expect(canvas).to_be_visible()
    box = canvas.bounding_box()
    assert box["height"] > 200  # the container's height comes from the stylesheet
    page.wait_for_timeout(500)  # vis-network's first drawing
    drawn = page.evaluate(
        """() => { const c = document.querySelector('#entity-graph canvas');
                   const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                   let n = 0; for (let i = 3; i < d.length; i += 4) { if (d[i]) n++; }
                   return n; }"""
    )
    assert drawn > 100  # nodes and edges painted, not a blank canvas
    assert refused == [], "\n".join(refused)


def test_the_admin_and_the_api_docs_work_under_the_policy(page, live_server, refused):
    from django.contrib.auth.models import User

    User.objects.create_superuser("root", password="root-pass-e2e")
    page.goto(f"{live_server.url}/admin/login/")
    page.get_by_label("Username").fill("root")
    page.get_by_label("Password").fill("root-pass-e2e")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=re.compile("Site administration"))).to_be_visible()
    page.goto(f"{live_server.url}/admin/axes/accessattempt/")
    page.wait_for_load_state("networkidle")
    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator(".swagger-ui .info")).to_be_visible()
    page.goto(f"{live_server.url}/api/redoc/")
    expect(page.get_by_text("kgsite API (1.0.0)").first).to_be_visible(timeout=60_000)
    # ReDoc's footer asks its CDN for a logo: refused like anything from outside the site.
    refused = [m for m in refused if "https://cdn.redoc.ly/" not in m]
    assert refused == [], "\n".join(refused)
