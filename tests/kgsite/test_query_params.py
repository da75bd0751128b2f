"""Query parameters on every GET endpoint of the OpenAPI schema: bad input is a 400
that names the parameter, in the one JSON error shape.

``test_input_types.py`` walks the JSON bodies; this walks the query strings. Each number,
boolean and choice parameter gets a value of the wrong shape while the required ones
are filled plausibly, so the parameter under test is the one that fails. Pagination is
held to the same rule: DRF alone answers a malformed ``page`` with a 404 naming nothing
and silently ignores a malformed ``page_size``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from books.models import Book, Chunk, IngestJob
from entities.services import entity_store, fact_store

pytestmark = pytest.mark.django_db

WRONG = {"integer": "twelve", "number": "lots", "boolean": "perhaps"}
# The required parameters, filled with values their endpoint accepts.
REQUIRED = {"q": "harbour crane", "name": "Harbour Crane", "ids": "1"}
LISTS = (
    "/api/v1/entities/",
    "/api/v1/facts/",
    "/api/v1/books/",
    "/api/v1/jobs/",
    "/api/v1/merges/",
    "/api/v1/entities/duplicates",
    "/api/v1/integrity/contradictions/",
)


@pytest.fixture
def schema(curator_api) -> dict:
    response = curator_api.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.fixture
def ids(db, vector_dir) -> dict[str, str]:
    """Real ids for the path parameters, so a view reaches its query string."""
    crane = entity_store(name="Harbour Crane", type="machine")[0]
    fact = fact_store(text="The Harbour Crane lifts 40 tonnes.", subject=crane).fact
    book = Book.objects.create(title="Dock Manual", title_norm="dock manual", format="markdown")
    chunk = Chunk.objects.create(
        book=book, ordinal=0, heading_path=["Dock Manual"], text="Cranes.", start=0, end=7
    )
    job = IngestJob.objects.create(source_name="dock-manual.md")
    return {
        "entity_id": crane.id,
        "fact_id": str(fact.pk),
        "book_id": str(book.pk),
        "chunk_id": str(chunk.pk),
        "job_id": str(job.pk),
    }


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _cases(schema: dict, ids: dict[str, str]) -> Iterator[tuple[str, str, str, dict]]:
    """(url, parameter, wrong value, the required parameters filled)."""
    for path, operations in schema["paths"].items():
        operation = operations.get("get")
        if operation is None:
            continue
        try:
            url = path.format(**ids)
        except KeyError:  # merges, suggestions, ...: no object of that kind here
            continue
        query = [p for p in operation.get("parameters", []) if p["in"] == "query"]
        required = {p["name"]: REQUIRED[p["name"]] for p in query if p.get("required")}
        for parameter in query:
            node = _resolve(schema, parameter.get("schema", {}))
            wrong = "no-such-choice" if "enum" in node else WRONG.get(node.get("type", ""))
            if wrong is not None:
                filled = {k: v for k, v in required.items() if k != parameter["name"]}
                yield url, parameter["name"], wrong, filled


def error_of(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) >= {"code", "message", "field"}
    assert "Traceback" not in error["message"]
    return error


def test_a_wrong_query_value_is_a_400_naming_it_everywhere(curator_api, schema, ids) -> None:
    cases = list(_cases(schema, ids))
    assert len({url for url, *_ in cases}) >= 15
    failures = []
    for url, name, wrong, filled in cases:
        response = curator_api.get(url, {**filled, name: wrong})
        field = response.json().get("error", {}).get("field") if response.status_code == 400 else ""
        if field != name:
            failures.append(f"GET {url}?{name}={wrong}: {response.status_code} {field!r}")
    assert failures == []


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize("name", ["page", "page_size"])
@pytest.mark.parametrize("value", ["abc", "0", "-2", "1.5", "٣"])
def test_a_malformed_page_or_page_size_is_a_400(curator_api, url, name, value) -> None:
    error = error_of(curator_api.get(url, {name: value}), 400)
    assert error["field"] == name
    assert name in error["message"]


@pytest.mark.parametrize("url", LISTS)
def test_a_page_past_the_end_is_a_404_naming_the_page(curator_api, url) -> None:
    assert curator_api.get(url, {"page": "1"}).status_code == 200
    error = error_of(curator_api.get(url, {"page": "999"}), 404)
    assert error["field"] == "page"


def test_pages_walk_the_whole_list_once(curator_api, vector_dir) -> None:
    names = {f"Crane {n:02d}" for n in range(7)}
    for name in names:
        entity_store(name=name, type="machine")
    seen: list[str] = []
    page = 1
    while True:
        body = curator_api.get("/api/v1/entities/", {"page": page, "page_size": 3}).json()
        assert body["count"] == len(names)
        seen += [row["canonical_name"] for row in body["results"]]
        if body["next"] is None:
            break
        page += 1
    assert page == 3
    assert sorted(seen) == sorted(names)
    last = curator_api.get("/api/v1/entities/", {"page": "last", "page_size": 3}).json()
    assert len(last["results"]) == 1


def test_an_empty_page_parameter_is_the_first_page(curator_api, vector_dir) -> None:
    entity_store(name="Harbour Crane", type="machine")
    response = curator_api.get("/api/v1/entities/", {"page": "", "page_size": ""})
    assert response.status_code == 200
    assert response.json()["count"] == 1


def test_a_page_size_over_the_cap_is_cut_to_the_cap(curator_api, vector_dir) -> None:
    entity_store(name="Harbour Crane", type="machine")
    response = curator_api.get("/api/v1/entities/", {"page_size": "100000"})
    assert response.status_code == 200
    assert response.json()["count"] == 1


def _lists(schema: dict, ids: dict[str, str]) -> dict[str, set[str]]:
    """Every paged GET of the schema: its url and the query parameters it documents."""
    found = {}
    for path, operations in schema["paths"].items():
        parameters = operations.get("get", {}).get("parameters", [])
        names = {p["name"] for p in parameters if p["in"] == "query"}
        if "page" in names:
            found[path.format(**ids)] = names
    return found


def test_an_unknown_query_parameter_is_a_400_naming_it_on_every_list(curator_api, schema, ids):
    """A misspelt filter was dropped: ``?tpye=person`` answered the whole list."""
    lists = _lists(schema, ids)
    assert set(LISTS) <= set(lists) and len(lists) > len(LISTS)
    for url, documented in lists.items():
        error = error_of(curator_api.get(url, {"tpye": "person"}), 400)
        assert error["field"] == "tpye", url
        assert "unknown query parameter" in error["message"]
        for name in documented:  # what the schema documents is taken, and the format
            response = curator_api.get(url, {name: "", "format": "json"})
            assert b"unknown query parameter" not in response.content, (url, name)


def test_a_misspelt_filter_no_longer_answers_every_entity(curator_api, vector_dir):
    entity_store(name="Ada Byron", type="person")
    entity_store(name="Corvanta", type="organisation")
    listed = curator_api.get("/api/v1/entities/", {"type": "person", "page_size": 10}).json()
    assert [e["canonical_name"] for e in listed["results"]] == ["Ada Byron"]
    error = error_of(curator_api.get("/api/v1/entities/", {"tpye": "person"}), 400)
    assert error["field"] == "tpye"
    assert "type" in error["message"] and "prefix" in error["message"]  # what it takes
