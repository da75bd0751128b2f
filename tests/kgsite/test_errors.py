"""Every answer under /api/ is the JSON error shape with no internals, whatever DEBUG says."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from notifications.services import notification_create

pytestmark = pytest.mark.django_db

# What Django's debug page and settings would show: none of it may reach a caller.
INTERNALS = ("Traceback", "DATABASES", "SECRET_KEY", "settings", "<html", "sqlite", "postgres")


@pytest.fixture(params=[False, True], ids=["debug-off", "debug-on"])
def client(request, settings, reader) -> Client:
    settings.DEBUG = request.param
    client = Client(raise_request_exception=False)
    client.force_login(reader)
    return client


def assert_json_error(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    text = response.content.decode()
    for leak in INTERNALS:
        assert leak not in text, leak
    body = response.json()
    assert set(body["error"]) >= {"code", "message", "field"}
    return body["error"]


def test_json_nested_deeper_than_python_recurses_is_400(client):
    depth = 100_000
    body = "[" * depth + "]" * depth
    response = client.post("/api/v1/search/entities", data=body, content_type="application/json")
    assert_json_error(response, 400)


def test_a_body_over_the_limit_is_413(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps({"entities": ["x" * 20_000]})
    response = client.post("/api/v1/search/entities", data=body, content_type="application/json")
    error = assert_json_error(response, 413)
    assert error["code"] == "too_large"


def test_a_form_over_the_limit_read_by_django_is_413(client, settings):
    """A chunked body has no Content-Length: the limit is met while reading it."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    response = client.generic(
        "POST",
        "/api/v1/integrity/check",
        data="existing=" + "x" * 5_000,
        content_type="application/x-www-form-urlencoded",
        HTTP_TRANSFER_ENCODING="chunked",
        CONTENT_LENGTH="",
    )
    assert response.status_code in (400, 413)
    assert_json_error(response, response.status_code)


def test_too_many_form_fields_is_400(client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 50
    form = "&".join(f"f{i}=1" for i in range(60))
    response = client.post(
        "/api/v1/integrity/check", data=form, content_type="application/x-www-form-urlencoded"
    )
    error = assert_json_error(response, 400)
    assert "fields" in error["message"]


HUGE = 99_999_999_999_999_999_999_999


@pytest.mark.parametrize(
    ("method", "url", "status"),
    [
        ("get", f"/api/v1/chunks/search?q=dragons&book={HUGE}", 400),
        ("get", f"/api/v1/entities/abc/mentions?book={HUGE}", 404),
        ("get", f"/api/v1/integrity/contradictions/?fact={HUGE}", 400),
        ("get", f"/api/v1/books/{HUGE}/", 404),
        ("get", f"/api/v1/jobs/{HUGE}/", 404),
        ("get", f"/api/v1/facts/{HUGE}/", 404),
        ("get", f"/api/v1/chunks/{HUGE}/related", 404),
        ("get", f"/api/v1/integrity/contradictions/{HUGE}/", 404),
        ("post", f"/api/v1/notifications/{HUGE}/read", 404),
        ("get", f"/api/v1/books/{2**63}/", 404),
    ],
)
def test_integers_beyond_64_bits_are_400_or_404(client, method, url, status):
    response = getattr(client, method)(url)
    assert_json_error(response, status)


def test_ids_beyond_64_bits_in_a_body_are_400_naming_the_field(client, curator):
    client.force_login(curator)
    notification_create(type="system", urgency="high", title="x")
    response = client.post(
        "/api/v1/notifications/read", {"ids": [10**30]}, content_type="application/json"
    )
    assert assert_json_error(response, 400)["field"].startswith("ids")


def test_a_crash_with_debug_on_shows_no_internals(client, monkeypatch):
    from entities import selectors

    def boom(**kwargs):
        raise RuntimeError("secret detail from the database layer")

    monkeypatch.setattr(selectors, "entity_lookup", boom)
    response = client.get("/api/v1/entities/lookup", {"name": "x"})
    assert assert_json_error(response, 500)["code"] == "server_error"
    assert "secret detail" not in response.content.decode()


def test_an_overflow_anywhere_is_400_not_500(client, monkeypatch):
    """The safety net: an integer SQLite cannot hold, wherever it comes from."""
    from entities import selectors

    def overflow(**kwargs):
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    monkeypatch.setattr(selectors, "entity_lookup", overflow)
    response = client.get("/api/v1/entities/lookup", {"name": "x"})
    assert "SQLite" not in assert_json_error(response, 400)["message"]


def test_site_pages_keep_django_pages(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
