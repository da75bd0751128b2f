"""The curator's day in Chromium, on a laptop and on a phone: upload a book and review its
candidates, merge a duplicate found by shared facts (the queue stays in place, with
undo), resolve a contradiction reached from the bell in Italian (and undo it with `u`
right away), edit a fact and undo the edit from the audit log, remove an alias (asked
first, undone after). No page asks anything of another host.

Screenshots go to ``KGSITE_SCREENSHOTS_DIR`` when it is set (``docs/screenshots``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from entities.models import Entity, Fact
from entities.services import (
    alias_add,
    duplicate_scan_request,
    duplicate_scan_run,
    entity_store,
    fact_store,
)
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.services import contradiction_store

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 860}
BOOK = """# Harbour Notes

## Kestrel Light

The Kestrel Light is a granite lighthouse on the north mole of Port Varrow. Keepers of
the Kestrel Light logged every ship that passed. Orla Brenn built the Kestrel Light.

## Morning Ferry

The Morning Ferry crosses from Port Varrow to Tamsin Island twice a day. The Morning
Ferry carries the post. Orla Brenn sailed on the Morning Ferry.

## Tamsin Island

Tamsin Island lies east of Port Varrow. Orla Brenn retired to Tamsin Island.
"""


def _shots(tmp_path) -> Path:
    folder = Path(os.environ.get("KGSITE_SCREENSHOTS_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _fits_a_phone(page, name: str) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} is {overflow}px wider than a phone"


@pytest.fixture(params=["laptop", "phone"])
def device(request, browser):
    viewport = LAPTOP if request.param == "laptop" else PHONE
    context = browser.new_context(viewport=viewport, device_scale_factor=1)
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.device = request.param
    yield page
    context.close()


def test_upload_a_book_then_review_its_candidates(device, live_server, e2e_curator, tmp_path):
    page, folder = device, _shots(tmp_path)
    book = tmp_path / "harbour-notes.md"
    book.write_text(BOOK, encoding="utf-8")
    log_in(page, live_server, e2e_curator, path="/books/")
    page.get_by_label(re.compile("^File")).set_input_files(str(book))
    page.get_by_label("Title").fill("Harbour Notes")
    page.get_by_role("button", name="Upload and ingest").click(timeout=120_000)
    job = page.locator(".job")
    expect(job).to_have_attribute("data-status", "done")
    expect(job).not_to_contain_text("0 minutes")
    if page.device == "laptop":
        page.screenshot(path=str(folder / "day-1-upload-done.png"), full_page=True)
    Entity.objects.filter(mentions__book__title="Harbour Notes").update(candidate=True)
    job.get_by_role("link", name="Review its candidates").click()
    rows = page.locator(".candidate-row")
    expect(rows.first).to_be_visible()
    expect(rows.first.locator("blockquote").first).to_be_visible()  # the evidence beside it
    if page.device == "phone":
        _fits_a_phone(page, "candidates")
    page.screenshot(path=str(folder / f"candidates-{page.device}.png"), full_page=True)

    first = rows.first
    name = first.locator(".name").inner_text()
    first.get_by_role("checkbox").check()
    page.get_by_role("button", name="Reject").click()
    notice = page.locator("#candidates .msg")
    expect(notice).to_contain_text("Rejected 1 candidate")
    assert not Entity.objects.filter(canonical_name=name).exists()
    notice.get_by_role("button", name="Undo").click()
    expect(page.locator("#candidates .msg")).to_contain_text("Brought back 1 candidate")
    assert Entity.objects.get(canonical_name=name).candidate

    page.get_by_label("all on this page").check()
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("#candidates .msg")).to_contain_text("Accepted")
    expect(page.locator(".candidate-row")).to_have_count(0)
    assert not Entity.objects.filter(candidate=True).exists()


def _ada_pair():
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    king, _ = entity_store(name="Augusta Ada King", type="person")
    engine, _ = entity_store(name="Analytical Engine", type="work")
    babbage, _ = entity_store(name="Charles Babbage", type="person")
    facts = [
        (ada, "wrote_about", engine, "Ada Lovelace wrote the notes on the Analytical Engine"),
        (ada, "worked_with", babbage, "Ada Lovelace worked with Charles Babbage"),
        (
            king,
            "translated",
            engine,
            "Augusta Ada King translated the paper on the Analytical Engine",
        ),
        (king, "wrote_to", babbage, "Augusta Ada King wrote letters to Charles Babbage"),
    ]
    for subject, predicate, obj, text in facts:
        fact_store(text=text, subject=subject, predicate=predicate, object_entity=obj)
    scan, _new = duplicate_scan_request()
    duplicate_scan_run(scan_id=scan.pk)
    return ada, king


def test_merge_a_duplicate_found_by_shared_facts_and_undo_in_place(
    device, live_server, e2e_curator, tmp_path
):
    page, folder = device, _shots(tmp_path)
    ada, king = _ada_pair()
    log_in(page, live_server, e2e_curator, path="/entities/duplicates/")
    found = page.locator(".suggestion").filter(has_text="Augusta Ada King")
    expect(found).to_contain_text("2 shared neighbours: Analytical Engine, Charles Babbage")
    card = page.locator(f"#{found.get_attribute('id')}")
    card.get_by_role("button", name=re.compile("Keep A|Keep B")).first.click()
    preview = card.get_by_label("merge preview")
    expect(preview.locator(".side")).to_have_count(2)  # side by side
    expect(preview).to_contain_text("becomes an alias")
    expect(preview).to_contain_text("translated the paper")  # the facts that move
    if page.device == "phone":
        _fits_a_phone(page, "merge preview")
    page.screenshot(path=str(folder / f"duplicates-{page.device}.png"), full_page=True)
    preview.get_by_role("button", name="Confirm merge").click()
    expect(card).to_contain_text("Merged into")
    assert "/entities/duplicates/" in page.url  # the queue stays where it was
    assert Entity.objects.filter(pk__in=[ada.pk, king.pk]).count() == 1
    card.get_by_role("button", name="Undo").click()
    expect(card).to_contain_text("Merge undone")
    assert Entity.objects.filter(pk__in=[ada.pk, king.pk]).count() == 2


def test_resolve_from_the_bell_in_italian_then_undo_with_u(
    device, live_server, e2e_curator, tmp_path
):
    page, folder = device, _shots(tmp_path)
    tower, _ = entity_store(name="Torre Civica", type="place")
    older = fact_store(
        text="The clock tower is 40 metres tall", entities=[tower], source="guide"
    ).fact
    newer = fact_store(
        text="The clock tower is 55 metres tall", entities=[tower], source="survey"
    ).fact
    contradiction = contradiction_store(
        fact_a=older,
        fact_b=newer,
        verdict=Verdict("contradiction", "number", 0.95, "the heights differ"),
    ) or Contradiction.objects.get(fact_a=older, fact_b=newer)

    log_in(page, live_server, e2e_curator)
    page.locator(".lang-switch").get_by_role("button", name="IT").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pannello")
    page.get_by_label("notifiche", exact=True).click()
    panel = page.locator("#bell-panel")
    expect(panel.get_by_role("link", name="Torre Civica")).to_be_visible()  # what it is about
    if page.device == "laptop":
        page.screenshot(path=str(folder / "bell-it-laptop.png"))
    panel.get_by_role("link", name=re.compile("clock tower")).click()

    card = page.locator(f"#contradiction-{contradiction.pk}")
    expect(card.get_by_role("link", name="Torre Civica").first).to_be_visible()
    expect(card).to_contain_text("survey")
    if page.device == "phone":
        _fits_a_phone(page, "contradiction")
    page.screenshot(path=str(folder / f"contradiction-it-{page.device}.png"), full_page=True)
    page.locator("h1").click()
    page.keyboard.press("2")
    expect(card).to_contain_text("Risolta: Tieni il secondo")
    expect(card).to_have_class(re.compile("current"))  # it stays the current card
    page.keyboard.press("u")  # right away
    expect(card.get_by_role("button", name=re.compile("Tieni il primo"))).to_be_visible()
    assert Contradiction.objects.get(pk=contradiction.pk).status == "open"


def test_edit_a_fact_then_undo_it_from_the_audit_log(device, live_server, e2e_curator, tmp_path):
    page, folder = device, _shots(tmp_path)
    harbour, _ = entity_store(name="Port Varrow", type="place")
    fact = fact_store(text="Port Varrow has two piers", entities=[harbour], source="map").fact
    log_in(page, live_server, e2e_curator, path=f"/entities/{harbour.pk}/")
    page.locator(f"#fact-{fact.pk}").get_by_role("link", name="Edit").click()
    page.get_by_label("Fact", exact=True).fill("Port Varrow has three piers")
    page.get_by_label("Source").fill("harbour survey")
    if page.device == "phone":
        _fits_a_phone(page, "fact edit")
    page.screenshot(path=str(folder / f"fact-edit-{page.device}.png"), full_page=True)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("Fact saved.")
    expect(page.locator("#facts")).to_contain_text("three piers")

    page.goto(f"{live_server.url}/audit/?action=fact.update")
    row = page.locator("tr").filter(has_text="three piers")
    expect(row).to_contain_text("edited the fact")
    page.screenshot(path=str(folder / f"audit-undo-{page.device}.png"), full_page=True)
    row.get_by_role("button", name="Undo").click()
    expect(page.locator(".messages")).to_contain_text("Undone: edited the fact")
    expect(page.locator(".messages")).not_to_contain_text("#")
    assert "action=fact.update" in page.url  # the filter is kept
    fact.refresh_from_db()
    assert fact.text == "Port Varrow has two piers" and fact.source == "map"


def test_add_a_triple_and_see_the_neighbourhood(device, live_server, e2e_curator, tmp_path):
    page, folder = device, _shots(tmp_path)
    harbour, _ = entity_store(name="Port Varrow", type="place")
    entity_store(name="Tamsin Island", type="place")
    alias_add(entity=harbour, alias="Varrow")
    alias_add(entity=harbour, alias="the Port")
    log_in(page, live_server, e2e_curator, path=f"/entities/{harbour.pk}/")
    expect(page.locator("#neighbourhood")).to_contain_text("No relations yet")

    page.locator("#facts summary").click()
    page.get_by_label("Fact", exact=True).fill("Port Varrow has a ferry to Tamsin Island")
    page.get_by_label("Predicate").fill("ferry_to")
    page.get_by_label("Object entity").fill("Tamsin Island")
    page.get_by_role("button", name="Save the fact").click()
    expect(page.locator("#facts")).to_contain_text("Saved the fact")
    assert Fact.objects.get(predicate="ferry_to").object_entity.canonical_name == "Tamsin Island"

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="remove alias Varrow").click()
    expect(page.locator("#aliases")).to_contain_text("Removed the alias")
    page.locator("#aliases").get_by_role("button", name="Undo").click()
    expect(page.locator("#aliases .chip").filter(has_text="Varrow").first).to_be_visible()

    page.reload()
    expect(page.locator("#entity-graph")).to_have_attribute("data-drawn", "true")
    expect(page.locator("#neighbourhood")).to_contain_text("ferry_to")
    if page.device == "phone":
        _fits_a_phone(page, "entity")
    page.screenshot(path=str(folder / f"entity-graph-{page.device}.png"), full_page=True)
    page.get_by_role("link", name="full graph").click()
    expect(page.locator("#entity-graph")).to_have_attribute("data-drawn", "true")
    page.get_by_role("link", name=re.compile("Back to the entity")).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Port Varrow")


def test_no_page_requests_another_host(page, live_server, e2e_curator):
    harbour, _ = entity_store(name="Port Varrow", type="place")
    foreign: list[str] = []
    page.on(
        "request",
        lambda request: (
            foreign.append(request.url)
            if not request.url.startswith((live_server.url, "data:", "blob:"))
            else None
        ),
    )
    log_in(page, live_server, e2e_curator)
    for path in ["/", f"/entities/{harbour.pk}/", "/integrity/", "/books/", "/books/candidates/",
                 "/entities/duplicates/", "/audit/", f"/graph/entity/{harbour.pk}/",
                 "/api/redoc/", "/api/docs/", "/no/such/page/"]:  # fmt: skip
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
    assert foreign == []
    expect(page.locator(".error-code")).to_have_text("404")
