from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from entities.models import Alias, Entity, EntityFact, Fact
from entities.services import alias_add, entity_store

pytestmark = pytest.mark.django_db


def error(response) -> dict:
    body = response.json()
    assert set(body) == {"error"}, body
    assert {"code", "message", "field"} <= set(body["error"])
    return body["error"]


def test_lookup_contract_shape(api):
    entity, _ = entity_store(name="PostgreSQL", type="database")
    alias_add(entity=entity, alias="postgres")
    body = api.get("/api/v1/entities/lookup", {"name": "Postgres"}).json()
    assert set(body) == {
        "match",
        "entity",
        "aliases",
        "facts",
        "candidates",
        "suggestions",
        "external_ids",  # ids and fact ids of an imported memory (import_entity_kg)
        "external_facts",
    }
    assert body["match"] == "alias"
    assert body["external_ids"] == [] and body["external_facts"] == []
    assert body["entity"] == {"id": entity.id, "canonical_name": "PostgreSQL", "type": "database"}


def test_lookup_without_name_is_400_naming_the_field(api):
    response = api.get("/api/v1/entities/lookup")
    assert response.status_code == 400
    assert error(response)["field"] == "name"


def test_lookup_unknown_is_200_with_match_none(api):
    response = api.get("/api/v1/entities/lookup", {"name": "Marie Curie"})
    assert response.status_code == 200
    assert response.json()["match"] == "none" and response.json()["entity"] is None


def test_reads_need_a_user_writes_need_a_curator(api, anon_api):
    assert anon_api.get("/api/v1/entities/").status_code == 401
    assert api.get("/api/v1/entities/").status_code == 200
    response = anon_api.post("/api/v1/entities/", {"canonical_name": "X"}, format="json")
    assert response.status_code == 401
    response = api.post("/api/v1/entities/", {"canonical_name": "X"}, format="json")
    assert response.status_code == 403
    assert error(response)["code"] == "permission_denied"
    assert Entity.objects.count() == 0


def test_token_authentication_for_agents(curator):
    token = Token.objects.create(user=curator)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.post(
        "/api/v1/entities/",
        {"canonical_name": "Kubernetes", "type": "cloud", "aliases": ["k8s"]},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["aliases"] == ["k8s"]


def test_create_is_idempotent(curator_api):
    first = curator_api.post(
        "/api/v1/entities/", {"canonical_name": "Rust", "type": "language"}, format="json"
    )
    second = curator_api.post(
        "/api/v1/entities/", {"canonical_name": "RUST", "type": "language"}, format="json"
    )
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["id"] == second.json()["id"]


@pytest.mark.parametrize("name", ["  ", "Ada\u200bLovelace", "Ada\x01", "x" * 513])
def test_create_bad_name_is_400_naming_the_bodys_field_and_writes_nothing(curator_api, name):
    """The body's field is canonical_name (as PATCH names it): the error said "name", a
    field POST /entities/ does not take."""
    response = curator_api.post("/api/v1/entities/", {"canonical_name": name}, format="json")
    assert response.status_code == 400
    assert error(response)["field"] == "canonical_name"
    assert error(response)["message"].startswith("canonical_name ")
    assert Entity.objects.count() == 0


def test_create_ambiguous_without_type_is_409_listing_candidates(curator_api):
    entity_store(name="Shield", type="spell")
    entity_store(name="Shield", type="equipment")
    response = curator_api.post("/api/v1/entities/", {"canonical_name": "shield"}, format="json")
    assert response.status_code == 409
    assert len(error(response)["candidates"]) == 2


def test_alias_conflict_is_409_and_nothing_moves(curator_api):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    mysql, _ = entity_store(name="MySQL", type="database")
    alias_add(entity=pg, alias="postgres")
    response = curator_api.post(
        f"/api/v1/entities/{mysql.id}/aliases/", {"alias": "Postgres"}, format="json"
    )
    assert response.status_code == 409
    assert error(response)["field"] == "alias"
    assert Alias.objects.get().entity_id == pg.id


def test_alias_add_list_delete(curator_api):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    url = f"/api/v1/entities/{pg.id}/aliases/"
    assert curator_api.post(url, {"alias": "pg"}, format="json").status_code == 201
    assert [a["alias"] for a in curator_api.get(url).json()] == ["pg"]
    assert curator_api.delete(f"{url}pg/").status_code == 204
    assert curator_api.get(url).json() == []
    assert curator_api.delete(f"{url}pg/").status_code == 404


def test_unknown_entity_is_404_in_error_shape(api):
    response = api.get("/api/v1/entities/nope/")
    assert response.status_code == 404
    assert error(response)["code"] == "not_found"


def test_update_entity_and_conflicting_rename(curator_api):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    entity_store(name="MySQL", type="database")
    url = f"/api/v1/entities/{pg.id}/"
    response = curator_api.patch(url, {"description": "An RDBMS"}, format="json")
    assert response.status_code == 200 and response.json()["description"] == "An RDBMS"
    response = curator_api.patch(url, {"canonical_name": "mysql"}, format="json")
    assert response.status_code == 409
    assert Entity.objects.get(pk=pg.pk).canonical_name == "PostgreSQL"


def test_list_filters_by_type_and_prefix_and_paginates(api):
    for name, kind in [
        ("Postgres Pro", "database"),
        ("PostGIS", "extension"),
        ("MySQL", "database"),
    ]:
        entity_store(name=name, type=kind)
    body = api.get("/api/v1/entities/", {"type": "database", "prefix": "POST"}).json()
    assert [e["canonical_name"] for e in body["results"]] == ["Postgres Pro"]
    body = api.get("/api/v1/entities/", {"page_size": 2}).json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]


