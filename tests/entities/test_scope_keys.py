"""Project keys are one project however they are typed: trimmed and in Unicode NFC (case
is kept), refused with a control character inside; old rows are normalised by the data
migrations (entities 0019, notifications 0003). Agent and session ids are keys too
(entities 0020)."""

from __future__ import annotations

import importlib
import unicodedata

import pytest
from django.apps import apps
from rest_framework.test import APIClient

from entities import services
from entities.models import Fact, FactConfirmation
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


@pytest.mark.parametrize("key", ["shop\u200b", "\u200b", "\ufeffshop"])
def test_a_scope_with_an_invisible_character_is_refused_naming_it(curator_api, key):
    """ "shop" and "shop" with a zero-width space look the same and were two projects: a
    fact stored in one was invisible to a reader naming the other (and "\u200b" alone a
    project that looked like global memory)."""
    response = curator_api.post(
        "/api/v1/facts/", {"text": "Orders ship on Monday", "scope": key}, format="json"
    )
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["field"] == "scope" and "invisible formatting character" in error["message"]
    response = curator_api.post(
        "/api/v1/recall/episodes", {"narrative": "Shipped orders", "scope": key}, format="json"
    )
    assert response.status_code == 400 and response.json()["error"]["field"] == "scope"
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


# --- Agent ids are keys too ------------------------------------------------------------

entities_0020 = importlib.import_module("entities.migrations.0020_agent_keys_nfc")


def test_an_agent_named_with_a_combining_accent_is_the_same_agent(vector_dir, reader):
    """An agent storing its goals as "café" typed one way, and recalling them typed the
    other way, found none: ``ai_id`` narrowed to another agent."""
    goal = services.fact_store(
        text="Ship the billing export", kind="goal", goal_status="active", ai_id=f" {NFD} "
    ).fact
    assert goal.ai_id == NFC
    api = APIClient()
    api.force_authenticate(reader)
    response = api.post(
        "/api/v1/recall/session-start", {"ai_id": NFD, "relevance": 0.0}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert [g["goal"]["id"] for g in response.json()["goals"]] == [goal.pk]


@pytest.mark.parametrize("key", ["ann\nbob", "ann\tbob"])
def test_an_ai_id_with_a_newline_or_tab_is_refused_naming_it(curator_api, key):
    response = curator_api.post(
        "/api/v1/facts/", {"text": "Orders ship on Monday", "ai_id": key}, format="json"
    )
    assert response.status_code == 400 and response.json()["error"]["field"] == "ai_id"
    response = curator_api.post(
        "/api/v1/recall/episodes", {"narrative": "Shipped orders", "ai_id": key}, format="json"
    )
    assert response.status_code == 400 and response.json()["error"]["field"] == "ai_id"
    response = curator_api.post("/api/v1/recall/session-start", {"ai_id": key}, format="json")
    assert response.status_code == 400 and response.json()["error"]["field"] == "ai_id"
    assert Fact.objects.count() == 0 and Episode.objects.count() == 0


def test_the_migration_normalises_stored_agent_and_session_ids():
    fact = Fact.objects.create(text="Orders ship on Monday", text_norm="orders ship on monday")
    Fact.objects.filter(pk=fact.pk).update(ai_id=f"{NFD} ", session_id=NFD)
    confirmation = FactConfirmation.objects.create(fact=fact, text=fact.text, ai_id=NFD)
    episode = Episode.objects.create(narrative="Shipped orders", ai_id=NFD, session_id=NFD)
    kept = Fact.objects.create(text="Case stays", text_norm="case stays", ai_id="Ann")

    entities_0020.forwards(apps, None)

    for row in (fact, confirmation, episode):
        row.refresh_from_db()
        assert row.ai_id == NFC
    fact.refresh_from_db()
    assert fact.session_id == NFC and episode.session_id == NFC
    kept.refresh_from_db()
    assert kept.ai_id == "Ann"
