"""Creating and editing from the pages: entities (name, type, description, aliases) and
facts (text, triple, confidence, source, validity), retract and supersede, errors beside
their field, and the undo each change offers."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from entities.models import Entity, Fact
from entities.services import alias_add, entity_store, fact_store
from kgsite.models import AuditEntry

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _undo_url(html: str) -> str:
    return re.search(r'action="(/audit/\d+/undo)"', html).group(1)


def test_a_curator_creates_an_entity_with_aliases(curator_client):
    response = curator_client.post(
        reverse("entities:new"),
        {
            "canonical_name": "Lina Ferro",
            "type": "person",
            "description": "Harbour master",
            "aliases": "L. Ferro\nCaptain Ferro",
        },
    )
    entity = Entity.objects.get(name_norm="lina ferro")
    assert response["Location"] == f"/entities/{entity.pk}/"
    assert sorted(entity.aliases.values_list("alias", flat=True)) == ["Captain Ferro", "L. Ferro"]
    assert entity.curated and entity.description == "Harbour master"
    page = curator_client.get(response["Location"]).content.decode()
    assert "Created “Lina Ferro”" in page


def test_a_taken_name_is_an_error_beside_the_field_and_nothing_is_written(curator_client):
    entity_store(name="Lina Ferro", type="person")
    response = curator_client.post(
        reverse("entities:new"), {"canonical_name": "lina  FERRO", "type": "person"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    name_field = html.split('for="id_canonical_name"')[1].split('for="id_type"')[0]
    assert 'role="alert"' in name_field and "Lina Ferro" in name_field
    assert 'aria-invalid="true"' in name_field
    assert Entity.objects.count() == 1


def test_an_alias_that_names_another_entity_fails_the_whole_creation(curator_client):
    entity_store(name="Port Authority", type="organization")
    response = curator_client.post(
        reverse("entities:new"),
        {"canonical_name": "Harbour Board", "type": "organization", "aliases": "Port Authority"},
    )
    assert response.status_code == 400 and b"Port Authority" in response.content
    assert not Entity.objects.filter(name_norm="harbour board").exists()


def test_edit_an_entity_then_undo_the_edit(curator_client, holmes):
    url = reverse("entities:edit", args=[holmes.pk])
    response = curator_client.post(
        url,
        {"canonical_name": "Sherlock Holmes", "type": "detective", "description": "Consulting"},
        **HTMX,
    )
    assert response.status_code == 204 and response["HX-Redirect"] == f"/entities/{holmes.pk}/"
    holmes.refresh_from_db()
    assert holmes.type == "detective" and holmes.description == "Consulting"
    page = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    assert "Saved “Sherlock Holmes”" in page
    back = curator_client.post(_undo_url(page), {"next": f"/entities/{holmes.pk}/"})
    assert back["Location"] == f"/entities/{holmes.pk}/"
    holmes.refresh_from_db()
    assert holmes.type == "person" and holmes.description == ""
    assert (
        "Undone: edited “Sherlock Holmes”" in curator_client.get(back["Location"]).content.decode()
    )


def test_an_edit_error_swaps_the_head_with_the_message(curator_client, holmes):
    entity_store(name="John Watson", type="person")
    response = curator_client.post(
        reverse("entities:edit", args=[holmes.pk]),
        {"canonical_name": "John Watson", "type": "person"},
        **HTMX,
    )
    assert response.status_code == 400
    assert response.templates[0].name == "entities/_head.html"
    assert b'role="alert"' in response.content and b"John Watson" in response.content
    holmes.refresh_from_db()
    assert holmes.canonical_name == "Sherlock Holmes"


def test_an_edit_error_without_script_shows_the_whole_page(curator_client, holmes):
    """The edit form also posts without script (method and action): a taken name came
    back as the head fragment alone, with no page, menu or facts around it."""
    entity_store(name="John Watson", type="person")
    response = curator_client.post(
        reverse("entities:edit", args=[holmes.pk]),
        {"canonical_name": "John Watson", "type": "person", "description": "Doctor"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "<html" in html and 'id="facts"' in html and 'id="aliases"' in html
    assert 'role="alert"' in html and 'value="John Watson"' in html and "Doctor" in html
    holmes.refresh_from_db()
    assert holmes.canonical_name == "Sherlock Holmes"


def test_add_a_triple_fact_and_undo_it(curator_client, holmes):
    street, _ = entity_store(name="Baker Street", type="place")
    response = curator_client.post(
        reverse("entities:fact-add", args=[holmes.pk]),
        {
            "text": "Holmes lodges at Baker Street",
            "predicate": "lives_at",
            "object_name": "baker street",
            "confidence": "0.8",
            "source": "the casebook",
            "valid_from": "1881-01-01",
        },
        **HTMX,
    )
    assert response.status_code == 200
    assert response.templates[0].name == "entities/_facts.html"
    fact = Fact.objects.get(text="Holmes lodges at Baker Street")
    assert fact.subject == holmes and fact.object_entity == street
    assert fact.confidence == 0.8 and fact.valid_from.year == 1881
    html = response.content.decode()
    assert "Saved the fact" in html
    assert AuditEntry.objects.filter(action="fact.create", target_id=str(fact.pk)).exists()
    curator_client.post(_undo_url(html))
    fact.refresh_from_db()
    assert fact.status == "retracted"


def test_create_clicked_twice_lands_on_the_entity_not_on_a_clash(curator_client):
    """A double click on Create sends the form twice; the browser shows the answer to
    the second, which said "another person entity is named 'Lina Ferro'", as if the
    entity had not been made."""
    form = {"canonical_name": "Lina Ferro", "type": "person", "aliases": "L. Ferro"}
    first = curator_client.post(reverse("entities:new"), form)
    second = curator_client.post(reverse("entities:new"), form)
    assert second.status_code == 302 and second["Location"] == first["Location"]
    page = curator_client.get(second["Location"]).content.decode()
    assert "You created “Lina Ferro” just before; here it is." in page
    assert Entity.objects.count() == 1
    # someone else's entity of that name is still a clash
    other = curator_client.post(
        reverse("entities:new"), {"canonical_name": "Ada Byron", "type": "person"}
    )
    assert other.status_code == 302
    entity_store(name="Mary Somerville", type="person")
    clash = curator_client.post(
        reverse("entities:new"), {"canonical_name": "Mary Somerville", "type": "person"}
    )
    assert clash.status_code == 400 and "another person entity is named" in clash.content.decode()


def test_more_aliases_at_once_than_the_api_takes_are_an_error_beside_the_field(
    curator_client, settings
):
    """The API takes 100 aliases per request; the New entity form took a pasted list of
    any length, each alias checked against every name while the request waited."""
    settings.KGSITE_MAX_ALIASES_PER_REQUEST = 3
    lines = "\n".join(f"Ferro {i}" for i in range(4))
    response = curator_client.post(
        reverse("entities:new"), {"canonical_name": "Lina Ferro", "aliases": lines}
    )
    assert response.status_code == 400
    field = response.content.decode().split('for="id_aliases"')[1].split("</div>")[0]
    assert "At most 3 aliases at once" in field
    assert not Entity.objects.exists()
    lines = "\n".join(f"Ferro {i}" for i in range(3))
    response = curator_client.post(
        reverse("entities:new"), {"canonical_name": "Lina Ferro", "aliases": lines}
    )
    assert response.status_code == 302


def test_a_fact_typed_again_says_it_was_confirmed_and_offers_no_retraction(curator_client, holmes):
    """Typing a stored fact again confirms it. The card said "Saved the fact" with the
    Undo of this curator's first writing of it: clicking it retracted the fact itself."""
    url = reverse("entities:fact-add", args=[holmes.pk])
    curator_client.post(url, {"text": "Holmes plays the violin", "confidence": "0.5"}, **HTMX)
    response = curator_client.post(url, {"text": "holmes plays the Violin"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "“Holmes plays the violin” was stored already: it is confirmed." in html
    assert "Saved the fact" not in html and not re.search(r'action="/audit/\d+/undo"', html)
    assert Fact.objects.get().status == "active"


def test_fact_errors_show_beside_their_field(curator_client, holmes):
    url = reverse("entities:fact-add", args=[holmes.pk])
    response = curator_client.post(
        url,
        {"text": "Holmes knows Moriarty", "predicate": "knows", "object_name": "Nobody"},
        **HTMX,
    )
    assert response.status_code == 400
    field = response.content.decode().split('for="id_object_name"')[1].split("</div>")[0]
    assert 'role="alert"' in field and "no entity is named" in field
    response = curator_client.post(url, {"text": "   ", "confidence": "2"}, **HTMX)
    assert response.status_code == 400
    assert Fact.objects.count() == 0


def test_retract_a_fact_from_the_entity_page_and_undo(curator_client, holmes):
    fact = fact_store(text="Holmes plays the violin", entities=[holmes]).fact
    response = curator_client.post(
        reverse("entities:fact-retract", args=[fact.pk]), {"entity": holmes.pk}, **HTMX
    )
    html = response.content.decode()
    fact.refresh_from_db()
    assert fact.status == "retracted" and "Retracted “Holmes plays the violin”" in html
    curator_client.post(_undo_url(html))
    fact.refresh_from_db()
    assert fact.status == "active"


def test_edit_a_fact_on_its_page(curator_client, holmes):
    fact = fact_store(text="Holmes is 40", entities=[holmes], source="guess").fact
    url = f"{reverse('entities:fact', args=[fact.pk])}?entity={holmes.pk}"
    page = curator_client.get(url).content.decode()
    assert 'value="guess"' in page and "Holmes is 40" in page
    response = curator_client.post(
        url,
        {
            "text": "Holmes is 41",
            "confidence": "0.5",
            "source": "census",
            "status": "active",
            "valid_to": "1900-12-31",
            "entity": holmes.pk,
        },
    )
    assert response["Location"] == f"/entities/{holmes.pk}/#facts"
    fact.refresh_from_db()
    assert (fact.text, fact.source, fact.confidence) == ("Holmes is 41", "census", 0.5)
    assert fact.valid_to.year == 1900
    bad = curator_client.post(url, {"text": "Holmes is 41", "confidence": "7", "status": "active"})
    assert bad.status_code == 400 and b'role="alert"' in bad.content


def test_supersede_keeps_the_old_fact_in_history_and_undo_restores_it(curator_client, holmes):
    old = fact_store(text="Holmes lives in London", entities=[holmes], source="a").fact
    response = curator_client.post(
        reverse("entities:fact-supersede", args=[old.pk]),
        {"text": "Holmes keeps bees in Sussex", "entity": holmes.pk},
    )
    assert response["Location"] == f"/entities/{holmes.pk}/#facts"
    old.refresh_from_db()
    new = Fact.objects.get(text="Holmes keeps bees in Sussex")
    assert old.status == "superseded" and old.valid_to is not None
    assert new.status == "active" and holmes in new.entities.all()
    page = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    curator_client.post(_undo_url(page))
    old.refresh_from_db()
    new.refresh_from_db()
    assert old.status == "active" and new.status == "retracted"


def test_a_removed_alias_comes_back_with_undo(curator_client, holmes):
    alias_add(entity=holmes, alias="The Detective")
    response = curator_client.post(
        reverse("entities:alias-remove", args=[holmes.pk]), {"alias": "Mr. Holmes"}, **HTMX
    )
    assert b"hx-confirm" in response.content  # the remaining chips still ask first
    assert b"Removed the alias" in response.content
    response = curator_client.post(
        reverse("entities:alias-restore", args=[holmes.pk]), {"alias": "Mr. Holmes"}, **HTMX
    )
    assert sorted(holmes.aliases.values_list("alias", flat=True)) == ["Mr. Holmes", "The Detective"]


def test_readers_cannot_edit(reader_client, holmes):
    fact = fact_store(text="Holmes smokes a pipe", entities=[holmes]).fact
    posts = [
        reverse("entities:new"),
        reverse("entities:edit", args=[holmes.pk]),
        reverse("entities:fact-add", args=[holmes.pk]),
        reverse("entities:fact-retract", args=[fact.pk]),
        reverse("entities:fact-supersede", args=[fact.pk]),
        reverse("entities:fact", args=[fact.pk]),
        reverse("entities:alias-restore", args=[holmes.pk]),
    ]
    for url in posts:
        assert reader_client.post(url, {"text": "x", "canonical_name": "x"}).status_code == 403
    fact.refresh_from_db()
    assert fact.status == "active"


def test_the_entity_page_draws_its_neighbourhood_or_says_why_not(
    curator_client, holmes, django_capture_on_commit_callbacks
):
    fact_store(text="Holmes is clever", entities=[holmes])
    html = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    assert "No relations yet" in html and 'id="entity-graph"' not in html
    assert f'href="/graph/entity/{holmes.pk}/"' in html
    street, _ = entity_store(name="Baker Street", type="place")
    with django_capture_on_commit_callbacks(execute=True):  # edges follow facts on commit
        fact_store(text="Holmes lives at Baker Street", subject=holmes, predicate="lives_at",
                   object_entity=street)  # fmt: skip
    html = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    assert 'id="entity-graph"' in html and "lives_at" in html and "graph.js" in html
    graph = curator_client.get(f"/graph/entity/{holmes.pk}/").content.decode()
    assert f'href="/entities/{holmes.pk}/"' in graph and "/admin/" not in graph
    assert "<script>" not in graph  # no inline script: the drawing is static/graph.js
    # One node is the entity alone: it still draws its nearest neighbour, and never says
    # the entity has no relations.
    small = curator_client.get(f"/graph/entity/{holmes.pk}/", {"max_nodes": 1}).content.decode()
    assert "No relations yet" not in small and "Baker Street" in small


def test_a_refused_replacement_keeps_the_text_that_was_typed(curator_client, holmes):
    """A corrected text the service refused (here one too long) sent the curator back to
    the fact page with the old text in the box: what they had written was gone."""
    old = fact_store(text="Holmes lives in London", entities=[holmes]).fact
    typed = "Holmes keeps bees in Sussex. " + "He writes on bee culture. " * 400
    response = curator_client.post(
        reverse("entities:fact-supersede", args=[old.pk]), {"text": typed, "entity": holmes.pk}
    )
    assert response.status_code == 400
    html = response.content.decode()
    box = html.split(f'action="/entities/facts/{old.pk}/supersede"')[1].split("</form>")[0]
    assert typed.strip() in box and 'role="alert"' in box
    old.refresh_from_db()
    assert old.status == "active" and Fact.objects.count() == 1


def test_a_reader_opening_the_new_entity_page_gets_no_form(reader_client):
    """The list hides *New entity* from readers, but its address (a shared link, the
    history) showed them the whole form; everything typed was refused with the 403 page."""
    html = reader_client.get(reverse("entities:new"), {"name": "Irene Adler"}).content.decode()
    assert 'name="canonical_name"' not in html and "Only curators create entities." in html
