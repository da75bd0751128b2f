"""Back after acting on a queue: the browser asks the server again, so the page shows
what is, not the queue as it was before the action (with its counts and buttons)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from entities.services import duplicate_scan_request, duplicate_scan_run, entity_store, fact_store

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _pair() -> None:
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    king, _ = entity_store(name="Augusta Ada King", type="person")
    engine, _ = entity_store(name="Analytical Engine", type="work")
    babbage, _ = entity_store(name="Charles Babbage", type="person")
    for subject, predicate, obj in [
        (ada, "wrote_about", engine),
        (ada, "worked_with", babbage),
        (king, "translated", engine),
        (king, "wrote_to", babbage),
    ]:
        text = f"{subject.canonical_name} {predicate} {obj.canonical_name}"
        fact_store(text=text, subject=subject, predicate=predicate, object_entity=obj)
    scan, _new = duplicate_scan_request()
    duplicate_scan_run(scan_id=scan.pk)


def test_back_after_a_dismissal_shows_the_queue_as_it_is(page, live_server, e2e_curator):
    _pair()
    log_in(page, live_server, e2e_curator, path="/entities/duplicates/")
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_contain_text("1 pending")
    card = page.locator(".suggestion").first
    card.get_by_role("button", name=re.compile("dismiss")).click()
    expect(card).to_contain_text("Dismissed")
    expect(heading).to_contain_text("0 pending")
    page.get_by_role("navigation", name="main").get_by_role("link", name="Entities").click()
    expect(heading).to_contain_text("Entities")
    page.go_back()
    expect(heading).to_contain_text("0 pending")  # not the "1 pending" it showed first
    expect(page.get_by_role("button", name=re.compile("Keep A"))).to_have_count(0)
