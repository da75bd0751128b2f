"""Private by default: reads need a user, a setting opens them, secrets never leak out."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from entities.extraction.api import ExtractEntitiesView
from entities.services import entity_store, fact_store

pytestmark = pytest.mark.django_db

READS = [
    "/api/v1/entities/",
    "/api/v1/entities/lookup?name=Ada",
    "/api/v1/facts/",
    "/api/v1/integrity/contradictions/",
    "/api/v1/books/",
    "/api/v1/jobs/",
    "/api/v1/notifications/",
    "/api/v1/notifications/digest",
    "/api/v1/notifications/unread-count",
    "/api/v1/facts/search?q=engines",
    "/api/v1/chunks/search?q=engines",
]
POST_READS = [
    ("/api/v1/search/entities", {"entities": ["Ada Lovelace"]}),
    ("/api/v1/extract/entities", {"text": "Ada Lovelace wrote notes."}),
    (
        "/api/v1/integrity/check",
        {"existing": "Ada was born in 1815.", "new": "Ada was born in 1816."},
    ),
    (
        "/api/v1/kge/validate",
        {"subject": "Ada Lovelace", "predicate": "uses", "object": "Ada Lovelace"},
    ),
    ("/api/v1/kge/infer-relation", {"head": "Ada Lovelace", "tail": "Ada Lovelace"}),
    ("/api/v1/kge/related", {"entity": "Ada Lovelace", "relation": "uses"}),
    ("/api/v1/graph/ppr", {"query": "What did Ada Lovelace write?"}),
]


@pytest.fixture
def memory(curator):
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    return fact_store(text="Ada Lovelace wrote the first program.", entities=[ada], actor=curator)


@pytest.mark.parametrize("url", READS)
def test_anonymous_reads_are_refused(anon_api, memory, url):
    response = anon_api.get(url)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert "Lovelace" not in response.content.decode()


@pytest.mark.parametrize(("url", "body"), POST_READS)
def test_anonymous_searches_and_extraction_are_refused(anon_api, memory, url, body):
    response = anon_api.post(url, body, format="json")
    assert response.status_code == 401
    assert "Lovelace" not in response.content.decode()


def test_a_public_knowledge_base_opens_reads_but_not_writes(anon_api, memory, settings):
    settings.KGSITE_PUBLIC_READ = True
    assert anon_api.get("/api/v1/facts/").json()["count"] == 1
    assert anon_api.post(*POST_READS[1], format="json").status_code == 200
    response = anon_api.post("/api/v1/entities/", {"canonical_name": "X"}, format="json")
    assert response.status_code == 401


def test_the_client_of_a_fact_is_never_the_writers_token(curator, reader):
    token = Token.objects.create(user=curator)
    writer = APIClient()
    writer.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = writer.post("/api/v1/facts/", {"text": "Ada Lovelace met Babbage."}, format="json")
    assert response.status_code == 201
    fact = response.json()["fact"]
    assert token.key[:4] not in fact["client"]
    named = writer.post(
        "/api/v1/facts/", {"text": "Babbage built engines.", "client": "notes-app"}, format="json"
    )
    assert named.json()["fact"]["client"] == "notes-app"


def test_a_long_description_is_refused_naming_the_field(curator_api):
    limit = django_settings.KGSITE_MAX_DESCRIPTION_CHARS
    body = {"canonical_name": "Ada Lovelace", "description": "x" * (limit + 1)}
    response = curator_api.post("/api/v1/entities/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "description"


def test_too_many_aliases_at_once_are_refused_naming_the_field(curator_api):
    limit = django_settings.KGSITE_MAX_ALIASES_PER_REQUEST
    body = {"canonical_name": "Ada", "aliases": [f"Ada {i}" for i in range(limit + 1)]}
    response = curator_api.post("/api/v1/entities/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "aliases"
    body["aliases"] = body["aliases"][:limit]
    assert curator_api.post("/api/v1/entities/", body, format="json").status_code == 201


def test_extraction_is_throttled_per_user_in_the_json_shape(api, monkeypatch):
    """The test settings switch throttles off; this view gets its scoped one back."""
    monkeypatch.setattr(ExtractEntitiesView, "throttle_classes", [ScopedRateThrottle])
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"extract": "2/min"})
    from django.core.cache import cache

    cache.clear()
    body = {"text": "Ada Lovelace wrote notes."}
    codes = [
        api.post("/api/v1/extract/entities", body, format="json").status_code for _ in range(3)
    ]
    assert codes == [200, 200, 429]
    response = api.post("/api/v1/extract/entities", body, format="json")
    assert response.json()["error"]["code"] == "throttled"
    assert int(response["Retry-After"]) > 0


def test_a_forged_forwarded_for_header_does_not_escape_the_throttle(
    anon_api, settings, monkeypatch
):
    """Without a proxy in front (KGSITE_PROXY_COUNT 0), DRF counted a client by the
    X-Forwarded-For header it sent: a new made-up address per request was never
    throttled."""
    settings.KGSITE_PUBLIC_READ = True
    monkeypatch.setattr(ExtractEntitiesView, "throttle_classes", [ScopedRateThrottle])
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"extract": "2/min"})
    from django.core.cache import cache

    cache.clear()
    body = {"text": "Ada Lovelace wrote notes."}
    codes = [
        anon_api.post(
            "/api/v1/extract/entities", body, format="json", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}"
        ).status_code
        for i in range(3)
    ]
    assert codes == [200, 200, 429]


def test_stored_token_prefixes_are_cleared_by_the_migration(curator):
    import importlib

    from django.apps import apps

    from entities.models import Fact

    token = Token.objects.create(user=curator)
    leaked = fact_store(text="Ada Lovelace met Mary Somerville.", client=token.key[:8]).fact
    named = fact_store(text="Ada Lovelace wrote notes.", client="notes-app").fact
    importlib.import_module("entities.migrations.0009_clear_token_clients").forwards(apps, None)
    assert Fact.objects.get(pk=leaked.pk).client == ""
    assert Fact.objects.get(pk=named.pk).client == "notes-app"
