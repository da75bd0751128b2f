"""The contradiction inbox: urgency order, the two facts side by side with what differs
highlighted, resolve and undo (inline errors), the bell's link, undo from the audit log."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from entities.models import Fact
from entities.services import fact_store
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.services import contradiction_store
from integrity.views import differing_words

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _pair(first: str, second: str, confidence: float = 0.9) -> Contradiction:
    a = fact_store(text=first, source="ledger").fact
    b = fact_store(text=second, source="diary").fact
    found = contradiction_store(
        fact_a=a, fact_b=b, verdict=Verdict("contradiction", "number", confidence, "values differ")
    )
    return found or Contradiction.objects.get(fact_a=a, fact_b=b)


def test_the_words_that_differ_are_marked_on_both_sides():
    a, b = differing_words("The mill burned down in 1842", "The mill burned down in 1851")
    assert [r["text"] for r in a if r["diff"]] == ["1842"]
    assert [r["text"] for r in b if r["diff"]] == ["1851"]
    a, b = differing_words("Ilse owns a red kayak", "Ilse does not own a red kayak")
    assert "".join(r["text"] for r in a) == "Ilse owns a red kayak"
    assert any("not" in r["text"] for r in b if r["diff"])


def test_the_inbox_lists_open_contradictions_most_urgent_first(curator_client):
    low = _pair("The ferry leaves at 7", "The ferry leaves at 9", confidence=0.4)
    high = _pair("The tower is 40 metres tall", "The tower is 55 metres tall", confidence=0.95)
    html = curator_client.get("/integrity/").content.decode()
    assert html.index(f'id="contradiction-{high.pk}"') < html.index(f'id="contradiction-{low.pk}"')
    assert "<mark>40</mark>" in html and "<mark>55</mark>" in html
    assert "ledger" in html and "diary" in html  # the sources, side by side
    assert "2 open" in html


def test_keep_second_supersedes_the_first_and_undo_restores_it(curator_client):
    c = _pair("The tower is 40 metres tall", "The tower is 55 metres tall")
    url = reverse("integrity:resolve", args=[c.pk])
    response = curator_client.post(url, {"resolution": "keep_second"}, **HTMX)
    assert response.status_code == 200
    assert response.templates[0].name == "integrity/_card.html"
    assert b"Resolved: Keep second" in response.content
    assert response["HX-Trigger"] == "kg:notifications"  # the bell refreshes
    assert Fact.objects.get(pk=c.fact_a_id).status == "superseded"
    assert f'id="contradiction-{c.pk}"' not in curator_client.get("/integrity/").content.decode()

    response = curator_client.post(reverse("integrity:undo", args=[c.pk]), **HTMX)
    assert b"Keep first" in response.content  # open again, with its buttons
    assert Fact.objects.get(pk=c.fact_a_id).status == "active"


def test_both_true_without_a_note_is_an_inline_error(curator_client):
    c = _pair("Ada was born in Turin", "Ada was born in Genoa")
    url = reverse("integrity:resolve", args=[c.pk])
    response = curator_client.post(url, {"resolution": "both_true", "note": "  "}, **HTMX)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html and "note" in html and 'aria-invalid="true"' in html
    c.refresh_from_db()
    assert c.status == "open"
    response = curator_client.post(
        url, {"resolution": "both_true", "note": "two people named Ada"}, **HTMX
    )
    assert response.status_code == 200 and b"two people named Ada" in response.content


def test_resolving_twice_is_shown_not_raised(curator_client):
    c = _pair("The lake is 12 km long", "The lake is 19 km long")
    url = reverse("integrity:resolve", args=[c.pk])
    curator_client.post(url, {"resolution": "drop_both"}, **HTMX)
    response = curator_client.post(url, {"resolution": "keep_first"}, **HTMX)
    assert response.status_code == 400 and b"already resolved" in response.content


def test_the_bell_links_a_contradiction_to_its_page(curator_client):
    c = _pair("The tower is 40 metres tall", "The tower is 55 metres tall", confidence=0.95)
    panel = curator_client.get("/notifications/panel").content.decode()
    assert f'href="/integrity/contradictions/{c.pk}/"' in panel
    page = curator_client.get(f"/integrity/contradictions/{c.pk}/")
    assert page.status_code == 200 and b"Keep first" in page.content


def test_the_bells_integrity_notices_read_in_italian(curator_client):
    """Contradictions, duplicates, pairs to check and a check queue's outage are stored
    in the API's English: the Italian bell and its urgent banner showed them so."""
    from integrity.services import _duplicate_notify, _uncertain_notify, fact_check_defer

    _pair("The tower is 40 metres tall", "The tower is 55 metres tall", confidence=0.95)
    a = fact_store(text="The quay is 300 metres long", source="ledger").fact
    b = fact_store(text="The quay is 300 m long", source="diary").fact
    verdict = Verdict("duplicate", "", 0.9, "")
    _duplicate_notify(fact_a=a, fact_b=b, verdict=verdict)
    _uncertain_notify(fact_a=a, fact_b=b, verdict=verdict)
    fact_check_defer(fact_id=a.pk, error="broker down")
    curator_client.post(reverse("set_language"), {"language": "it", "next": "/"})
    panel = curator_client.get("/notifications/panel", **HTMX).content.decode()
    assert "Contraddizione: “The tower is 40 metres tall” contro" in panel
    assert "Possibile duplicato: “The quay is 300 metres long” e" in panel
    assert "Forse in conflitto, da verificare:" in panel
    assert "Non è stato possibile accodare i controlli" in panel
    for english in ("Contradiction:", "Possible duplicate", "Possibly conflicting", "queued"):
        assert english not in panel
    badge = curator_client.get("/notifications/badge", **HTMX).content.decode()
    assert "Contraddizione:" in badge


def test_a_resolution_is_undone_from_the_audit_log(curator_client):
    c = _pair("The tower is 40 metres tall", "The tower is 55 metres tall")
    curator_client.post(reverse("integrity:resolve", args=[c.pk]), {"resolution": "keep_first"})
    audit = curator_client.get("/audit/").content.decode()
    entry = int(re.search(r'action="/audit/(\d+)/undo"', audit).group(1))
    response = curator_client.post(reverse("audit-undo", args=[entry]), follow=True)
    assert "Undone: resolved the contradiction “The tower".encode() in response.content
    assert f"#{entry}".encode() not in response.content  # in words, not entry numbers
    c.refresh_from_db()
    assert c.status == "open"
    response = curator_client.post(reverse("audit-undo", args=[entry]), follow=True)
    assert b"cannot be undone" in response.content
