"""The review queue of extraction's candidates: filtered by book and type, with their
mentions beside them; accept, retype, merge and reject (undone with its mentions) in bulk."""

from __future__ import annotations

import pytest
from django.urls import reverse

from books.models import Mention
from books.services import book_ingest
from entities.models import Entity
from entities.services import entity_store

from .conftest import HTMX

pytestmark = pytest.mark.django_db

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


@pytest.fixture
def book(tmp_path):
    path = tmp_path / "harbour.md"
    path.write_text(BOOK, encoding="utf-8")
    result = book_ingest(path=path, extractor="offline", embed=False)
    Entity.objects.filter(mentions__book=result.book).update(candidate=True)
    return result.book


def _candidates(book) -> list[Entity]:
    return list(Entity.objects.filter(candidate=True, mentions__book=book).distinct())


def test_the_queue_lists_candidates_with_their_mentions(curator_client, book):
    found = _candidates(book)
    assert found, list(Entity.objects.values_list("canonical_name", "candidate"))
    html = curator_client.get(reverse("books:candidates"), {"book": book.pk}).content.decode()
    for entity in found:
        assert f'value="{entity.pk}"' in html
    assert "<blockquote>" in html and f"{book.title} #" in html  # contexts, with the book
    other_type = curator_client.get(
        reverse("books:candidates"), {"book": book.pk, "type": "no-such-type"}, **HTMX
    ).content.decode()
    assert "No candidates waiting" in other_type


def test_the_queue_is_one_region_the_filters_and_decisions_replace(curator_client, book):
    """The page wrapped the queue's own region in a second one of the same id, and the
    filters put the queue inside it: every decision then replaced the outer one."""
    page = curator_client.get(reverse("books:candidates")).content.decode()
    assert page.count('id="candidates"') == 1
    swapped = curator_client.get(reverse("books:candidates"), {"book": book.pk}, **HTMX)
    assert swapped.content.decode().count('id="candidates"') == 1


def test_the_type_filter_takes_the_type_as_written(curator_client, book):
    """A link or a hand-typed address says "Place" or "place"; both are the menu's place."""
    places = [e for e in _candidates(book) if e.type == "place"]
    assert places
    for written in ("place", "Place", " PLACE "):
        response = curator_client.get(reverse("books:candidates"), {"type": written}, **HTMX)
        html = response.content.decode()
        assert all(f'value="{e.pk}"' in html for e in places), written
        assert "No candidates waiting" not in html


def test_accept_confirms_them_and_they_leave_the_queue(curator_client, book):
    ids = [e.pk for e in _candidates(book)]
    response = curator_client.post(
        reverse("books:candidates-decide"), {"action": "accept", "ids": ids}, **HTMX
    )
    assert response.status_code == 200 and b"Accepted" in response.content
    assert not Entity.objects.filter(pk__in=ids, candidate=True).exists()


def test_retype_gives_the_type_and_confirms(curator_client, book):
    entity = _candidates(book)[0]
    curator_client.post(
        reverse("books:candidates-decide"),
        {"action": "retype", "ids": [entity.pk], "new_type": "place"},
        **HTMX,
    )
    entity.refresh_from_db()
    assert entity.type == "place" and not entity.candidate


def test_merge_into_an_existing_entity_by_name(curator_client, book):
    target, _ = entity_store(name="North Mole Light", type="place")
    entity = _candidates(book)[0]
    response = curator_client.post(
        reverse("books:candidates-decide"),
        {"action": "merge", "ids": [entity.pk], "target": "north mole light"},
        **HTMX,
    )
    assert "Merged into “North Mole Light”".encode() in response.content
    assert not Entity.objects.filter(pk=entity.pk).exists()
    assert Mention.objects.filter(entity=target).exists()