def test_fact_create_with_links_then_confirm(curator_api):
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    payload = {
        "text": "Ada Lovelace wrote the first program.",
        "subject": ada.id,
        "predicate": "wrote",
        "object_value": "the first program",
        "source": "wiki",
        "confidence": 0.7,
    }
    first = curator_api.post("/api/v1/facts/", payload, format="json")
    assert first.status_code == 201 and first.json()["action"] == "created"
    assert first.json()["fact"]["entities"][0]["id"] == ada.id
    second = curator_api.post("/api/v1/facts/", payload, format="json")
    assert second.status_code == 200 and second.json()["action"] == "confirmed"
    assert second.json()["fact"]["confirmations"] == 2
    assert Fact.objects.count() == 1
    listed = curator_api.get("/api/v1/facts/", {"entity": ada.id, "status": "active"}).json()
    assert [f["id"] for f in listed["results"]] == [first.json()["fact"]["id"]]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "text"),
        ({"text": "x", "confidence": 2}, "confidence"),
        ({"text": "x", "subject": "missing-id"}, "subject"),
        # Too long for its column: an error, never silently cut.
        ({"text": "x", "predicate": "p" * 300}, "predicate"),
        ({"text": "x", "source": "s" * 256}, "source"),
        ({"text": "x", "client": "c" * 129}, "client"),
    ],
)
def test_fact_bad_input_is_400_naming_the_field(curator_api, payload, field):
    response = curator_api.post("/api/v1/facts/", payload, format="json")
    assert response.status_code == 400
    assert error(response)["field"] == field
    assert Fact.objects.count() == 0


def test_fact_list_rejects_unknown_status(api):
    response = api.get("/api/v1/facts/", {"status": "bogus"})
    assert response.status_code == 400 and error(response)["field"] == "status"


def test_schema_and_offline_docs_are_served(api):
    schema = api.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/v1/entities/lookup" in schema.content
    docs = api.get("/api/docs/")
    assert docs.status_code == 200
    # The docs page loads Swagger UI from our own static files, not a CDN.
    assert b"cdn.jsdelivr" not in docs.content and b"drf_spectacular_sidecar" in docs.content


def test_retype_clashing_with_an_alias_is_409_naming_the_field(curator_api):
    language, _ = entity_store(name="Python", type="language")
    alias_add(entity=language, alias="Py")
    snake, _ = entity_store(name="Python regius", type="animal")
    alias_add(entity=snake, alias="py")
    response = curator_api.patch(f"/api/v1/entities/{snake.id}/", {"type": "language"})
    assert response.status_code == 409
    assert error(response)["field"] == "type"
    assert Entity.objects.get(pk=snake.pk).type == "animal"


