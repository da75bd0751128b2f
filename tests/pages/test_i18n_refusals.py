"""The services' refusals on the Italian pages: an alias taken by another entity, a
merge preview's conflicts, a rename onto another entity's name were said in English.
The API keeps answering them in English."""

from __future__ import annotations

import pytest
from django.urls import reverse

from entities.services import entity_merge, entity_store

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _italian(client) -> None:
    assert client.post(reverse("set_language"), {"language": "it", "next": "/"}).status_code == 302


def test_an_alias_taken_by_another_entity_is_refused_in_italian(
    curator_client, curator_api, holmes
):
    mycroft, _ = entity_store(name="Mycroft Holmes", type="person")
    _italian(curator_client)
    url = reverse("entities:alias-add", args=[mycroft.pk])
    html = curator_client.post(url, {"alias": "Mr. Holmes"}, **HTMX).content.decode()
    assert "l'alias “Mr. Holmes” rimanda già a “Sherlock Holmes”" in html.replace("&#x27;", "'")
    assert "already points to" not in html

    api = curator_api.post(
        f"/api/v1/entities/{mycroft.pk}/aliases/",
        {"alias": "Mr. Holmes"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="it",
    )
    said = api.json()["error"]["message"]
    assert said == "alias 'Mr. Holmes' already points to 'Sherlock Holmes'"


def test_a_merge_previews_conflicts_are_said_in_italian(curator_client, holmes):
    twin, _ = entity_store(name="Mr. Holmes", type="person")
    _italian(curator_client)
    url = reverse("entities:merge-preview", args=[holmes.pk])
    html = curator_client.post(url, {"duplicates": [twin.pk]}, **HTMX).content.decode()
    assert "“Mr. Holmes” indica già “Sherlock Holmes”" in html
    assert "already names" not in html


def test_a_rename_onto_another_entitys_name_is_refused_in_italian(curator_client, holmes):
    mycroft, _ = entity_store(name="Mycroft Holmes", type="person")
    _italian(curator_client)
    html = curator_client.post(
        reverse("entities:edit", args=[mycroft.pk]),
        {"canonical_name": "Sherlock Holmes", "type": "person", "description": ""},
        **HTMX,
    ).content.decode()
    assert "un'altra entità di tipo person si chiama “Sherlock Holmes”" in html.replace(
        "&#x27;", "'"
    )


def test_why_a_merge_cannot_be_undone_is_said_in_italian(curator_client, curator, holmes):
    """The entity page's "it can no longer be undone exactly" and the refused undo gave
    the reasons in English."""
    twin, _ = entity_store(name="Sherlock", type="person")
    merge = entity_merge(survivor=holmes, duplicates=[twin], actor=curator).merge
    entity_store(name="Sherlock", type="person")  # the name now names another entity
    _italian(curator_client)
    page = curator_client.get(reverse("entities:detail", args=[holmes.pk])).content.decode()
    assert "“Sherlock” (person) ora indica un&#x27;altra entità" in page
    undo = curator_client.post(reverse("entities:merge-undo", args=[merge.pk]), follow=True)
    html = undo.content.decode()
    assert f"l&#x27;unione {merge.pk} non può essere annullata esattamente: “Sherlock”" in html
    assert "now names another entity" not in html
