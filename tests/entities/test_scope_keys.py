"""Project keys are one project however they are typed: trimmed and in Unicode NFC (case
is kept), refused with a control character inside; old rows are normalised by the data
migrations (entities 0019, notifications 0003)."""

from __future__ import annotations

import importlib
import unicodedata

import pytest
from django.apps import apps

from entities import services
from entities.models import Fact
from entities.recall.models import Episode
from notifications.models import Notification

pytestmark = pytest.mark.django_db

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")
entities_0019 = importlib.import_module("entities.migrations.0019_scopes_nfc")
notifications_0003 = importlib.import_module("notifications.migrations.0003_scopes_nfc")


def listed(api, scope: str) -> list[int]:
    response = api.get("/api/v1/facts/", {"scope": scope})
    assert response.status_code == 200, response.json()
    return [f["id"] for f in response.json()["results"]]


def test_a_project_typed_with_a_combining_accent_is_the_same_project(curator_api):
    """A fact stored for "café" typed on one keyboard was invisible to a reader typing
    "café" on another (NFD vs NFC): two projects that look the same."""
    created = curator_api.post(
        "/api/v1/facts/", {"text": "Orders ship on Monday", "scope": f" {NFD} "}, format="json"
    ).json()["fact"]
    assert created["scope"] == NFC
    assert listed(curator_api, NFC) == [created["id"]]
    assert listed(curator_api, NFD) == [created["id"]]
    again = services.fact_store(text="Orders ship on Monday", scope=NFC)
    assert again.action == "confirmed" and again.fact.pk == created["id"]
    assert listed(curator_api, NFC.upper()) == []  # case is kept: keys are case-sensitive


@pytest.mark.parametrize("key", ["shop\nlegacy", "shop\tlegacy"])
def test_a_scope_or_session_id_with_a_newline_or_tab_is_refused_naming_it(curator_api, key):
    for field in ("scope", "session_id"):
        response = curator_api.post(
            "/api/v1/facts/", {"text": "Orders ship on Monday", field: key}, format="json"
        )
        assert response.status_code == 400, response.json()
        assert response.json()["error"]["field"] == field
        response = curator_api.post(
            "/api/v1/recall/episodes", {"narrative": "Shipped orders", field: key}, format="json"
        )
        assert response.status_code == 400, response.json()
        assert response.json()["error"]["field"] == field
    response = curator_api.post("/api/v1/recall/session-start", {"session_id": key}, format="json")
    assert response.status_code == 400 and response.json()["error"]["field"] == "session_id"
    response = curator_api.get("/api/v1/facts/", {"scope": key})
    assert response.status_code == 400 and response.json()["error"]["field"] == "scope"
    assert Fact.objects.count() == 0 and Episode.objects.count() == 0


def test_the_migrations_normalise_stored_scopes(curator_api):
    fact = Fact.objects.create(text="Orders ship on Monday", text_norm="orders ship on monday")
    Fact.objects.filter(pk=fact.pk).update(scope=f"{NFD} ")
    episode = Episode.objects.create(narrative="Shipped orders", scope=NFD)
    note = Notification.objects.create(type="contradiction", urgency="high", title="x", scope=NFD)
    kept = Fact.objects.create(text="Case stays", text_norm="case stays", scope="Shop")

    entities_0019.forwards(apps, None)
    notifications_0003.forwards(apps, None)

    for row in (fact, episode, note):
        row.refresh_from_db()
        assert row.scope == NFC
    kept.refresh_from_db()
    assert kept.scope == "Shop"
    assert listed(curator_api, NFC) == [fact.pk]
