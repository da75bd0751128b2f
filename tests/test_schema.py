from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_openapi_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(out),
        stdout=StringIO(),
        stderr=StringIO(),
    )
    text = out.read_text()
    assert "/api/v1/entities/lookup" in text and "/api/v1/facts/" in text


def _schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _error_ref(response: dict) -> str:
    return response["content"]["application/json"]["schema"]["$ref"]


@pytest.mark.django_db
def test_every_operation_documents_the_one_error_shape_it_can_answer():
    paths = _schema()["paths"]
    lookup = paths["/api/v1/entities/lookup"]["get"]["responses"]
    assert _error_ref(lookup["400"]) == "#/components/schemas/ErrorResponse"
    # Reads need credentials (KGSITE_PUBLIC_READ off) and are throttled.
    assert _error_ref(lookup["401"]) == "#/components/schemas/ErrorResponse"
    assert _error_ref(lookup["429"]) == "#/components/schemas/ErrorResponse"

    patch = paths["/api/v1/entities/{entity_id}/"]["patch"]["responses"]
    for code in ("400", "401", "403", "404", "409"):
        assert _error_ref(patch[code]) == "#/components/schemas/ErrorResponse", code

    # POST endpoints that read (a search) ask for credentials, and refuse a body too large.
    search = paths["/api/v1/search/entities"]["post"]["responses"]
    assert {"400", "401", "413", "429"} <= set(search)
    # A view's own documented answer (with its example) is kept.
    assert search["400"]["content"]["application/json"]["examples"]


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/redoc/", "/api/docs/"])
def test_api_docs_load_nothing_from_another_host(client, url):
    """Served offline: no CDN script, stylesheet or font (ReDoc's template had Google Fonts)."""
    response = client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assert re.findall(r"""(?:src|href)=["']?(?:https?:)?//""", page) == []
    assert "googleapis" not in page and "gstatic" not in page


@pytest.mark.django_db
def test_documented_shapes_match_what_the_views_answer():
    paths = _schema()["paths"]
    aliases = paths["/api/v1/entities/{entity_id}/aliases/"]["get"]["responses"]["200"]
    assert aliases["content"]["application/json"]["schema"]["type"] == "array"
    delete = paths["/api/v1/books/{book_id}/"]["delete"]["responses"]
    assert "200" in delete and "204" not in delete
    # Paginated lists: a page past the end is a 404.
    assert "404" in paths["/api/v1/entities/"]["get"]["responses"]


@pytest.mark.django_db
def test_undoing_a_confirmation_answers_the_status_the_schema_documents(curator_api, vector_dir):
    """The view answers 201 (a fact is created again); the schema said 200, so a
    generated client took the success for an undocumented answer."""
    from entities.services import fact_store

    first = fact_store(text="The west gate opens at dawn").fact
    fact_store(text="the West gate opens at dawn", source="patrol log")
    [evidence] = curator_api.get(f"/api/v1/facts/{first.pk}/").json()["confirmed_by"]
    response = curator_api.post(f"/api/v1/facts/{first.pk}/confirmations/{evidence['id']}/undo")
    path = "/api/v1/facts/{fact_id}/confirmations/{confirmation_id}/undo"
    documented = _schema()["paths"][path]["post"]["responses"]
    assert response.status_code == 201
    assert [code for code in documented if code.startswith("2")] == ["201"]
