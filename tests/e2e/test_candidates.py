"""The candidate review queue in the browser: the heading's count follows each decision,
and Enter in a field of the bulk bar does what that field is for."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from entities.models import Entity
from entities.services import entity_store

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ("Kestrel Light", "Morning Ferry", "Tamsin Island")


def _candidates() -> None:
    for name in NAMES:
        entity, _ = entity_store(name=name, type="place")
        Entity.objects.filter(pk=entity.pk).update(candidate=True)


def test_the_waiting_count_follows_each_decision(page, live_server, e2e_curator):
    _candidates()
    log_in(page, live_server, e2e_curator, path="/books/candidates/")
    count = page.locator("h1 #candidate-count")
    expect(count).to_have_text("3 waiting")
    page.get_by_role("checkbox", name="choose Kestrel Light").check()
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("#candidates .msg")).to_contain_text("Accepted 1 candidate")
    expect(count).to_have_text("2 waiting")
    page.get_by_role("checkbox", name="choose Morning Ferry").check()
    page.get_by_role("button", name="Reject").click()
    expect(count).to_have_text("1 waiting")
    page.locator("#candidates .msg").get_by_role("button", name="Undo").click()
    expect(count).to_have_text("2 waiting")


def test_enter_in_the_merge_target_merges_and_enter_on_a_box_accepts_nothing(
    page, live_server, e2e_curator
):
    _candidates()
    target, _ = entity_store(name="Port Varrow Harbour", type="place")
    log_in(page, live_server, e2e_curator, path="/books/candidates/")
    box = page.get_by_role("checkbox", name="choose Kestrel Light")
    box.check()
    box.press("Enter")
    page.wait_for_timeout(500)  # a request would have been made by now
    assert Entity.objects.filter(candidate=True).count() == 3
    page.get_by_label("merge into").fill("Port Varrow Harbour")
    page.get_by_label("merge into").press("Enter")
    expect(page.locator("#candidates .msg")).to_contain_text("Merged")
    assert not Entity.objects.filter(canonical_name="Kestrel Light").exists()
    assert target.aliases.filter(alias="Kestrel Light").exists()


def test_a_filtered_queue_stays_one_region_through_its_decisions(page, live_server, e2e_curator):
    """The filters put the queue inside the page's own region of the same id, so the
    page held two; a decision then replaced the outer one."""
    _candidates()
    entity, _ = entity_store(name="Harbour Guild", type="organization")
    Entity.objects.filter(pk=entity.pk).update(candidate=True)
    log_in(page, live_server, e2e_curator, path="/books/candidates/")
    page.locator('select[name="type"]').select_option("place")
    expect(page.get_by_role("checkbox", name="choose Harbour Guild")).to_have_count(0)
    expect(page.locator("[id=candidates]")).to_have_count(1)
    page.get_by_role("checkbox", name="choose Kestrel Light").check()
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("#candidates .msg")).to_contain_text("Accepted 1 candidate")
    expect(page.locator("[id=candidates]")).to_have_count(1)
    expect(page.locator('select[name="type"]')).to_have_value("place")
