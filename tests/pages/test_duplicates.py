"""The duplicate queue: pairs with their evidence, merge after a preview, or dismiss for
good."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from entities.models import DuplicateSuggestion, Entity, EntityMerge
from entities.services import alias_add, duplicate_scan_request, duplicate_scan_run, entity_store

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _scan() -> None:
    scan, _ = duplicate_scan_request()
    duplicate_scan_run(scan_id=scan.pk)


@pytest.fixture
def pair():
    keeper, _ = entity_store(name="Marie Curie", type="person")
    alias_add(entity=keeper, alias="M. Curie")
    other, _ = entity_store(name="M. Curie", type="person")
    _scan()
    return keeper, other, DuplicateSuggestion.objects.get(status="pending")


def test_the_queue_shows_each_pair_with_its_evidence(curator_client, pair):
    keeper, other, suggestion = pair
    html = curator_client.get(reverse("entities:duplicates")).content.decode()
    assert f'id="suggestion-{suggestion.pk}"' in html
    assert "Marie Curie" in html and "M. Curie" in html
    assert "alias “M. Curie” is the other" in html  # why it was suggested, in words
    assert "1 pending" in html


def test_a_merge_from_the_queue_is_previewed_in_its_row(curator_client, pair):
    keeper, other, suggestion = pair
    target = f"preview-{suggestion.pk}"
    response = curator_client.post(
        reverse("entities:merge-preview", args=[keeper.pk]),
        {"duplicates": [other.pk], "target": target},
        **HTMX,
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert f'<div id="{target}">' in html and f'hx-target="#{target}"' in html
    response = curator_client.post(
        reverse("entities:merge", args=[keeper.pk]), {"duplicates": [other.pk]}, **HTMX
    )
    assert response["HX-Redirect"] == f"/entities/{keeper.pk}/"
    assert not Entity.objects.filter(pk=other.pk).exists()
    assert (
        f'id="suggestion-{suggestion.pk}"'
        not in curator_client.get(reverse("entities:duplicates")).content.decode()
    )


def test_a_dismissed_pair_stays_dismissed(curator_client, reader_client, pair):
    _keeper, _other, suggestion = pair
    url = reverse("entities:dismiss", args=[suggestion.pk])
    assert reader_client.post(url, **HTMX).status_code == 403
    response = curator_client.post(url, **HTMX)
    assert response.status_code == 200 and b"Dismissed" in response.content
    # The heading's count follows at once ("1 pending" stayed over an empty queue).
    html = response.content.decode()
    assert 'id="duplicate-count" hx-swap-oob="true">0 pending<' in html
    undo = curator_client.post(reverse("entities:undismiss", args=[suggestion.pk]), **HTMX)
    assert 'id="duplicate-count" hx-swap-oob="true">1 pending<' in undo.content.decode()
    curator_client.post(url, **HTMX)
    _scan()
    assert not DuplicateSuggestion.objects.filter(status="pending").exists()
    assert (
        "No pending suggestions"
        in curator_client.get(reverse("entities:duplicates")).content.decode()
    )


def test_a_target_that_is_not_an_element_id_is_ignored(curator_client, pair):
    keeper, other, _ = pair
    response = curator_client.post(
        reverse("entities:merge-preview", args=[keeper.pk]),
        {"duplicates": [other.pk], "target": 'x"><script>'},
        **HTMX,
    )
    assert b'<div id="merge-preview">' in response.content and b"<script>" not in response.content


def test_a_dismissal_without_htmx_goes_back_to_the_queue(curator_client, pair):
    """A plain form post (no script) answered with the card alone broke the page (500)."""
    _keeper, _other, suggestion = pair
    response = curator_client.post(reverse("entities:dismiss", args=[suggestion.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("entities:duplicates")
    assert not DuplicateSuggestion.objects.filter(pk=suggestion.pk, status="pending").exists()
    assert curator_client.get(response["Location"]).status_code == 200


@pytest.mark.parametrize("raw", ["²", "①", "9" * 25])
def test_a_suggestion_field_that_is_no_id_still_merges_and_undoes(curator_client, pair, raw):
    keeper, other, _suggestion = pair
    response = curator_client.post(
        reverse("entities:merge", args=[keeper.pk]),
        {"duplicates": [other.pk], "suggestion": raw},
        **HTMX,
    )
    assert response.status_code == 204 and response["HX-Redirect"] == f"/entities/{keeper.pk}/"
    merge = EntityMerge.objects.get()
    response = curator_client.post(
        reverse("entities:merge-undo", args=[merge.pk]), {"suggestion": raw}, **HTMX
    )
    assert response.status_code < 400
    assert Entity.objects.filter(pk=other.pk).exists()


def test_a_stale_dismiss_says_what_became_of_the_pair(curator_client, pair):
    """A second curator's queue still showed the pair another had dismissed or merged:
    their Dismiss answered the 404 page, swapped into the card."""
    keeper, other, suggestion = pair
    url = reverse("entities:dismiss", args=[suggestion.pk])
    assert curator_client.post(url, **HTMX).status_code == 200
    again = curator_client.post(url, **HTMX)  # a double click, or a second curator
    assert again.status_code == 200
    assert f'id="suggestion-{suggestion.pk}"'.encode() in again.content
    assert b"Dismissed" in again.content

    curator_client.post(reverse("entities:undismiss", args=[suggestion.pk]), **HTMX)
    curator_client.post(
        reverse("entities:merge", args=[keeper.pk]),
        {"duplicates": [other.pk], "suggestion": suggestion.pk},
        **HTMX,
    )
    stale = curator_client.post(url, **HTMX)
    assert stale.status_code == 409
    assert f'id="suggestion-{suggestion.pk}"'.encode() in stale.content
    assert b"already merged" in stale.content


def test_a_refused_merge_from_the_queue_keeps_the_pairs_card(curator_client, curator, pair):
    """The queue's Confirm swaps the pair's card: a refusal (here the duplicate another
    curator merged meanwhile) replaced the whole card by a bare error line, its pair and
    buttons gone until a reload."""
    from entities.services import entity_merge

    keeper, other, suggestion = pair
    colleague = User.objects.create_user("colleague")
    entity_merge(survivor=keeper, duplicates=[other], actor=colleague)
    response = curator_client.post(
        reverse("entities:merge", args=[keeper.pk]),
        {
            "duplicates": [other.pk],
            "target": f"preview-{suggestion.pk}",
            "suggestion": suggestion.pk,
        },
        **HTMX,
    )
    assert response.status_code in (400, 409)
    html = response.content.decode()
    assert html.lstrip().startswith(
        f'<article class="card suggestion" id="suggestion-{suggestion.pk}"'
    )
    assert 'role="alert"' in html and "no longer exists" in html


def test_a_pair_of_two_types_merged_anyway_stays_in_the_queue(curator_client):
    """One name under two types is suggested too. Its preview first asks whether they are
    really the same; that "preview anyway" form dropped the pair, so Confirm left the
    queue for the survivor's page instead of marking the pair merged with its Undo."""
    entity_store(name="Tessaly Brook", type="place")
    entity_store(name="Tessaly Brook", type="person")
    _scan()
    suggestion = DuplicateSuggestion.objects.get(status="pending")
    keeper, other = suggestion.entity_a, suggestion.entity_b
    asked = {
        "duplicates": [other.pk],
        "target": f"preview-{suggestion.pk}",
        "suggestion": suggestion.pk,
    }
    preview_url = reverse("entities:merge-preview", args=[keeper.pk])
    refused = curator_client.post(preview_url, asked, **HTMX)
    assert refused.status_code == 400
    assert f'name="suggestion" value="{suggestion.pk}"' in refused.content.decode()
    anyway = curator_client.post(preview_url, {**asked, "allow_cross_type": "1"}, **HTMX)
    html = anyway.content.decode()
    assert f'hx-target="#suggestion-{suggestion.pk}"' in html
    assert f'name="suggestion" value="{suggestion.pk}"' in html
    confirmed = curator_client.post(
        reverse("entities:merge", args=[keeper.pk]), {**asked, "allow_cross_type": "1"}, **HTMX
    )
    assert confirmed.status_code == 200 and "HX-Redirect" not in confirmed
    assert f'id="suggestion-{suggestion.pk}"' in confirmed.content.decode()
    assert not Entity.objects.filter(pk=other.pk).exists()


