"""The language switch keeps the page as the curator sees it, search included."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from entities.services import entity_store

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_switching_language_keeps_a_search_typed_since_the_page_was_drawn(
    page, live_server, e2e_curator
):
    """The search box pushes its query into the address as the curator types; the switch
    sent the address the page was drawn with, so Italian came back with every entity."""
    entity_store(name="Ada Lovelace", type="person")
    entity_store(name="Charles Babbage", type="person")
    log_in(page, live_server, e2e_curator, path="/entities/")
    results = page.locator("#entity-results")
    expect(results).to_contain_text("Charles Babbage")
    page.locator("#entity-q").fill("Lovelace")
    expect(page).to_have_url(f"{live_server.url}/entities/?q=Lovelace&type=")
    expect(results).not_to_contain_text("Charles Babbage")

    page.locator("form.lang-switch").get_by_role("button", name="IT").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Entità")
    expect(page.locator("#entity-q")).to_have_value("Lovelace")
    expect(results).to_contain_text("Ada Lovelace")
    expect(results).not_to_contain_text("Charles Babbage")
