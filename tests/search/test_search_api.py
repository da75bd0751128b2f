from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from entities import services
from entities.models import Fact
from entities.search import ranking
from kgsite.errors import InvalidInput
from kgsite.text import normalize
from kgsite.vectors import index as index_module
from kgsite.vectors import service
from tests.conftest import restart

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/v1/search/entities"


@pytest.fixture
def client(vector_dir, api) -> APIClient:
    return api


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
        ({"entities": ["Redis"], "entityTypes": ["x" * 65]}, "entityTypes"),
        # 64 characters, but longer than 64 once normalised (camel case to snake case).
        ({"entities": ["Redis"], "entityTypes": ["aB" * 32]}, "entityTypes"),
        ({"entities": ["Redis"], "entityTypes": ["tech\x01nology"]}, "entityTypes"),
        ({"entities": ["Redis"], "entityTypes": "technology"}, "entityTypes"),
    ],
)
def test_out_of_range_parameters_are_400_naming_the_field(client, body, field):
    response = client.post(URL, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"].split(".")[0] == field
    # Caught by the request serializer, like every other field: "<field>: <problem>".
    assert error["message"].startswith(f"{error['field']}: ")


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
    goal = services.fact_store(text="Sessions must survive a restart", kind="goal").fact
    assert found(kind="goal") == [goal.pk]  # the parameter was ignored: every kind came back
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
        ({"q": "x", "kind": "gossip"}, "kind"),
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


def test_entity_types_are_normalised_like_stored_types(client, graph):
    body = search(client, entities=["Redis"], entityTypes=["Technology"], matchMode="all")
    assert {r["memory_id"] for r in body["results"]} == {graph["exact"], graph["both"]}


def test_search_by_entities_rejects_bad_types_from_python_callers_naming_the_field(vector_dir):
    with pytest.raises(InvalidInput) as error:
        ranking.search_by_entities(entities=["Redis"], entity_types=["tech\x01nology"])
    assert error.value.field == "entityTypes"


def test_rebuild_gives_the_same_entity_search_results(client, graph):
    queries = [
        {"entities": ["Redis"], "minScore": 0},
        {"entities": ["Redis", "Django"], "matchMode": "any", "minScore": 0},
        {"entities": ["redis", "the django framework"], "matchMode": "all", "minScore": 0},
    ]
    before = [search(client, **q)["results"] for q in queries]
    assert all(before)
    assert service.vector_rebuild("facts") == 5
    restart()
    after = [search(client, **q)["results"] for q in queries]
    for old, new in zip(before, after, strict=True):
        assert [r["memory_id"] for r in new] == [r["memory_id"] for r in old]
        assert [r["matched_entities"] for r in new] == [r["matched_entities"] for r in old]
        for a, b in zip(old, new, strict=True):
            assert b["score"] == pytest.approx(a["score"], abs=1e-5)


def test_deleted_fact_disappears_from_entity_search_through_the_delete_task(client, graph):
    assert graph["both"] in {r["memory_id"] for r in search(client, entities=["Redis"])["results"]}
    Fact.objects.filter(pk=graph["both"]).delete()
    # What the delete hook queues: the index itself drops it (not only the query-time check).
    assert service.vector_upsert("facts", [graph["both"]]) == 1
    assert graph["both"] not in service.vector_index("facts")
    for _ in range(2):
        ids = {r["memory_id"] for r in search(client, entities=["Redis"], minScore=0)["results"]}
        assert graph["both"] not in ids and graph["exact"] in ids
        restart()


# --- A missing index over a large store -------------------------------------------------


def test_missing_index_over_a_large_store_answers_at_once_and_says_so(client, monkeypatch):
    jobs = []
    monkeypatch.setattr(index_module, "BUILD_INLINE", 10)
    monkeypatch.setattr("kgsite.vectors.service.vector_rebuild_enqueue", jobs.append)
    texts = [f"Redis node {i} in the cache cluster keeps sessions" for i in range(30)]
    Fact.objects.bulk_create(Fact(text=t, text_norm=normalize(t)) for t in texts)  # no hooks
    body = search(client, entities=["Redis"], minScore=0)
    assert body["results"] == [] and body["index_complete"] is False
    response = client.get("/api/v1/facts/search", {"q": "redis sessions"})
    assert response.status_code == 200
    assert response.json()["results"] == [] and response.json()["index_complete"] is False
    assert jobs == ["facts"]
    service.vector_rebuild("facts")  # the queued job, as the worker runs it
    body = search(client, entities=["Redis"], minScore=0)
    assert body["index_complete"] is True and len(body["results"]) == 10
    response = client.get("/api/v1/facts/search", {"q": "redis sessions"})
    assert response.json()["index_complete"] is True and len(response.json()["results"]) == 10


# --- GET /facts/search with selective filters ----------------------------------------------


SUPERSEDED = {
    "close": "The old sourdough starter lived in the fridge",
    "closer": "Sourdough starter feeding schedule, first draft",
    "far": "The bakery closes on Mondays",
}


@pytest.fixture
def superseded_ids() -> list[int]:
    """Forty live facts about sourdough, then three superseded ones (ids in SUPERSEDED order)."""
    for i in range(40):
        services.fact_store(text=f"Sourdough starter number {i} needs feeding twice a day")
    ids = [services.fact_store(text=text).fact.pk for text in SUPERSEDED.values()]
    Fact.objects.filter(pk__in=ids).update(status=Fact.Status.SUPERSEDED)
    return ids


def _closest_two(query: str, ids: list[int]) -> tuple[list[int], dict[int, float]]:
    vectors = service.embed_texts([query, *SUPERSEDED.values()])
    cosines = dict(zip(ids, vectors[1:] @ vectors[0], strict=True))
    return sorted(cosines, key=lambda pk: -cosines[pk])[:2], cosines


def test_a_selective_status_filter_searches_only_the_matching_facts(
    client, monkeypatch, superseded_ids
):
    live = service.vector_index("facts").live_count
    fetched = []
    search_vector = service.search_vector

    def spy(kind, vector, k, *, filter_ids=None):
        fetched.append(k if filter_ids is None else min(k, len(filter_ids)))
        return search_vector(kind, vector, k, filter_ids=filter_ids)

    monkeypatch.setattr(service, "search_vector", spy)
    query = "sourdough starter feeding"
    response = client.get("/api/v1/facts/search", {"q": query, "k": 2, "status": "superseded"})
    assert response.status_code == 200
    results = response.json()["results"]
    # The two superseded facts closest to the query, by exact cosine, best first.
    expected, cosines = _closest_two(query, superseded_ids)
    assert [r["id"] for r in results] == expected
    assert all(r["status"] == "superseded" for r in results)
    assert [r["score"] for r in results] == pytest.approx(
        [cosines[pk] for pk in expected], abs=1e-5
    )
    # The index was never scanned whole to find three facts among forty-three.
    assert max(fetched) < live


def test_a_status_filter_too_broad_to_list_never_repeats_a_search(
    client, monkeypatch, superseded_ids
):
    # Three superseded facts are "too many to list": the search over-fetches instead.
    monkeypatch.setattr(ranking, "FILTER_IDS", 2)
    fetched = []
    search_vector = service.search_vector

    def spy(kind, vector, k, *, filter_ids=None):
        assert filter_ids is None
        fetched.append(k)
        return search_vector(kind, vector, k, filter_ids=filter_ids)

    monkeypatch.setattr(service, "search_vector", spy)
    query = "sourdough starter feeding"
    response = client.get("/api/v1/facts/search", {"q": query, "k": 2, "status": "superseded"})
    assert response.status_code == 200
    expected, _ = _closest_two(query, superseded_ids)
    assert [r["id"] for r in response.json()["results"]] == expected
    # The status-only search was the over-fetch's first round; each round looks further.
    assert len(fetched) > 1 and fetched == sorted(set(fetched))


def test_a_status_filter_matching_most_facts_still_ranks_by_meaning(client):
    pks = [
        services.fact_store(text=text).fact.pk
        for text in ("Kafka topics are compacted", "Kafka brokers run on three hosts", "Tea")
    ]
    Fact.objects.filter(pk=pks[0]).update(status=Fact.Status.RETRACTED)
    response = client.get("/api/v1/facts/search", {"q": "kafka brokers", "k": 5})
    assert [r["id"] for r in response.json()["results"]][:1] == [pks[1]]
    assert pks[0] not in {r["id"] for r in response.json()["results"]}


# --- OpenAPI -------------------------------------------------------------------------------


def test_search_and_extract_document_their_400_error(client):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = [
        schema["paths"]["/api/v1/search/entities"]["post"],
        schema["paths"]["/api/v1/facts/search"]["get"],
        schema["paths"]["/api/v1/extract/entities"]["post"],
    ]
    for operation in operations:
        error = operation["responses"]["400"]["content"]["application/json"]["schema"]
        assert error == {"$ref": "#/components/schemas/ErrorResponse"}
    shape = schema["components"]["schemas"]["ErrorResponse"]
    detail = schema["components"]["schemas"]["ErrorDetail"]
    assert shape["properties"]["error"]["$ref"] == "#/components/schemas/ErrorDetail"
    assert {"code", "message", "field"} <= set(detail["properties"])
    assert "index_complete" in schema["components"]["schemas"]["EntitySearchResponse"]["properties"]


def test_fact_deleted_through_the_service_disappears_from_entity_search(client, graph):
    # A plain user as the actor: a transactional test on PostgreSQL starts without the
    # migration-made "curators" group.
    actor = User.objects.create_user("admin-user")
    services.fact_delete(fact=Fact.objects.get(pk=graph["both"]), actor=actor)
    # The delete hook's job has run (the test queue is synchronous): the index dropped it.
    assert graph["both"] not in service.vector_index("facts")
    restart()
    assert graph["both"] not in service.vector_index("facts")
    ids = {r["memory_id"] for r in search(client, entities=["Redis"], minScore=0)["results"]}
    assert graph["both"] not in ids and graph["exact"] in ids


def test_a_project_reader_finds_its_facts_behind_other_projects_closer_ones(
    vector_dir, monkeypatch
):
    """The index's nearest facts and an entity's latest links were the whole memory's:
    where another project held many closer facts, a reader of global memory got none of
    the facts it may see, though they name the entity asked for."""
    from entities.scopes import ScopeFilter

    monkeypatch.setattr(ranking, "MIN_CANDIDATES", 3)
    monkeypatch.setattr(ranking, "OVERFETCH", 1)
    monkeypatch.setattr(ranking, "MAX_LINKED", 3)
    services.entity_store(name="Tarnwick", type="place")
    mine = [
        services.fact_store(text=text).fact.pk
        for text in ("Tarnwick holds a market on Thursdays", "The old mill of Tarnwick burned")
    ]
    for n in range(8):  # newer, and closer to the query's words
        services.fact_store(text=f"Tarnwick Tarnwick report number {n}", scope="elsewhere")
    found = ranking.search_by_entities(entities=["Tarnwick"], top_k=5, min_score=0)
    assert sorted(r["memory_id"] for r in found["results"]) == sorted(mine)
    everything = ranking.search_by_entities(
        entities=["Tarnwick"], top_k=20, min_score=0, scopes=ScopeFilter(all_scopes=True)
    )
    assert len(everything["results"]) == 10


def test_the_schema_lists_every_field_a_fact_search_hit_carries(client, vector_dir):
    """Each hit says its kind and project; a client generated from the schema kept
    neither (the schema did not list them)."""
    from tests.schema_shapes import undocumented_keys

    services.fact_store(text="Redis caches the checkout sessions", kind="decision")
    response = client.get("/api/v1/facts/search", {"q": "Redis sessions"})
    assert response.status_code == 200 and response.json()["results"]
    assert response.json()["results"][0]["kind"] == "decision"
    assert undocumented_keys(client, "get", "/api/v1/facts/search", response) == []
