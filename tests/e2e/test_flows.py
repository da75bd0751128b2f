"""A new curator's first hour, in a real browser: log in, find an entity, merge two
entities (preview, confirm, undo), resolve a contradiction reached from the bell, and
upload a book watching its job reach done."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from entities.models import Entity
from entities.services import alias_add, entity_store, fact_store
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.services import contradiction_store

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_log_in_and_search_an_entity_by_alias(page, live_server, e2e_curator):
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    alias_add(entity=ada, alias="Countess of Lovelace")
    entity_store(name="Charles Babbage", type="person")

    page.goto(f"{live_server.url}/entities/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    log_in(page, live_server, e2e_curator, path="/entities/")
    expect(page.get_by_role("heading", name="Entities")).to_be_visible()

    page.get_by_label("Search").fill("COUNTESS")  # an alias, in another case
    results = page.locator("#entity-results")
    expect(results.get_by_role("link", name="Ada Lovelace")).to_be_visible()
    expect(results.get_by_role("link", name="Charles Babbage")).to_have_count(0)

    results.get_by_role("link", name="Ada Lovelace").click()
    expect(page.get_by_role("heading", name=re.compile("Ada Lovelace"))).to_be_visible()
    expect(page.locator("#aliases")).to_contain_text("Countess of Lovelace")


def test_merge_two_entities_with_preview_then_undo(page, live_server, e2e_curator):
    survivor, _ = entity_store(name="Grace Hopper", type="person")
    duplicate, _ = entity_store(name="G. M. Hopper", type="person")
    alias_add(entity=duplicate, alias="Amazing Grace")
    fact_store(text="G. M. Hopper wrote the first compiler", entities=[duplicate])

    log_in(page, live_server, e2e_curator, path=f"/entities/{survivor.pk}/")
    merge = page.locator("#merge")
    merge.get_by_label("find a duplicate").fill("g. m.")
    merge.get_by_label(re.compile("G. M. Hopper")).check()
    merge.get_by_role("button", name="Preview merge").click()

    preview = page.get_by_label("merge preview")
    expect(preview).to_contain_text("1 aliases move")
    expect(preview).to_contain_text("1 fact links move")
    expect(preview).to_contain_text("G. M. Hopper")  # its name becomes an alias
    assert Entity.objects.filter(pk=duplicate.pk).exists()  # the preview wrote nothing

    preview.get_by_role("button", name="Confirm merge").click()
    expect(page.locator(".messages")).to_contain_text("Merged")
    expect(page.locator("#aliases")).to_contain_text("G. M. Hopper")
    expect(page.locator("#facts")).to_contain_text("wrote the first compiler")
    assert not Entity.objects.filter(pk=duplicate.pk).exists()

    page.get_by_role("button", name="Undo merge").click()
    expect(page.locator(".messages")).to_contain_text("Merge undone")
    expect(page.locator("#aliases")).not_to_contain_text("G. M. Hopper")
    page.goto(f"{live_server.url}/entities/{duplicate.pk}/")
    expect(page.get_by_role("heading", name=re.compile("G. M. Hopper"))).to_be_visible()
    expect(page.locator("#aliases")).to_contain_text("Amazing Grace")


def test_resolve_a_contradiction_reached_from_the_bell(page, live_server, e2e_curator):
    older = fact_store(text="The bridge opened in 1931", source="guide").fact
    newer = fact_store(text="The bridge opened in 1937", source="atlas").fact
    # The background check (inline in tests) may have found the pair already.
    contradiction = contradiction_store(
        fact_a=older,
        fact_b=newer,
        verdict=Verdict("contradiction", "date", 0.95, "the opening years differ"),
    ) or Contradiction.objects.get(fact_a=older, fact_b=newer)

    log_in(page, live_server, e2e_curator)
    expect(page.locator("#high-banner")).to_contain_text("Contradiction")
    expect(page.locator("#bell-badge .badge")).to_have_text("1")
    page.get_by_label("notifications", exact=True).click()
    page.locator("#bell-panel").get_by_role("link", name=re.compile("bridge")).click()

    card = page.locator(f"#contradiction-{contradiction.pk}")
    expect(card.locator("mark").first).to_have_text("1931")
    page.keyboard.press("3")  # both true, without the note it needs
    expect(card.get_by_role("alert")).to_contain_text("note")
    page.locator("h1").click()
    page.keyboard.press("2")  # keep the second fact
    expect(card).to_contain_text("Resolved: Keep second")
    expect(page.locator("#bell-badge .badge")).to_have_text("0")
    older.refresh_from_db()
    assert older.status == "superseded"

    page.keyboard.press("u")
    expect(card.get_by_role("button", name=re.compile("Keep first"))).to_be_visible()
    older.refresh_from_db()
    assert older.status == "active"
    assert Contradiction.objects.get(pk=contradiction.pk).status == "open"


def test_upload_a_book_and_watch_it_reach_done(page, live_server, e2e_curator, tmp_path):
    book = tmp_path / "harbour-notes.md"
    book.write_text(
        "# Harbour notes\n\n## Lighthouses\n\nThe Kestrel Light is a granite tower on the "
        "north mole. Keepers of the Kestrel Light logged every ship.\n\n## Ferries\n\n"
        "The Morning Ferry crosses to the island twice a day.\n",
        encoding="utf-8",
    )
    log_in(page, live_server, e2e_curator, path="/books/")
    page.get_by_label(re.compile("^File")).set_input_files(str(book))
    page.get_by_label("Title").fill("Harbour Notes")
    # The queue runs the job inline in tests (Q_CLUSTER sync): the upload answers when done.
    page.get_by_role("button", name="Upload and ingest").click(timeout=120_000)

    job = page.locator(".job")
    expect(job).to_have_attribute("data-status", "done")
    expect(job.get_by_role("progressbar")).to_have_attribute("value", "100")
    job.get_by_role("link", name=re.compile("Harbour Notes")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Harbour Notes")
    expect(page.locator(".chapters")).to_contain_text("Lighthouses")
    expect(page.locator("#chunks")).to_contain_text("Kestrel Light is a granite tower")
