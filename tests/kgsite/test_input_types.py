"""Unicode and types on every endpoint of the OpenAPI schema (issue 27 item 7).

Walks every operation that takes a JSON body: each property gets a lone surrogate, a
number where a string is due, an infinite number, and (for a choice) a long invalid
value. Each must answer 400 naming that property; a choice error names the allowed
values and does not repeat the input. The other required properties are filled with
plausible values of their type, so the property under test is the one that fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from entities.services import entity_store, fact_store
from integrity import services as integrity_services
from integrity.models import Contradiction

pytestmark = pytest.mark.django_db

SURROGATE = '"\\ud800"'  # JSON text: the escape json.dumps would refuse to write


@pytest.fixture
def schema(curator_api) -> dict:
    response = curator_api.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.fixture
def objects(db, vector_dir, monkeypatch, django_capture_on_commit_callbacks) -> dict[str, str]:
    """Ids for the path parameters, so a view reaches its body instead of a 404."""
    monkeypatch.setattr(integrity_services, "similar", lambda text, *, k, min_score: [])
    person = entity_store(name="Odile Marchetti", type="person")[0]
    with django_capture_on_commit_callbacks(execute=True):
        fact = fact_store(text="Odile Marchetti was born in 1961.", subject=person).fact
        fact_store(text="Odile Marchetti was born in 1967.", subject=person)
    return {
        "entity_id": person.id,
        "fact_id": str(fact.pk),
        "contradiction_id": str(Contradiction.objects.get().pk),
    }


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    if "allOf" in node and len(node["allOf"]) == 1:
        return _resolve(schema, node["allOf"][0])
    return node


def _plausible(schema: dict, node: dict) -> Any:
    """A value of the property's type that its field accepts."""
    node = _resolve(schema, node)
    if "enum" in node:
        return next(v for v in node["enum"] if v not in ("", None))
    kind = node.get("type")
    if kind == "string":
        return {"date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01"}.get(
            node.get("format", ""), "plausible words"
        )
    if kind == "integer":
        return max(1, node.get("minimum", 1))
    if kind == "number":
        return max(0.5, node.get("minimum", 0.5))
    if kind == "boolean":
        return True
    if kind == "array":
        return [_plausible(schema, node.get("items", {"type": "string"}))]
    return {}


def _json_operations(schema: dict, objects: dict[str, str]) -> Iterator[tuple]:
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            url = path.format(**objects)
            body = _resolve(schema, content["application/json"]["schema"])
            yield method, url, body


def _cases(schema: dict, objects: dict[str, str]) -> Iterator[tuple]:
    """(method, url, property, its schema, the other required properties filled)."""
    for method, url, body in _json_operations(schema, objects):
        properties = body.get("properties", {})
        for name, node in properties.items():
            if node.get("readOnly"):
                continue
            filled = {
                other: _plausible(schema, properties[other])
                for other in body.get("required", [])
                if other != name
            }
            yield method, url, name, _resolve(schema, node), filled


def _send(client, method: str, url: str, filled: dict, name: str, raw_value: str):
    """The body as JSON text, with the property's value written verbatim."""
    text = json.dumps(filled)
    text = text[:-1] + (", " if filled else "") + f"{json.dumps(name)}: {raw_value}}}"
    return getattr(client, method)(url, text, content_type="application/json")


def _failures(client, cases, raw_value_for) -> list[str]:
    failures = []
    for method, url, name, node, filled in cases:
        raw = raw_value_for(node)
        if raw is None:
            continue
        response = _send(client, method, url, filled, name, raw)
        error = response.json().get("error", {}) if response.status_code == 400 else {}
        if response.status_code != 400 or not (error.get("field") or "").startswith(name):
            failures.append(f"{method.upper()} {url} {name}={raw[:20]}: {response.status_code}")
    return failures


def test_the_walk_reaches_every_json_endpoint(schema, objects):
    cases = list(_cases(schema, objects))
    operations = {(method, url) for method, url, *_ in cases}
    assert len(operations) >= 20  # facts, entities, recall, search, kge, integrity ...
    assert ("post", "/api/v1/facts/") in operations
    assert ("post", "/api/v1/recall/finding") in operations


def test_a_lone_surrogate_is_a_400_naming_the_field_everywhere(curator_api, schema, objects):
    def surrogate(node: dict) -> str:
        if node.get("type") == "array":
            return f"[{SURROGATE}]"
        if node.get("type") == "object":
            return f'{{{SURROGATE}: 1, "k": {SURROGATE}}}'
        return SURROGATE

    assert _failures(curator_api, _cases(schema, objects), surrogate) == []


