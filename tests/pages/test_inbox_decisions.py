"""The contradiction inbox when decisions meet: a fact in two contradictions, undo after
a later decision, bad resolutions and ids, the count and the pages. What a curator sees
is the card with an inline error and nothing changed; never a fact lost by a click."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from entities.models import Fact
from entities.services import fact_store, fact_update
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.services import contradiction_store
from integrity.views import INBOX_PAGE_SIZE
from kgsite.models import AuditEntry

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _facts(*heights: int) -> list[Fact]:
    return [fact_store(text=f"The tower is {h} metres tall").fact for h in heights]


def _pair(a: Fact, b: Fact, confidence: float = 0.9) -> Contradiction:
    verdict = Verdict("contradiction", "number", confidence, "values differ")
    found = contradiction_store(fact_a=a, fact_b=b, verdict=verdict)
    return found or Contradiction.objects.get(fact_a=a, fact_b=b)


def _resolve(client, pair: Contradiction, resolution: str, note: str = ""):
    url = reverse("integrity:resolve", args=[pair.pk])
    return client.post(url, {"resolution": resolution, "note": note}, **HTMX)


def _statuses() -> dict[int, str]:
    return dict(Fact.objects.values_list("pk", "status"))


@pytest.mark.parametrize("resolution", ["keep_first", "keep_second"])
def test_keeping_a_fact_another_decision_ended_is_refused_and_changes_nothing(
    curator_client, resolution
):
    a, b, c, d = _facts(40, 55, 61, 70)
    pair = _pair(b, c)
    # another decision ends the fact this one would keep: b (the first) or c (the second)
    ended = b if resolution == "keep_first" else c
    other = _pair(a, ended) if ended is b else _pair(ended, d)
    assert _resolve(curator_client, other, "keep_first" if ended is b else "keep_second")
    assert Fact.objects.get(pk=ended.pk).status == "superseded"
    before = _statuses()
    response = _resolve(curator_client, pair, resolution)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html and f"fact {ended.pk} is superseded already" in html
    assert _statuses() == before
    pair.refresh_from_db()
    assert pair.status == "open"


def test_drop_both_still_settles_a_pair_whose_fact_another_decision_ended(curator_client):
    a, b, c = _facts(40, 55, 61)
    first, second = _pair(a, b), _pair(a, c)
    _resolve(curator_client, first, "keep_second")
    assert _resolve(curator_client, second, "drop_both").status_code == 200
    # a ended already (superseded by b): it stays so, its history not rewritten
    assert _statuses() == {a.pk: "superseded", b.pk: "active", c.pk: "retracted"}


def test_undo_after_the_fact_changed_since_is_refused(curator_client, curator):
    a, b, c = _facts(40, 55, 61)
    first, second = _pair(a, b), _pair(a, c)
    _resolve(curator_client, first, "keep_second")  # a: active -> superseded
    # a later decision leaves the ended fact as it is; a curator's own edit does not
    assert _resolve(curator_client, second, "drop_both").status_code == 200
    fact_update(fact=Fact.objects.get(pk=a.pk), actor=curator, status="retracted")
    before = _statuses()
    response = curator_client.post(reverse("integrity:undo", args=[first.pk]), **HTMX)
    assert response.status_code == 409
    assert f"fact {a.pk} changed since" in response.content.decode()
    assert _statuses() == before


@pytest.mark.parametrize("resolution", ["", "keep_both", "KEEP_FIRST", "keep_first "])
def test_a_resolution_that_is_no_choice_is_an_inline_error(curator_client, resolution):
    pair = _pair(*_facts(40, 55))
    response = _resolve(curator_client, pair, resolution)
    assert response.status_code == 400
    assert "resolution must be one of" in response.content.decode()
    pair.refresh_from_db()
    assert pair.status == "open" and set(_statuses().values()) == {"active"}
    assert not AuditEntry.objects.filter(action="contradiction.resolve").exists()


def test_undoing_an_open_contradiction_is_an_inline_conflict(curator_client):
    pair = _pair(*_facts(40, 55))
    response = curator_client.post(reverse("integrity:undo", args=[pair.pk]), **HTMX)
    assert response.status_code == 409
    assert "nothing to undo" in response.content.decode()


@pytest.mark.parametrize("view", ["integrity:resolve", "integrity:undo", "integrity:detail"])
def test_an_unknown_contradiction_is_a_404(curator_client, view):
    method = curator_client.get if view.endswith("detail") else curator_client.post
    assert method(reverse(view, args=[987654]), **HTMX).status_code == 404


def test_a_reader_may_look_but_not_resolve(reader_client):
    pair = _pair(*_facts(40, 55))
    assert _resolve(reader_client, pair, "keep_first").status_code == 403
    pair.refresh_from_db()
    assert pair.status == "open" and set(_statuses().values()) == {"active"}


def test_a_reader_is_offered_no_resolution_buttons(reader_client, curator_client):
    """Every other page hides what a reader may not do; the inbox showed a reader the
    four resolutions and Undo, and a click answered the 403 page inside the card."""
    pair = _pair(*_facts(40, 55))
    for url in (reverse("integrity:inbox"), reverse("integrity:detail", args=[pair.pk])):
        html = reader_client.get(url).content.decode()
        assert f'id="contradiction-{pair.pk}"' in html
        assert 'value="keep_first"' not in html and "/resolve" not in html
        assert "Only curators resolve contradictions." in html
    _resolve(curator_client, pair, "keep_first")
    html = reader_client.get(reverse("integrity:detail", args=[pair.pk])).content.decode()
    assert "Resolved:" in html and "/undo" not in html
    other = _pair(*_facts(7, 9))
    assert 'value="keep_first"' in curator_client.get(reverse("integrity:inbox")).content.decode()
    assert other.status == "open"


def test_the_count_follows_resolutions_and_undo(curator_client):
    first, second = _pair(*_facts(40, 55)), _pair(*_facts(7, 9))
    assert b"2 open" in curator_client.get(reverse("integrity:count")).content
    _resolve(curator_client, first, "keep_first")
    assert b"1 open" in curator_client.get(reverse("integrity:count")).content
    curator_client.post(reverse("integrity:undo", args=[first.pk]), **HTMX)
    assert b"2 open" in curator_client.get(reverse("integrity:count")).content
    assert second.pk


@pytest.mark.parametrize("page", ["abc", "0", "-1", "999"])
def test_a_page_number_out_of_range_shows_a_page_of_the_inbox(curator_client, page):
    pairs = [_pair(*_facts(10 + i, 100 + i)) for i in range(INBOX_PAGE_SIZE + 1)]
    response = curator_client.get(reverse("integrity:inbox"), {"page": page})
    assert response.status_code == 200
    shown = [p for p in pairs if f'id="contradiction-{p.pk}"'.encode() in response.content]
    assert shown  # the first or the last page, never an empty one or an error


def test_the_api_answers_the_same_refusal_as_a_409_naming_the_field(curator_api):
    a, b, c = _facts(40, 55, 61)
    ended, pair = _pair(a, b), _pair(b, c)
    url = "/api/v1/integrity/contradictions/{}/resolve"
    assert curator_api.post(url.format(ended.pk), {"resolution": "keep_first"}).status_code == 200
    response = curator_api.post(url.format(pair.pk), {"resolution": "keep_first"}, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert (error["field"], error["code"]) == ("resolution", "kept_inactive")
    assert _statuses() == {a.pk: "active", b.pk: "superseded", c.pk: "active"}


@pytest.mark.parametrize("note", ["two towers\x00", "two\x01towers"])
def test_a_note_with_control_characters_is_an_inline_error(curator_client, note):
    pair = _pair(*_facts(40, 55))
    response = _resolve(curator_client, pair, "both_true", note=note)
    assert response.status_code == 400
    assert "note must be text without control characters" in response.content.decode()
    pair.refresh_from_db()
    assert pair.status == "open" and pair.note == ""


@pytest.mark.parametrize("note", ["\u200b", "\u200b \u200e", "\ufeff\u2060"])
def test_both_true_with_a_note_that_shows_nothing_is_an_inline_error(curator_client, note):
    """A pasted note of zero-width spaces or bidi marks settled the pair as "both true"
    with a note that says nothing (the card showed “”)."""
    pair = _pair(*_facts(40, 55))
    response = _resolve(curator_client, pair, "both_true", note=note)
    assert response.status_code == 400
    assert "say in a note why both facts are true" in response.content.decode()
    pair.refresh_from_db()
    assert pair.status == "open"


def test_a_note_past_the_apis_limit_is_an_inline_error(curator_client):
    """The API takes a note of up to 5,000 characters; the inbox stored one of 100,000
    (and its audit row a second copy)."""
    pair = _pair(*_facts(40, 55))
    response = _resolve(curator_client, pair, "both_true", note="two towers " * 10_000)
    assert response.status_code == 400
    assert "The note is longer than 5000 characters." in response.content.decode()
    pair.refresh_from_db()
    assert pair.status == "open" and pair.note == ""
    html = curator_client.get(reverse("integrity:detail", args=[pair.pk])).content.decode()
    assert 'maxlength="5000"' in html  # the box itself stops there


def test_a_note_may_run_over_lines(curator_client):
    pair = _pair(*_facts(40, 55))
    note = "Two towers:\nthe old one and the new one."
    assert _resolve(curator_client, pair, "both_true", note=note).status_code == 200
    pair.refresh_from_db()
    assert pair.note == note


def _undo_form(html: str) -> dict[str, str]:
    """The hidden fields of a resolved card's Undo form, as the browser posts them."""
    form = re.search(r"<form[^>]*integrity/contradictions/\d+/undo.*?</form>", html, re.S)
    assert form, "the resolved card offers Undo"
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form.group(0)))