def test_create_with_empty_type_reuses_the_typed_entity(curator_api):
    typed, _ = entity_store(name="Tonegawa", type="person")
    response = curator_api.post(
        "/api/v1/entities/", {"canonical_name": "Tonegawa", "type": ""}, format="json"
    )
    assert response.status_code == 200 and response.json()["id"] == typed.id
    assert Entity.objects.count() == 1


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/nope/",
        "/api/v1/nope",
        "/api/v1/facts/abc/",
        "/api/v1/facts/search/",
        "/api/v1/entities/x/aliases/",
        "/api/v2/",
    ],
)
@pytest.mark.parametrize("debug", [False, True])
def test_unknown_api_urls_answer_the_json_error_shape(api, settings, path, debug):
    settings.DEBUG = debug  # the demo runs with DEBUG on: its 404 page must not take over
    response = api.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert error(response)["code"] == "not_found"


def test_an_api_url_missing_its_trailing_slash_still_redirects(api, curator_api):
    response = api.get("/api/v1/entities", {"type": "database"})
    assert response.status_code == 301
    assert response["Location"] == "/api/v1/entities/?type=database"
    response = curator_api.post("/api/v1/facts", {"text": "x"}, format="json")
    assert response.status_code == 404
    assert "did you mean /api/v1/facts/?" in error(response)["message"]
    assert not Fact.objects.exists()


