"""Entity pages: search as you type, the entity page, aliases inline, merge with a
preview and an undo."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from entities.models import Entity
from entities.services import alias_add, entity_store, fact_store

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def test_search_finds_names_words_and_aliases_normalised_like_lookup(curator_client, holmes):
    watson, _ = entity_store(name="John Watson", type="person")
    entity_store(name="Baker Street", type="place")
    for q in ["sherl", "HOLMES", "mr. hol", "  Sherlock   Holmes "]:
        html = curator_client.get("/entities/", {"q": q}, **HTMX).content.decode()
        assert "Sherlock Holmes" in html and "John Watson" not in html, q
    html = curator_client.get("/entities/", {"q": "straße"}, **HTMX).content.decode()
    assert "No entity named" in html
    entity_store(name="Großmarkthalle Süd", type="place")
    html = curator_client.get("/entities/", {"q": "GROSSMARKT"}, **HTMX).content.decode()
    assert "Großmarkthalle Süd" in html  # full case folding, as lookup does
    html = curator_client.get("/entities/", {"q": "sud"}, **HTMX).content.decode()
    assert "Großmarkthalle" not in html  # accents stay significant
    html = curator_client.get("/entities/", {"q": "", "type": "place"}, **HTMX).content.decode()
    assert "Baker Street" in html and "John Watson" not in html
    assert watson.pk not in html


def test_the_type_menu_shows_the_filter_as_applied(curator_client):
    """?type=PERSON filters on "person": the menu said "all types" beside the
    filtered results, so the next search silently dropped the filter."""
    entity_store(name="John Watson", type="person")
    entity_store(name="Baker Street", type="place")
    html = curator_client.get("/entities/", {"type": "PERSON"}).content.decode()
    assert "John Watson" in html and "Baker Street" not in html
    assert '<option value="person" selected>' in html
    assert '<option value="place">' in html


def test_typing_gets_only_the_results_partial(curator_client, holmes):
    partial = curator_client.get("/entities/", {"q": "sher"}, **HTMX)
    assert partial.templates[0].name == "entities/_results.html"
    assert b"<html" not in partial.content
    assert "HX-Request" in partial["Vary"]  # a cached fragment is never shown as the page
    full = curator_client.get("/entities/", {"q": "sher"})
    assert b"<html" in full.content and b"Sherlock Holmes" in full.content


@pytest.mark.parametrize("url", ["/entities/?q=sher", "/audit/", "/books/candidates/"])
def test_back_to_a_pushed_url_htmx_no_longer_holds_gets_the_whole_page(curator_client, holmes, url):
    """Typing in a search pushes its URL. Going back to one that htmx's history cache no
    longer holds, htmx asks for it with HX-Request set and swaps the answer into <body>:
    the results alone replaced the page, its header, menu and search box gone."""
    restored = curator_client.get(url, HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HTMX)
    html = restored.content.decode()
    assert restored.status_code == 200 and "<html" in html and 'class="main-nav"' in html
    if url.startswith("/entities/"):
        assert '<option value="person"' in html  # the type menu is filled too


def test_a_list_cut_at_its_limit_says_so(curator_client):
    """Browsing without a search showed the first 50 names and nothing else: a curator
    looking for the 51st saw no sign that the list went on."""
    from entities.views import LIST_LIMIT

    for n in range(LIST_LIMIT + 1):
        entity_store(name=f"Lighthouse {n:03d}", type="place")
    html = curator_client.get(reverse("entities:list"), **HTMX).content.decode()
    assert html.count('<li><a href="/entities/') == LIST_LIMIT
    assert f"Only the first {LIST_LIMIT} are shown" in html
    narrowed = curator_client.get(reverse("entities:list"), {"q": "lighthouse 00"}, **HTMX)
    assert "Only the first" not in narrowed.content.decode()


def test_an_entity_with_more_facts_than_its_page_shows_counts_them_all(
    curator_client, holmes, monkeypatch
):
    """The facts card showed the newest 200 and headed them "200": an entity with more
    facts was counted wrong, with no word that older ones were left out."""
    from entities import selectors

    monkeypatch.setattr(selectors, "ENTITY_PAGE_FACTS", 3)
    for n in range(5):
        fact_store(text=f"Holmes solved case number {n}", entities=[holmes])
    html = curator_client.get(reverse("entities:detail", args=[holmes.pk])).content.decode()
    assert html.count('<tr class="status-active" id="fact-') == 3
    assert '<small class="muted">5</small>' in html
    assert "The newest 3 of 5 facts are shown" in html


def test_a_search_that_finds_nothing_offers_to_create_that_name(
    curator_client, reader_client, holmes
):
    """*New entity* carried the search only from a full page load: after typing (the
    results swap in place) it opened an empty form, the name typed in the search lost."""
    html = curator_client.get(reverse("entities:list"), {"q": "Irene Adler"}, **HTMX)
    assert 'href="/entities/new?name=Irene%20Adler"' in html.content.decode()
    found = curator_client.get(reverse("entities:list"), {"q": "holmes"}, **HTMX)
    assert "/entities/new" not in found.content.decode()
    reader = reader_client.get(reverse("entities:list"), {"q": "Irene Adler"}, **HTMX)
    assert "/entities/new" not in reader.content.decode()


def test_the_entity_page_shows_aliases_facts_and_their_details(curator_client, holmes):
    fact_store(text="Sherlock Holmes lives at 221B Baker Street", entities=[holmes],
               source="a study in scarlet", confidence=0.9)  # fmt: skip
    html = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    assert "Mr. Holmes" in html
    assert "lives at 221B Baker Street" in html and "a study in scarlet" in html
    assert "0.90" in html and "active" in html


def test_aliases_are_added_and_removed_inline(curator_client, holmes):
    url = reverse("entities:alias-add", args=[holmes.pk])
    response = curator_client.post(url, {"alias": "The Great Detective"}, **HTMX)
    assert response.status_code == 200
    assert response.templates[0].name == "entities/_aliases.html"
    assert b"The Great Detective" in response.content
    url = reverse("entities:alias-remove", args=[holmes.pk])
    response = curator_client.post(url, {"alias": "Mr. Holmes"}, **HTMX)
    assert b'class="chip">Mr. Holmes' not in response.content
    assert b"Removed the alias" in response.content  # with its undo
    assert sorted(holmes.aliases.values_list("alias", flat=True)) == ["The Great Detective"]


def test_an_alias_error_is_shown_inline_next_to_the_field(curator_client, holmes):
    other, _ = entity_store(name="Mycroft Holmes", type="person")
    alias_add(entity=other, alias="Big Brother")
    url = reverse("entities:alias-add", args=[holmes.pk])
    response = curator_client.post(url, {"alias": "Big Brother"}, **HTMX)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html and "Big Brother" in html and 'aria-invalid="true"' in html
    response = curator_client.post(url, {"alias": "   "}, **HTMX)
    assert response.status_code == 400 and b'role="alert"' in response.content


def _two_people():
    survivor, _ = entity_store(name="Grace Hopper", type="person")
    duplicate, _ = entity_store(name="G. M. Hopper", type="person")
    alias_add(entity=duplicate, alias="Amazing Grace")
    fact_store(text="G. M. Hopper wrote the first compiler", entities=[duplicate])
    return survivor, duplicate


def test_merge_candidates_exclude_the_entity_itself(curator_client):
    survivor, duplicate = _two_people()
    url = reverse("entities:merge-candidates", args=[survivor.pk])
    html = curator_client.get(url, {"q": "hopper"}, **HTMX).content.decode()
    assert f'value="{duplicate.pk}"' in html and f'value="{survivor.pk}"' not in html


def test_the_merge_preview_says_what_moves_and_writes_nothing(curator_client):
    survivor, duplicate = _two_people()
    url = reverse("entities:merge-preview", args=[survivor.pk])
    response = curator_client.post(url, {"duplicates": [duplicate.pk]}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "1</span> aliases move" in html and "1</span> fact links move" in html
    assert "G. M. Hopper" in html and "Confirm merge" in html
    assert Entity.objects.filter(pk=duplicate.pk).exists()


def test_merge_errors_are_shown_inline(curator_client):
    survivor, _ = _two_people()
    place, _ = entity_store(name="Hopper Island", type="place")
    url = reverse("entities:merge-preview", args=[survivor.pk])
    response = curator_client.post(url, {}, **HTMX)
    assert response.status_code == 400 and b"Choose at least one" in response.content
    response = curator_client.post(url, {"duplicates": [place.pk]}, **HTMX)
    assert response.status_code == 400
    # Said to a person, not with the API's parameter name.
    assert b"allow_cross_type" not in response.content.split(b"<form")[0]
    assert b"not of the same type" in response.content
    response = curator_client.post(url, {"duplicates": [place.pk], "allow_cross_type": "1"}, **HTMX)
    assert response.status_code == 200 and b"Confirm merge" in response.content


def test_merge_then_undo_from_the_entity_page(curator_client):
    survivor, duplicate = _two_people()
    response = curator_client.post(
        reverse("entities:merge", args=[survivor.pk]), {"duplicates": [duplicate.pk]}, **HTMX
    )
    assert response.status_code == 204
    assert response["HX-Redirect"] == f"/entities/{survivor.pk}/"
    page = curator_client.get(f"/entities/{survivor.pk}/").content.decode()
    assert "Merged" in page and "G. M. Hopper" in page and "first compiler" in page
    assert "Undo merge" in page
    # The old id leads to the survivor.
    moved = curator_client.get(f"/entities/{duplicate.pk}/")
    assert moved.status_code == 302 and moved["Location"] == f"/entities/{survivor.pk}/"

    merge_id = page.split("/entities/merges/")[1].split("/")[0]
    response = curator_client.post(reverse("entities:merge-undo", args=[int(merge_id)]))
    assert response.status_code == 302
    back = curator_client.get(f"/entities/{duplicate.pk}/").content.decode()
    assert "G. M. Hopper" in back and "Amazing Grace" in back and "first compiler" in back
    assert "Merge undone" in back or "Merge undone" in curator_client.get("/").content.decode()


def test_a_merge_is_undone_from_the_audit_log(curator_client):
    survivor, duplicate = _two_people()
    curator_client.post(
        reverse("entities:merge", args=[survivor.pk]), {"duplicates": [duplicate.pk]}
    )
    audit = curator_client.get("/audit/").content.decode()
    assert "merged into" in audit and "Undo" in audit
    entry = re.search(r'action="/audit/(\d+)/undo"', audit).group(1)
    response = curator_client.post(
        reverse("audit-undo", args=[int(entry)]), {"next": "/audit/?action=entity.merge"}
    )
    assert response["Location"] == "/audit/?action=entity.merge"  # the filter is kept
    response = curator_client.get(response["Location"])
    assert "Undone: merged into “Grace Hopper”.".encode() in response.content
    assert b"#" + entry.encode() not in response.content
    assert Entity.objects.filter(pk=duplicate.pk).exists()
    # Undone once: no second undo button for that entry.
    assert f'action="/audit/{entry}/undo"' not in curator_client.get("/audit/").content.decode()


def test_a_merge_that_cannot_be_undone_says_why_instead_of_offering_undo(curator_client):
    survivor, duplicate = _two_people()
    curator_client.post(
        reverse("entities:merge", args=[survivor.pk]), {"duplicates": [duplicate.pk]}
    )
    # The old name is taken by a new entity of the same type: restoring it would clash.
    entity_store(name="G. M. Hopper", type="person")
    html = curator_client.get(f"/entities/{survivor.pk}/").content.decode()
    assert "can no longer be undone exactly" in html and "Undo merge" not in html


def test_a_type_filter_finds_an_alias_among_many_of_other_types(curator_client):
    for i in range(250):
        drink, _ = entity_store(name=f"Brew {i:03}", type="drink")
        alias_add(entity=drink, alias=f"Kettle Brew {i:03}")
    potter, _ = entity_store(name="Hana Ito", type="person")
    alias_add(entity=potter, alias="Kettle Zora")
    response = curator_client.get(
        reverse("entities:list"), {"q": "kettle", "type": "person"}, **HTMX
    )
    assert response.status_code == 200 and "Hana Ito" in response.content.decode()


@pytest.mark.parametrize(
    ("flag", "shown"), [("1", True), ("0", False), ("false", False), ("", False)]
)
def test_the_candidates_filter_reads_its_value(curator_client, flag, shown):
    """`?candidates=0` (a link or a bookmark saying "no") leaves the unreviewed candidates
    out, as an unticked box does; the box ticked sends 1."""
    entity_store(name="Quillan Marsh", type="place")
    Entity.objects.filter(name_norm="quillan marsh").update(candidate=True)
    html = curator_client.get("/entities/", {"q": "quillan", "candidates": flag}, **HTMX)
    assert ("Quillan Marsh" in html.content.decode()) is shown