def test_undo_on_a_stale_card_leaves_a_later_decision_alone(curator_client):
    """A curator's card still showed their "keep first" with its Undo; meanwhile another
    curator had undone it and kept the second. The stale Undo reopened the other's
    decision (the second fact came back) without either of them knowing."""
    a, b = _facts(40, 55)
    pair = _pair(a, b)
    stale = _undo_form(_resolve(curator_client, pair, "keep_first").content.decode())
    assert curator_client.post(reverse("integrity:undo", args=[pair.pk]), **HTMX).status_code == 200
    assert _resolve(curator_client, pair, "keep_second").status_code == 200
    response = curator_client.post(reverse("integrity:undo", args=[pair.pk]), stale, **HTMX)
    assert response.status_code == 409
    assert "decided again" in response.content.decode()
    pair.refresh_from_db()
    assert (pair.status, pair.resolution) == ("resolved", "keep_second")
    assert _statuses() == {a.pk: "superseded", b.pk: "active"}
    # the card it answers is the current one: its Undo undoes the decision it shows
    current = _undo_form(response.content.decode())
    assert (
        curator_client.post(reverse("integrity:undo", args=[pair.pk]), current, **HTMX).status_code
        == 200
    )
    pair.refresh_from_db()
    assert pair.status == "open"