def test_reject_then_undo_brings_back_the_entity_and_its_mentions(curator_client, book):
    entity = _candidates(book)[0]
    mentions = Mention.objects.filter(entity=entity).count()
    aliases = sorted(entity.aliases.values_list("alias", flat=True))
    response = curator_client.post(
        reverse("books:candidates-decide") + f"?book={book.pk}",
        {"action": "reject", "ids": [entity.pk]},
        **HTMX,
    )
    html = response.content.decode()
    assert "Rejected 1 candidate" in html and "Undo" in html
    assert not Entity.objects.filter(pk=entity.pk).exists()
    undo = html.split('hx-post="/books/candidates/rejected/')[1].split('"')[0]
    response = curator_client.post(f"/books/candidates/rejected/{undo}", **HTMX)
    assert b"Brought back 1 candidate" in response.content
    back = Entity.objects.get(pk=entity.pk)
    assert back.candidate and back.canonical_name == entity.canonical_name
    assert Mention.objects.filter(entity=back).count() == mentions
    assert sorted(back.aliases.values_list("alias", flat=True)) == aliases


def test_nothing_chosen_is_an_inline_error(curator_client, book):
    response = curator_client.post(reverse("books:candidates-decide"), {"action": "accept"}, **HTMX)
    assert response.status_code == 400 and b'role="alert"' in response.content


@pytest.mark.parametrize("raw", ["²", "①", "9" * 25])
def test_a_book_filter_that_is_no_id_lists_every_book(curator_client, book, raw):
    response = curator_client.get(reverse("books:candidates"), {"book": raw}, **HTMX)
    assert response.status_code == 200
    assert "Kestrel Light" in response.content.decode()


def test_readers_see_the_queue_but_cannot_decide(reader_client, book):
    assert reader_client.get(reverse("books:candidates")).status_code == 200
    ids = [e.pk for e in _candidates(book)]
    response = reader_client.post(
        reverse("books:candidates-decide"), {"action": "reject", "ids": ids}
    )
    assert response.status_code == 403
    assert Entity.objects.filter(pk__in=ids).count() == len(ids)


def test_a_decision_on_a_later_page_stays_on_that_page(curator_client):
    """Accepting candidates on page 2 of a filtered queue came back on page 1: the
    curator lost their place after every decision."""
    import re

    for n in range(45):
        entity_store(name=f"Quorvane {n:02d}", type="concept")
    Entity.objects.update(candidate=True)
    page = curator_client.get(reverse("books:candidates"), {"type": "concept", "page": 2})
    html = page.content.decode()
    assert "page 2 of 3" in html
    action = re.search(r'hx-post="([^"]*candidates/decide[^"]*)"', html).group(1)
    shown = re.findall(r'name="ids" value="([^"]+)"', html)
    response = curator_client.post(
        action.replace("&amp;", "&"),
        {"action": "accept", "ids": shown[:2], "type_filter": "concept"},
        **HTMX,
    )
    assert response.status_code == 200
    after = response.content.decode()
    assert "Accepted 2 candidates" in after and "page 2 of 3" in after
    # the pager's links keep the filter and do not repeat the page
    assert "?page=3&amp;type=concept" in after and "page=2&amp;page" not in after


def test_a_book_whose_candidates_are_all_reviewed_stays_the_chosen_filter(curator_client, book):
    """The job page's 'Review its candidates' link after they were all accepted: the menu
    said 'all books' over 'No candidates waiting', as if none waited anywhere."""
    types = {e.type for e in _candidates(book)}
    curator_client.post(
        reverse("books:candidates-decide"),
        {"action": "accept", "ids": [e.pk for e in _candidates(book)]},
        **HTMX,
    )
    html = curator_client.get(reverse("books:candidates"), {"book": book.pk}).content.decode()
    assert "No candidates waiting" in html
    assert f'<option value="{book.pk}" selected>{book.title}</option>' in html
    chosen = sorted(types)[0]
    html = curator_client.get(reverse("books:candidates"), {"type": chosen}).content.decode()
    assert f'<option value="{chosen}" selected>' in html