def test_a_number_is_not_text_anywhere(curator_api, schema, objects):
    def number(node: dict) -> str | None:
        is_text = node.get("type") == "string" and node.get("format") != "binary"
        return "-1" if is_text else None

    assert _failures(curator_api, _cases(schema, objects), number) == []


def test_a_boolean_is_not_a_number_anywhere(curator_api, schema, objects):
    """``{"confidence": false}`` stored a fact at confidence 0: DRF read the boolean as
    0.0, where the services and the MCP tools refuse it."""
    numbers = [case for case in _cases(schema, objects) if case[3].get("type") == "number"]
    assert len(numbers) >= 5  # confidence, minScore, damping, boostExactMatch ...
    for raw in ("true", "false"):
        assert _failures(curator_api, numbers, lambda node, raw=raw: raw) == []


def test_an_infinite_number_is_a_400_everywhere(curator_api, schema, objects):
    assert _failures(curator_api, _cases(schema, objects), lambda node: "1e999") == []


@pytest.mark.parametrize("raw", ["true", '"1_0"', '"\u0661\u0660"'])
def test_a_number_is_written_as_a_number_everywhere(curator_api, schema, objects, raw):
    """Python's int and float read "1_0" as 10, Arabic-Indic digits as digits, and true
    as 1: a typo or a wrong type became a value."""

    def numeric(node: dict) -> str | None:
        return raw if node.get("type") in ("integer", "number") else None

    assert _failures(curator_api, _cases(schema, objects), numeric) == []


def test_choice_errors_name_the_allowed_values_without_echoing(curator_api, schema, objects):
    checked = 0
    for method, url, name, node, filled in _cases(schema, objects):
        if "enum" not in node:
            continue
        checked += 1
        invalid = "quux" * 25_000  # 100,000 characters
        response = _send(curator_api, method, url, filled, name, json.dumps(invalid))
        assert response.status_code == 400, (method, url, name)
        error = response.json()["error"]
        assert error["field"] == name
        assert "quux" not in error["message"] and len(response.content) < 2_000
        allowed = [v for v in node["enum"] if v not in ("", None)]
        assert str(allowed[0]) in error["message"], error["message"]
    assert checked >= 5  # kind, direction, matchMode, ...


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/api/v1/facts/", {"text": "A plain fact.", "kind": "\ud800"}, "kind"),
        ("/api/v1/recall/finding", {"text": "A finding.", "kind": "\ud800"}, "kind"),
        ("/api/v1/kge/related", {"entity": "x", "direction": "\udfff"}, "direction"),
        ("/api/v1/search/entities", {"q": "x", "matchMode": "\ud800"}, "matchMode"),
    ],
)
def test_the_reported_surrogate_cases_answer_400(curator_api, vector_dir, url, body, field):
    text = json.dumps(body)  # ensure_ascii writes the surrogate as an escape
    response = curator_api.post(url, text, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field
    assert "Unicode" in response.json()["error"]["message"]


def test_a_number_in_a_text_field_is_refused_not_stored(curator_api, vector_dir):
    from entities.models import Fact

    for raw in ("-1", "1e999", "12.5", "true", '["a"]'):
        response = curator_api.post(
            "/api/v1/facts/", f'{{"text": {raw}}}', content_type="application/json"
        )
        assert response.status_code == 400, raw
        assert response.json()["error"]["field"] == "text"
    assert not Fact.objects.exists()


def test_a_surrogate_deep_in_a_list_names_its_place(curator_api, vector_dir):
    body = '{"text": "A fact.", "entities": ["fine", "\\udc00"]}'
    response = curator_api.post("/api/v1/facts/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "entities.1"


def test_the_first_item_of_a_list_names_its_place_too(curator_api, vector_dir):
    """Index 0 is falsy: the error named "entities" for the first item, "entities.1"
    for the second."""
    for place, body in ((0, [None, "fine"]), (1, ["fine", None])):
        response = curator_api.post(
            "/api/v1/facts/", {"text": "A fact.", "entities": body}, format="json"
        )
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["field"] == f"entities.{place}"
        assert error["message"].startswith(f"entities.{place}: ")


def test_query_choices_never_echo_the_input(curator_api, schema, objects):
    invalid = "quux" * 2_000
    checked = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                node = _resolve(schema, parameter.get("schema", {}))
                if parameter["in"] != "query" or "enum" not in node or method != "get":
                    continue
                checked += 1
                url = path.format_map({**objects, "book_id": "1", "chunk_id": "1"})
                response = curator_api.get(url, {parameter["name"]: invalid})
                assert response.status_code < 500, (url, parameter["name"])
                assert b"quuxquux" not in response.content, (url, parameter["name"])
    assert checked >= 3