def test_a_fact_superseded_by_a_resolution_says_so_on_its_page(curator_client, reader_client):
    """The fact page's "history" lists the fact's own audit rows; the resolution that
    superseded it is the contradiction's, so a curator opening the superseded fact found
    no word of why it ended, nor a way back to the decision (and its Undo)."""
    a, b = _facts(120, 135)
    pair = _pair(a, b)
    assert _resolve(curator_client, pair, "keep_second").status_code == 200
    page = curator_client.get(reverse("entities:fact", args=[a.pk])).content.decode()
    card = reverse("integrity:detail", args=[pair.pk])
    assert f'href="{card}"' in page
    assert "The tower is 135 metres tall" in page and "Keep second" in page
    # a fact of a project readers do not see is not quoted to them
    hidden = fact_store(text="The tower is 150 metres tall", scope="harbour").fact
    _pair(b, hidden)
    shown = reader_client.get(reverse("entities:fact", args=[b.pk])).content.decode()
    assert "150 metres" not in shown and f'href="{card}"' in shown


def test_the_inbox_count_follows_a_decision_at_once(curator_client):
    """Resolving a card left the heading's "2 open" until its 15-second poll: the count
    now also reloads on the event every decision and undo sends."""
    a, b, c = _facts(10, 20, 30)
    pair = _pair(a, b)
    _pair(b, c)
    inbox = curator_client.get(reverse("integrity:inbox")).content.decode()
    count = re.search(r'<small[^>]*id="open-count"[^>]*>', inbox).group(0)
    resolved = _resolve(curator_client, pair, "keep_second")
    assert resolved["HX-Trigger"] in count  # the count listens to the event it sends
    assert "2 open" in inbox
    assert "1 open" in curator_client.get(reverse("integrity:count"), **HTMX).content.decode()


