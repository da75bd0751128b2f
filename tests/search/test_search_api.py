from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from entities import services
from entities.models import Fact

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/v1/search/entities"


@pytest.fixture
def client(vector_dir) -> APIClient:
    return APIClient()


@pytest.fixture
def graph(vector_dir):
    redis, _ = services.entity_store(name="Redis", type="technology")
    cluster, _ = services.entity_store(name="Redis Cluster", type="technology")
    django, _ = services.entity_store(name="Django", type="framework")
    services.alias_add(entity=django, alias="the Django framework")
    facts = {
        "exact": "The checkout team caches sessions in Redis for faster pages",
        "similar": "Redis Cluster shards keys",
        "both": "Django stores its cache in Redis",
        "django": "Django renders the admin pages",
        "bread": "Sourdough needs a lively starter",
    }
    return {name: services.fact_store(text=text).fact.pk for name, text in facts.items()} | {
        "redis": redis.pk,
        "django_id": django.pk,
    }


def search(client, **body):
    response = client.post(URL, body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_exact_entity_mention_outranks_a_merely_similar_fact(client, graph):
    body = search(client, entities=["Redis"], minScore=0)
    ranked = [r["memory_id"] for r in body["results"]]
    by_id = {r["memory_id"]: r for r in body["results"]}
    # "Redis Cluster shards keys" is closer in words but names another entity.
    assert by_id[graph["similar"]]["similarity"] > by_id[graph["exact"]]["similarity"]
    assert ranked.index(graph["exact"]) < ranked.index(graph["similar"])
    assert by_id[graph["exact"]]["matched_entities"] == ["Redis"]
    assert by_id[graph["similar"]]["matched_entities"] == []
    assert body["detected_query_entities"][0]["canonical_id"] == graph["redis"]


def test_any_mode_returns_facts_naming_either_entity(client, graph):
    body = search(client, entities=["Redis", "Django"], matchMode="any", minScore=0)
    ids = {r["memory_id"] for r in body["results"]}
    assert {graph["exact"], graph["both"], graph["django"]} <= ids
    assert body["results"][0]["memory_id"] == graph["both"]
    assert body["results"][0]["entity_overlap"] == 1.0


def test_all_mode_keeps_only_facts_naming_every_entity(client, graph):
    body = search(client, entities=["redis", "the django framework"], matchMode="all", minScore=0)
    assert [r["memory_id"] for r in body["results"]] == [graph["both"]]
    assert sorted(body["results"][0]["matched_entities"]) == ["Django", "Redis"]
    assert body["total_candidates"] >= 3


def test_content_only_when_asked(client, graph):
    plain = search(client, entities=["Django"])
    assert all("content" not in r for r in plain["results"])
    full = search(client, entities=["Django"], includeContent=True)
    texts = {r["content"] for r in full["results"]}
    assert "Django renders the admin pages" in texts
    assert full["search_time_ms"] >= 0


def test_min_score_and_top_k_limit_results(client, graph):
    assert len(search(client, entities=["Redis"], minScore=0, topK=2)["results"]) == 2
    high = search(client, entities=["Redis"], minScore=0.99)["results"]
    assert all(r["score"] >= 0.99 for r in high)


def test_unknown_name_is_matched_as_text(client, graph):
    fact = services.fact_store(text="Kubernetes restarts the worker pods").fact
    body = search(client, entities=["Kubernetes"], matchMode="all")
    assert body["detected_query_entities"][0]["resolved"] is False
    assert [r["memory_id"] for r in body["results"]] == [fact.pk]


def test_entity_types_restrict_resolution(client, graph):
    # Redis is a technology, not a framework: nothing can match it, not even its name.
    body = search(client, entities=["Redis"], entityTypes=["framework"], matchMode="all")
    assert body["detected_query_entities"][0]["resolved"] is False
    assert body["results"] == []
    body = search(client, entities=["Redis"], entityTypes=["technology"], matchMode="all")
    assert {r["memory_id"] for r in body["results"]} == {graph["exact"], graph["both"]}


def test_deleted_and_retracted_facts_disappear(client, graph):
    Fact.objects.filter(pk=graph["both"]).delete()
    Fact.objects.filter(pk=graph["exact"]).update(status=Fact.Status.RETRACTED)
    ids = {r["memory_id"] for r in search(client, entities=["Redis"], minScore=0)["results"]}
    assert graph["both"] not in ids and graph["exact"] not in ids
    assert graph["similar"] in ids


def test_empty_store_answers_with_empty_results(client):
    body = search(client, entities=["Redis"])
    assert body["results"] == [] and body["total_candidates"] == 0
    response = client.get("/api/v1/facts/search", {"q": "anything"})
    assert response.status_code == 200 and response.json()["results"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "entities"),
        ({"entities": []}, "entities"),
        ({"entities": [f"e{i}" for i in range(21)]}, "entities"),
        ({"entities": [""]}, "entities"),
        ({"entities": ["Redis"], "topK": 0}, "topK"),
        ({"entities": ["Redis"], "topK": 51}, "topK"),
        ({"entities": ["Redis"], "minScore": 1.5}, "minScore"),
        ({"entities": ["Redis"], "minScore": -0.1}, "minScore"),
        ({"entities": ["Redis"], "matchMode": "some"}, "matchMode"),
        ({"entities": ["Redis"], "boostExactMatch": 0.5}, "boostExactMatch"),
    ],
)
def test_out_of_range_parameters_are_400_naming_the_field(client, body, field):
    response = client.post(URL, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"].split(".")[0] == field


# --- GET /facts/search ----------------------------------------------------------------


def test_fact_search_finds_facts_by_topic(client, graph):
    response = client.get("/api/v1/facts/search", {"q": "sourdough starter", "k": 2})
    assert response.status_code == 200
    results = response.json()["results"]
    assert results[0]["id"] == graph["bread"]
    assert results[0]["text"] == "Sourdough needs a lively starter"
    assert len(results) == 2


def test_fact_search_filters_by_entity_status_and_source(client, graph):
    redis = services.entity_store(name="Redis", type="technology")[0]
    linked = services.fact_store(text="Sessions expire after an hour", entities=[redis]).fact
    sourced = services.fact_store(text="Sessions are signed", source="handbook").fact
    Fact.objects.filter(pk=graph["bread"]).update(status=Fact.Status.SUPERSEDED)

    def found(q="sessions", **params):
        response = client.get("/api/v1/facts/search", {"q": q, "k": 50, **params})
        assert response.status_code == 200, response.json()
        return [r["id"] for r in response.json()["results"]]

    assert found(entity=graph["redis"]) == [linked.pk]
    assert found(source="handbook") == [sourced.pk]
    assert graph["bread"] not in found("sourdough starter")
    assert found("sourdough starter", status="superseded") == [graph["bread"]]
    assert graph["bread"] in found("sourdough starter", status="all")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "q"),
        ({"q": "x", "k": 0}, "k"),
        ({"q": "x", "k": 51}, "k"),
        ({"q": "x", "status": "gone"}, "status"),
        ({"q": "x", "minScore": 2}, "minScore"),
    ],
)
def test_fact_search_rejects_bad_parameters(client, params, field):
    response = client.get("/api/v1/facts/search", params)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_search_is_in_the_openapi_schema(client):
    schema = client.get("/api/schema/")
    if schema.status_code == 404:
        pytest.skip("schema not served at /api/schema/")
    text = schema.content.decode()
    assert "search_by_entities" in text and "/api/v1/facts/search" in text
