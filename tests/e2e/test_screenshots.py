"""The main pages on a laptop and on a phone, in Chromium, with a small demo graph.

On a phone nothing may be wider than the screen (no sideways scrolling). The pictures
are this test's by-product: in the pytest tmp dir, or in ``KGSITE_SCREENSHOTS_DIR``
(``make screenshots`` writes ``docs/screenshots/``, which the README shows).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.db.models import Count

from books.services import book_ingest
from entities.models import Entity
from entities.services import alias_add, entity_store, fact_store
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.services import contradiction_store
from notifications.services import notification_create

from .conftest import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SAMPLE_BOOK = Path(__file__).resolve().parents[2] / "data" / "sample" / "books"
LAPTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}


def _demo(curator) -> dict:
    """A small graph a curator might find on a Monday morning."""
    hopper, _ = entity_store(name="Grace Hopper", type="person", actor=curator)
    alias_add(entity=hopper, alias="Amazing Grace", actor=curator)
    duplicate, _ = entity_store(name="G. M. Hopper", type="person")
    fact_store(text="Grace Hopper worked on the Harvard Mark I", entities=[hopper],
               source="biography", confidence=0.95)  # fmt: skip
    fact_store(text="Grace Hopper led the team that built the first compiler",
               entities=[hopper], source="encyclopedia")  # fmt: skip
    fact_store(text="G. M. Hopper wrote the A-0 system", entities=[duplicate], source="paper")
    retired = "Grace Hopper retired from the Navy in {}"
    pairs = [
        (retired.format(1986), retired.format(1966), 0.93),
        ("The Mark I weighed about 4.3 tonnes", "The Mark I weighed about 5 tonnes", 0.71),
    ]
    for first, second, confidence in pairs:
        a = fact_store(text=first, entities=[hopper], source="obituary").fact
        b = fact_store(text=second, entities=[hopper], source="navy record").fact
        verdict = Verdict("contradiction", "date", confidence, "the two statements disagree")
        contradiction_store(fact_a=a, fact_b=b, verdict=verdict) or Contradiction.objects.get(
            fact_a=a, fact_b=b
        )
    notification_create(type="system", urgency="low", title="Nightly index check passed")
    result = book_ingest(path=SAMPLE_BOOK / "15-appendix-ph-a-conditions.md", extractor="offline")
    # The most mentioned entity of the book, for a page with mentions grouped by book.
    mentioned = (
        Entity.objects.filter(mentions__book=result.book)
        .annotate(n=Count("mentions"))
        .order_by("-n", "name_norm")
        .first()
    )
    fact_store(text=f"{mentioned.canonical_name} is a condition", entities=[mentioned],
               source="rules summary")  # fmt: skip
    return {"entity": hopper, "book": result.book, "mentioned": mentioned}


def _pages(demo: dict) -> dict[str, str]:
    chunk = demo["book"].chunks.order_by("ordinal")[1]
    return {
        "dashboard": "/",
        "entities": "/entities/?q=hop",
        "entity": f"/entities/{demo['entity'].pk}/",
        "entity-mentions": f"/entities/{demo['mentioned'].pk}/",
        "contradictions": "/integrity/",
        "books": "/books/",
        "book": f"/books/{demo['book'].pk}/",
        "chunk": f"/books/chunks/{chunk.pk}/",
        "audit": "/audit/",
    }


def test_main_pages_fit_a_laptop_and_a_phone(browser, live_server, e2e_curator, tmp_path):
    demo = _demo(e2e_curator)
    folder = Path(os.environ.get("KGSITE_SCREENSHOTS_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    for device, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport, device_scale_factor=1)
        page = context.new_page()
        log_in(page, live_server, e2e_curator)
        for name, path in _pages(demo).items():
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("networkidle")
            page.wait_for_selector("#bell-badge .badge")
            if device == "phone":
                overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                assert overflow <= 0, f"{name} is {overflow}px wider than a phone"
            page.screenshot(path=str(folder / f"{name}-{device}.png"), full_page=name != "book")
        if device == "laptop":
            page.goto(f"{live_server.url}/")
            page.get_by_label("notifications", exact=True).click()
            page.wait_for_selector("#bell-panel .bell-group")
            page.screenshot(path=str(folder / "bell-laptop.png"))
        context.close()