def test_next_after_resolving_a_whole_page_skips_nothing(curator_client, monkeypatch):
    """Cards are resolved in place, so the open list moves up under the page: "next" from
    a page whose cards were all resolved opened page 2 of the shorter list, and the
    contradictions that had moved onto page 1 were skipped."""
    from integrity import views

    monkeypatch.setattr(views, "INBOX_PAGE_SIZE", 2)
    pairs = [_pair(*_facts(200 + i, 300 + i), confidence=0.9 - i / 100) for i in range(5)]
    first = curator_client.get(reverse("integrity:inbox")).content.decode()
    shown = [p for p in pairs if f'id="contradiction-{p.pk}"' in first]
    assert shown == pairs[:2] and "5 open" in first
    for pair in shown:
        assert _resolve(curator_client, pair, "both_true", note="two towers").status_code == 200
    link = re.search(r'<a href="(\?[^"]*)">next', first).group(1).replace("&amp;", "&")
    after = curator_client.get(reverse("integrity:inbox") + link).content.decode()
    assert [p for p in pairs if f'id="contradiction-{p.pk}"' in after] == pairs[2:4]
    assert "3 open" in after


def _resolve_form(html: str) -> dict[str, str]:
    """The hidden fields of an open card's resolve form, as the browser posts them."""
    form = re.search(r"<form[^>]*integrity/contradictions/\d+/resolve.*?</form>", html, re.S)
    assert form, "the open card offers its resolutions"
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form.group(0)))