def test_next_after_deciding_a_whole_page_skips_nothing(curator_client, monkeypatch):
    """Pairs are merged or dismissed in place: "next" from a page whose pairs were all
    decided opened page 2 of the shorter queue and skipped the pairs that moved up."""
    import re

    from entities import merging_pages

    monkeypatch.setattr(merging_pages, "QUEUE_PAGE_SIZE", 2)
    pairs = []
    for i in range(5):
        a, _ = entity_store(name=f"Vessel {i} North", type="ship")
        b, _ = entity_store(name=f"Vessel {i} Nord", type="ship")
        pairs.append(
            DuplicateSuggestion.objects.create(
                pair_key=f"{a.pk}|{b.pk}", entity_a=a, entity_b=b, score=0.9 - i / 100
            )
        )
    first = curator_client.get(reverse("entities:duplicates")).content.decode()
    assert [p for p in pairs if f'id="suggestion-{p.pk}"' in first] == pairs[:2]
    for pair in pairs[:2]:
        curator_client.post(reverse("entities:dismiss", args=[pair.pk]), **HTMX)
    link = re.search(r'<a href="(\?[^"]*)">next', first).group(1).replace("&amp;", "&")
    after = curator_client.get(reverse("entities:duplicates") + link).content.decode()
    assert [p for p in pairs if f'id="suggestion-{p.pk}"' in after] == pairs[2:4]
    assert "3 pending" in after


