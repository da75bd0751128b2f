"""Forms as a screen reader hears them: a field's help, and its error message once it has
one, are its description, so moving to the field says what to give and what is wrong."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from entities.services import entity_store

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_fields_error_is_read_as_its_description(page, live_server, e2e_curator):
    entity, _ = entity_store(name="Isolde Marchetti", type="person")
    log_in(page, live_server, e2e_curator, path=f"/entities/{entity.pk}/")
    page.get_by_text("Add a fact").click()
    page.get_by_role("button", name="Save the fact").click()
    fact = page.locator("#facts").get_by_label("Fact", exact=True)
    expect(fact).to_have_attribute("aria-invalid", "true")
    expect(fact).to_have_accessible_description("This field is required.")


def test_a_fields_help_is_read_as_its_description(page, live_server, e2e_curator):
    log_in(page, live_server, e2e_curator, path="/entities/new")
    expect(page.get_by_label("Aliases")).to_have_accessible_description("(one a line)")
