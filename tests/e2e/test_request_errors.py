"""A button whose request fails on the server (a 500) or never reaches it (the network
is down): htmx swaps nothing, so the click looked ignored. The page says it failed and
that nothing on the page changed."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from entities.services import entity_store

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("failure", ["server", "network"])
def test_a_failed_request_is_said_on_the_page(page, live_server, e2e_curator, failure):
    entity, _ = entity_store(name="Orrery Hall", type="place")
    log_in(page, live_server, e2e_curator, path=f"/entities/{entity.pk}/")

    def fail(route):
        if failure == "server":
            route.fulfill(status=500, body="server error")
        else:
            route.abort()

    alert = page.locator("#request-error")
    expect(alert).to_be_hidden()
    page.route(re.compile(r".*/aliases/add$"), fail)
    page.get_by_label("new alias").fill("The Orrery")
    page.get_by_role("button", name="Add alias").click()
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("did not go through")
    expect(page.get_by_role("alert")).to_contain_text("did not go through")
    page.unroute(re.compile(r".*/aliases/add$"))
    page.get_by_role("button", name="Add alias").click()  # works again: the note goes
    expect(page.locator("#aliases")).to_contain_text("The Orrery")
    expect(alert).to_be_hidden()