def test_undo_of_a_dismissal_sent_twice_shows_the_pair_waiting_not_an_error(curator_client, pair):
    """The second of two Undo clicks swapped in "this pair is not dismissed" as an alert
    over the pair the first click had just put back in the queue."""
    _keeper, _other, suggestion = pair
    curator_client.post(reverse("entities:dismiss", args=[suggestion.pk]), **HTMX)
    url = reverse("entities:undismiss", args=[suggestion.pk])
    assert curator_client.post(url, **HTMX).status_code == 200
    again = curator_client.post(url, **HTMX)
    assert again.status_code == 200
    html = again.content.decode()
    assert "Not the same: dismiss" in html and 'role="alert"' not in html
    # a pair never dismissed is still said not to be
    other = DuplicateSuggestion.objects.get(pk=suggestion.pk)
    other.status = "merged"
    other.save()
    refused = curator_client.post(url, **HTMX)
    assert refused.status_code == 409 and b"not dismissed" in refused.content


def test_a_merge_confirmed_twice_from_the_queue_shows_it_merged_not_an_error(curator_client, pair):
    """The second of two Confirm clicks swapped "One of the chosen entities no longer
    exists" as an alert over the card the first click had just marked merged."""
    keeper, other, suggestion = pair
    form = {"duplicates": [other.pk], "suggestion": suggestion.pk}
    url = reverse("entities:merge", args=[keeper.pk])
    assert curator_client.post(url, form, **HTMX).status_code == 200
    again = curator_client.post(url, form, **HTMX)
    assert again.status_code == 200
    html = again.content.decode()
    assert "Merged into “Marie Curie”." in html and 'role="alert"' not in html
    assert EntityMerge.objects.count() == 1


def test_a_merges_undo_clicked_twice_shows_it_undone_not_an_error(curator_client, pair):
    """The second of two Undo clicks on a merged pair swapped "merge 1 cannot be undone
    exactly: merge 1 was already undone" as an alert over the pair just put back."""
    keeper, other, suggestion = pair
    url = reverse("entities:merge", args=[keeper.pk])
    curator_client.post(url, {"duplicates": [other.pk], "suggestion": suggestion.pk}, **HTMX)
    merge = EntityMerge.objects.get()
    undo = reverse("entities:merge-undo", args=[merge.pk])
    assert curator_client.post(undo, {"suggestion": suggestion.pk}, **HTMX).status_code == 200
    again = curator_client.post(undo, {"suggestion": suggestion.pk}, **HTMX)
    assert again.status_code == 200
    html = again.content.decode()
    assert "Merge undone: both entities are back." in html and 'role="alert"' not in html
    # merged again since: the old Undo is refused, it undoes nothing of the new merge
    curator_client.post(url, {"duplicates": [other.pk], "suggestion": suggestion.pk}, **HTMX)
    stale = curator_client.post(undo, {"suggestion": suggestion.pk}, **HTMX)
    assert stale.status_code == 409 and b"already undone" in stale.content
    assert not Entity.objects.filter(pk=other.pk).exists()