def test_resolving_a_card_whose_fact_was_edited_since_is_refused(curator_client, curator):
    """The inbox showed "40 metres" against "55 metres"; meanwhile another curator
    rewrote the first fact. "Drop both" retracted the rewritten fact, whose words the
    curator never saw. Now the card comes back as it is, the note kept, nothing changed."""
    a, b = _facts(40, 55)
    pair = _pair(a, b)
    drawn = _resolve_form(
        curator_client.get(reverse("integrity:detail", args=[pair.pk])).content.decode()
    )
    fact_update(fact=a, actor=curator, text="The tower was 40 metres tall before 1990")
    url = reverse("integrity:resolve", args=[pair.pk])
    response = curator_client.post(
        url, {**drawn, "resolution": "drop_both", "note": "both wrong"}, **HTMX
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "edited since your page showed it" in html and "before 1990" in html
    assert "both wrong" in html  # the note typed is kept
    pair.refresh_from_db()
    assert pair.status == "open" and set(_statuses().values()) == {"active"}
    # decided again on the card as it is now: taken
    current = _resolve_form(html)
    response = curator_client.post(url, {**current, "resolution": "drop_both"}, **HTMX)
    assert response.status_code == 200
    assert set(_statuses().values()) == {"retracted"}


def test_the_edited_fact_refusal_reads_in_italian(curator_client, curator):
    a, b = _facts(40, 55)
    pair = _pair(a, b)
    curator_client.post(reverse("set_language"), {"language": "it", "next": "/"})
    drawn = _resolve_form(
        curator_client.get(reverse("integrity:detail", args=[pair.pk])).content.decode()
    )
    fact_update(fact=a, actor=curator, text="The tower was 40 metres tall before 1990")
    response = curator_client.post(
        reverse("integrity:resolve", args=[pair.pk]),
        {**drawn, "resolution": "keep_first"},
        **HTMX,
    )
    assert response.status_code == 409
    assert "è stato modificato dopo che la pagina" in response.content.decode()


def test_the_cards_refusals_read_in_italian(curator_client):
    """The resolve and undo refusals were the service's English sentences on the
    Italian inbox: a missing note, a double click, an undo of an open card, a kept fact
    another decision ended."""
    a, b, c = _facts(40, 55, 61)
    pair = _pair(a, b)
    curator_client.post(reverse("set_language"), {"language": "it", "next": "/"})
    said = _resolve(curator_client, pair, "both_true").content.decode()
    assert "scrivi in una nota perché entrambi i fatti sono veri" in said
    undo = curator_client.post(reverse("integrity:undo", args=[pair.pk]), **HTMX)
    assert "non c&#x27;è nulla da annullare" in undo.content.decode()
    assert _resolve(curator_client, pair, "keep_second").status_code == 200
    twice = _resolve(curator_client, pair, "keep_first").content.decode()
    assert "è già risolta (Tieni il secondo)" in twice
    ended = _resolve(curator_client, _pair(a, c), "keep_first").content.decode()
    assert f"il fatto {a.pk} è già superato, quindi non può essere tenuto" in ended
    assert "already" not in said + twice + ended and "nothing to undo" not in undo.content.decode()


@pytest.mark.parametrize(("resolution", "note"), [("keep_first", ""), ("both_true", "two towers")])
def test_a_decision_sent_twice_shows_it_taken_not_an_error(curator_client, resolution, note):
    """A double click (or the key pressed twice) sent the same decision twice: the second
    answer swapped in "already resolved; undo it first" as an alert over the decision
    the first one had just made."""
    pair = _pair(*_facts(40, 55))
    assert _resolve(curator_client, pair, resolution, note=note).status_code == 200
    again = _resolve(curator_client, pair, resolution, note=note)
    assert again.status_code == 200
    html = again.content.decode()
    assert "Resolved:" in html and 'role="alert"' not in html
    assert AuditEntry.objects.filter(action="contradiction.resolve").count() == 1
    # another decision than the one taken is still refused
    other = _resolve(curator_client, pair, "drop_both")
    assert other.status_code == 400 and "already resolved" in other.content.decode()


def test_an_undo_sent_twice_shows_the_card_reopened_not_an_error(curator_client):
    """The second of two Undo clicks swapped in "not resolved; nothing to undo" as an
    alert over the card the first one had just reopened."""
    pair = _pair(*_facts(40, 55))
    form = _undo_form(_resolve(curator_client, pair, "keep_first").content.decode())
    url = reverse("integrity:undo", args=[pair.pk])
    assert curator_client.post(url, form, **HTMX).status_code == 200
    again = curator_client.post(url, form, **HTMX)
    assert again.status_code == 200
    html = again.content.decode()
    assert 'value="keep_first"' in html and 'role="alert"' not in html
    assert AuditEntry.objects.filter(action="contradiction.undo").count() == 1
    # an Undo on a card that never showed a decision is still said to have nothing to undo
    bare = curator_client.post(url, **HTMX)
    assert bare.status_code == 409 and "nothing to undo" in bare.content.decode()
