"""Italian and English: the language switch, translated pages and messages, dates and
numbers in the chosen locale, and a compiled catalogue that matches its source."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from entities.services import entity_store, fact_store

pytestmark = pytest.mark.django_db

LOCALE = Path(settings.BASE_DIR) / "locale" / "it" / "LC_MESSAGES"


def _italian(client) -> None:
    response = client.post(reverse("set_language"), {"language": "it", "next": "/"})
    assert response.status_code == 302


def test_the_switch_turns_the_pages_italian_and_back(curator_client, holmes):
    assert "Entities" in curator_client.get("/").content.decode()
    _italian(curator_client)
    html = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    assert '<html lang="it">' in html
    assert "Aggiungi alias" in html and "Aggiungi un fatto" in html and "Entità" in html
    curator_client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert "Add alias" in curator_client.get(f"/entities/{holmes.pk}/").content.decode()


def test_the_browser_language_is_honoured(client, curator):
    client.force_login(curator)
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="it-IT,it;q=0.9").content.decode()
    assert "Pannello" in html and "Esci" in html


def test_messages_and_errors_of_the_pages_are_translated(curator_client, holmes):
    _italian(curator_client)
    response = curator_client.post(
        reverse("entities:merge-preview", args=[holmes.pk]), {}, HTTP_HX_REQUEST="true"
    )
    assert b"Scegli almeno" in response.content
    response = curator_client.post(
        reverse("entities:alias-remove", args=[holmes.pk]),
        {"alias": "Mr. Holmes"},
        HTTP_HX_REQUEST="true",
    )
    assert "Rimosso l’alias “Mr. Holmes”".encode() in response.content
    response = curator_client.post(
        reverse("entities:alias-add", args=[holmes.pk]),
        {"alias": "Sherlock"},
        HTTP_HX_REQUEST="true",
    )
    response = curator_client.post(
        reverse("entities:alias-add", args=[holmes.pk]),
        {"alias": "sherlock"},
        HTTP_HX_REQUEST="true",
    )
    assert "“Sherlock” è già un alias di questa entità.".encode() in response.content


def test_a_confirmed_facts_evidence_and_its_undo_are_translated(curator_client, holmes):
    """The facts card's "confirmed by" list, its button and the message after it were
    English on the Italian pages."""
    first = fact_store(text="Holmes plays the violin", entities=[holmes]).fact
    fact_store(text="holmes plays the Violin", entities=[holmes], source="a letter")
    _italian(curator_client)
    page = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    assert "confermato da" in page and "non è lo stesso: tienili separati" in page
    assert "confirmed by" not in page and "keep apart" not in page
    evidence = first.confirmation_rows.get()
    url = reverse("entities:confirmation-undo", args=[holmes.pk, evidence.pk])
    after = curator_client.post(url, follow=True).content.decode()
    assert "come fatto a sé" in after and "as a fact of its own" not in after


def test_dates_and_numbers_follow_the_locale(curator_client, holmes):
    fact_store(text="Holmes is certain", entities=[holmes], confidence=0.75)
    for n in range(2):
        entity_store(name=f"Witness {n}", type="person")
    english = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    assert "0.75" in english
    _italian(curator_client)
    italian = curator_client.get(f"/entities/{holmes.pk}/").content.decode()
    assert "0,75" in italian
    assert re.search(r"aggiunta il \d{2}/\d{2}/\d{4}", italian)  # Italian short date


def test_the_api_keeps_english_messages(api):
    response = api.get("/api/v1/no-such-endpoint/", HTTP_ACCEPT_LANGUAGE="it")
    assert response.status_code == 404 and "no API endpoint" in response.json()["error"]["message"]


def _po_entries(text: str) -> dict[str, str]:
    entries = {}
    for block in text.split("\n\n")[1:]:
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        body = "\n".join(lines)
        msgid = re.search(r'^msgid "(.*)"$', body, re.M)
        msgstr = re.search(r'^msgstr(?:\[0\])? "(.*)"$', body, re.M)
        if msgid and msgstr:
            entries[msgid.group(1)] = msgstr.group(1)
    return entries


def test_the_catalogue_is_complete_and_compiled():
    """A fresh clone needs no gettext: the .mo is committed, and it says what the .po says."""
    po = _po_entries((LOCALE / "django.po").read_text(encoding="utf-8"))
    assert po and all(po.values()), [k for k, v in po.items() if not v][:5]
    with (LOCALE / "django.mo").open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    for msgid, msgstr in po.items():
        if "\\" not in msgid and "%(" not in msgid:
            assert compiled.gettext(msgid) == msgstr, msgid


APPS = ("kgsite", "entities", "notifications", "books", "integrity")
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _marked() -> list[tuple[str, str | None]]:
    """Every sentence the apps mark with ``gettext_noop``: a refusal's template (or a
    word it names), said on a page through the catalogue; None for a mark on no literal
    (which no catalogue can hold)."""
    root = Path(settings.BASE_DIR)
    found = []
    for app in APPS:
        for path in sorted((root / app).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "gettext_noop":
                    literal = node.args[0] if node.args else None
                    text = literal.value if isinstance(literal, ast.Constant) else None
                    found.append((path.relative_to(root).as_posix(), text))
    return found


def test_every_marked_refusal_has_an_italian_translation_with_its_placeholders():
    """A service's refusal whose template has no Italian entry reads English on the
    Italian pages; one whose translation drops or renames a placeholder loses a name or
    fails (KeyError) as the page says it."""
    with (LOCALE / "django.mo").open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    marked = _marked()
    assert sum(path.startswith("books/") for path, _t in marked) >= 20
    assert [path for path, text in marked if text is None] == []
    untranslated = [(path, text) for path, text in marked if compiled.gettext(text) == text]
    assert untranslated == []
    renamed = [
        (path, text)
        for path, text in marked
        if set(PLACEHOLDER.findall(compiled.gettext(text))) != set(PLACEHOLDER.findall(text))
    ]
    assert renamed == []