def test_unknown_site_urls_keep_the_html_page(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_crash_under_api_answers_json_500(monkeypatch, reader):
    from entities import selectors

    def boom(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(selectors, "entity_lookup", boom)
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(reader)
    response = client.get("/api/v1/entities/lookup", {"name": "x"})
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/json")
    assert error(response)["code"] == "server_error"
    assert "boom" not in response.content.decode()


def test_an_alias_with_a_slash_can_be_deleted(curator_api):
    net, _ = entity_store(name="Internet protocol suite", type="protocol")
    url = f"/api/v1/entities/{net.id}/aliases/"
    assert curator_api.post(url, {"alias": "TCP/IP"}, format="json").status_code == 201
    assert curator_api.delete(f"{url}tcp/ip/").status_code == 204
    assert Alias.objects.count() == 0
    assert curator_api.delete(f"{url}TCP%2FIP/").status_code == 404


def test_confirming_a_fact_keeps_the_new_links(curator_api):
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    engine, _ = entity_store(name="Analytical Engine", type="machine")
    text = "Ada Lovelace wrote notes on the Analytical Engine."
    first = curator_api.post("/api/v1/facts/", {"text": text}, format="json").json()
    second = curator_api.post(
        "/api/v1/facts/", {"text": text, "subject": ada.id, "entities": [engine.id]}, format="json"
    )
    assert second.status_code == 200 and second.json()["action"] == "confirmed"
    links = {(e["id"], e["role"]) for e in second.json()["fact"]["entities"]}
    assert links == {(ada.id, "subject"), (engine.id, "mention")}
    listed = curator_api.get("/api/v1/facts/", {"entity": engine.id}).json()["results"]
    assert [f["id"] for f in listed] == [first["fact"]["id"]]


def test_a_new_fact_naming_four_entities_reads_them_once(curator_api):
    """Subject, object, a mention and an imported memory's id for a fourth: the answer
    shows every link with its role and name, and the entities are read in one statement
    (the imported id then on its own), the links not read back at all."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from entities.models import ExternalEntityId

    ada, _ = entity_store(name="Ada Lovelace", type="person")
    engine, _ = entity_store(name="Analytical Engine", type="machine")
    babbage, _ = entity_store(name="Charles Babbage", type="person")
    london, _ = entity_store(name="London", type="place")
    ExternalEntityId.objects.create(store="old-memory", external_id="place-3", entity=london)
    payload = {
        "text": "Ada Lovelace described the Analytical Engine of Charles Babbage in London.",
        "subject": ada.id,
        "predicate": "described",
        "object_entity": engine.id,
        "entities": [babbage.id, "place-3"],
    }
    with CaptureQueriesContext(connection) as ctx:
        response = curator_api.post("/api/v1/facts/", payload, format="json")
    assert response.status_code == 201, response.json()
    links = response.json()["fact"]["entities"]
    shown = [(e["id"], e["role"], e["canonical_name"]) for e in links]
    assert shown == [
        (ada.id, "subject", "Ada Lovelace"),
        (engine.id, "object", "Analytical Engine"),
        (babbage.id, "mention", "Charles Babbage"),
        (london.id, "mention", "London"),
    ]
    table = Entity._meta.db_table
    entity_reads = [
        q["sql"]
        for q in ctx.captured_queries
        if q["sql"].startswith("SELECT") and f'FROM "{table}"' in q["sql"]
    ]
    assert len(entity_reads) <= 2, entity_reads  # one for the ids, one for place-3
    link_table = EntityFact._meta.db_table
    reads_links = [
        q["sql"]
        for q in ctx.captured_queries
        if q["sql"].startswith("SELECT") and f'FROM "{link_table}"' in q["sql"]
    ]
    assert reads_links == [], reads_links


def test_a_fact_names_at_most_a_hundred_entities(curator_api):
    """A statement names a handful of entities: thousands of ids are refused unread."""
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    body = {"text": "Ada Lovelace wrote notes.", "entities": [ada.id] * 101}
    response = curator_api.post("/api/v1/facts/", body, format="json")
    assert response.status_code == 400
    assert error(response)["field"] == "entities" and "100" in error(response)["message"]
    assert Fact.objects.count() == 0


# --- PATCH /facts/<id>/ ------------------------------------------------------------------


def test_fact_patch_edits_the_fact(curator_api):
    fact = curator_api.post(
        "/api/v1/facts/", {"text": "Redis is single threaded.", "source": "blog"}, format="json"
    ).json()["fact"]
    url = f"/api/v1/facts/{fact['id']}/"
    response = curator_api.patch(
        url,
        {
            "text": "Redis runs commands on one thread.",
            "confidence": 0.8,
            "status": "superseded",
            "valid_from": "2020-01-01T00:00:00Z",
            "valid_to": "2024-01-01T00:00:00Z",
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["text"] == "Redis runs commands on one thread."
    assert (body["confidence"], body["status"], body["source"]) == (0.8, "superseded", "blog")
    assert curator_api.get(url).json()["valid_to"].startswith("2024-01-01")
    response = curator_api.patch(url, {"valid_to": None}, format="json")
    assert response.status_code == 200 and response.json()["valid_to"] is None


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"text": ""}, "text"),
        ({"confidence": 3}, "confidence"),
        ({"status": "gone"}, "status"),
        ({"valid_from": "2030-01-01T00:00:00Z", "valid_to": "2029-01-01T00:00:00Z"}, "valid_to"),
        ({"subject": "abc"}, "subject"),
    ],
)
def test_fact_patch_bad_input_is_400_naming_the_field(curator_api, payload, field):
    fact_id = curator_api.post("/api/v1/facts/", {"text": "Kept."}, format="json").json()["fact"][
        "id"
    ]
    response = curator_api.patch(f"/api/v1/facts/{fact_id}/", payload, format="json")
    assert response.status_code == 400
    assert error(response)["field"] == field
    assert Fact.objects.get().text == "Kept."


def test_fact_patch_needs_a_curator_and_delete_is_not_offered(api, reader, curator_api):
    fact_id = curator_api.post("/api/v1/facts/", {"text": "Kept."}, format="json").json()["fact"][
        "id"
    ]
    url = f"/api/v1/facts/{fact_id}/"
    assert api.patch(url, {"text": "Changed."}, format="json").status_code in (401, 403)
    api.force_authenticate(reader)
    assert api.patch(url, {"text": "Changed."}, format="json").status_code == 403
    response = curator_api.delete(url)
    assert response.status_code == 405
    assert error(response)["code"] == "method_not_allowed"
    assert Fact.objects.get().text == "Kept."
    assert curator_api.patch("/api/v1/facts/999999/", {}, format="json").status_code == 404
