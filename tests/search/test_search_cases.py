"""Entity-aware and topical search as a user types it: the same entity named twice or
by an alias, names in any case or Unicode form, merged and deleted entities, one
project's memory kept from another's, and the 400s for parameters out of range."""

from __future__ import annotations

import unicodedata

import pytest
from django.contrib.auth.models import User

from entities import services
from entities.models import Entity
from entities.search import ranking
from kgsite.errors import InvalidInput

pytestmark = pytest.mark.django_db(transaction=True)

ENTITIES = "/api/v1/search/entities"
FACTS = "/api/v1/facts/search"


def ids(body: dict) -> list[int]:
    return [r.get("memory_id", r.get("id")) for r in body["results"]]


def post(api, **body) -> dict:
    response = api.post(ENTITIES, body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.fixture
def cache(vector_dir):
    redis, _ = services.entity_store(name="Redis", type="technology")
    services.alias_add(entity=redis, alias="the session cache")
    postgres, _ = services.entity_store(name="PostgreSQL", type="technology")
    facts = {
        "redis": "Sessions are cached in Redis for an hour",
        "both": "PostgreSQL rows are cached in Redis after a read",
        "pg": "PostgreSQL keeps the orders table",
        "tea": "The kettle in the kitchen is broken",
    }
    stored = {k: services.fact_store(text=t).fact.pk for k, t in facts.items()}
    return stored | {"redis_id": redis.pk, "postgres_id": postgres.pk}


# --- the same entity twice ---------------------------------------------------------------


@pytest.mark.parametrize(
    "names",
    [["Redis", "Redis"], ["Redis", "REDIS"], ["Redis", "the session cache"], ["redis", " Redis "]],
)
def test_an_entity_named_twice_ranks_as_if_named_once(cache, names):
    once = ranking.search_by_entities(entities=["Redis"], min_score=0)
    twice = ranking.search_by_entities(entities=names, min_score=0)
    assert ids(twice) == ids(once)
    assert [r["score"] for r in twice["results"]] == [r["score"] for r in once["results"]]
    top = twice["results"][0]
    assert top["matched_entities"] == ["Redis"] and top["entity_overlap"] == 1.0
    assert [q["canonical_id"] for q in twice["detected_query_entities"]] == [cache["redis_id"]]


def test_all_mode_with_a_repeated_name_still_needs_every_distinct_entity(cache):
    body = ranking.search_by_entities(
        entities=["Redis", "PostgreSQL", "redis"], match_mode="all", min_score=0
    )
    assert ids(body) == [cache["both"]]
    assert sorted(body["results"][0]["matched_entities"]) == ["PostgreSQL", "Redis"]


# --- names in any case or form ---------------------------------------------------------------


@pytest.fixture
def places(vector_dir):
    names = {
        "street": "Straße Süd",
        "city": "İzmir Kışla",
        "cafe": "Café Lumière",
        "hero": "Ὀδυσσεύς",
    }
    found = {}
    for key, name in names.items():
        services.entity_store(name=name, type="place")
        found[key] = services.fact_store(text=f"The depot is next to {name} since spring").fact.pk
    return found


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("STRASSE SÜD", "street"),
        ("straße süd", "street"),
        (unicodedata.normalize("NFD", "Straße Süd"), "street"),
        ("IZMIR KIŞLA", "city"),
        ("izmir kışla", "city"),
        (unicodedata.normalize("NFD", "CAFÉ LUMIÈRE"), "cafe"),
        ("ὈΔΥΣΣΕΎΣ", "hero"),
    ],
)
def test_a_name_in_any_case_or_unicode_form_finds_its_entitys_facts(api, places, typed, key):
    body = post(api, entities=[typed], matchMode="all", minScore=0)
    assert body["detected_query_entities"][0]["resolved"] is True
    assert ids(body) == [places[key]]


def test_accents_stay_significant(api, places):
    body = post(api, entities=["Cafe Lumiere"], matchMode="all", minScore=0)
    assert body["detected_query_entities"][0]["resolved"] is False
    assert body["results"] == []


def test_a_topic_typed_in_decomposed_form_finds_the_composed_fact(api, places):
    typed = unicodedata.normalize("NFD", "depot next to Café Lumière")
    response = api.get(FACTS, {"q": typed, "k": 1})
    assert response.status_code == 200
    assert ids(response.json()) == [places["cafe"]]


# --- merged, deleted and edited entities and facts ---------------------------------------------


def test_after_a_merge_the_duplicates_name_finds_the_survivors_facts(api, cache):
    dup, _ = services.entity_store(name="Redis Server", type="technology")
    fact = services.fact_store(text="Redis Server restarts nightly", entities=[dup]).fact.pk
    actor = User.objects.create_user("merger")
    survivor = Entity.objects.get(pk=cache["redis_id"])
    services.entity_merge(survivor=survivor, duplicates=[dup], actor=actor)
    body = post(api, entities=["Redis Server"], matchMode="all", minScore=0)
    assert body["detected_query_entities"][0]["canonical_id"] == survivor.pk
    assert fact in ids(body) and cache["redis"] in ids(body)


def test_a_deleted_entitys_name_is_only_text_afterwards(api, cache):
    actor = User.objects.create_user("deleter")
    services.entity_delete(entity=Entity.objects.get(pk=cache["postgres_id"]), actor=actor)
    body = post(api, entities=["PostgreSQL"], matchMode="all", minScore=0)
    assert body["detected_query_entities"][0]["resolved"] is False
    assert sorted(ids(body)) == sorted([cache["both"], cache["pg"]])
    assert body["results"][0]["matched_entities"] == ["PostgreSQL"]


def test_an_edited_fact_is_found_by_its_new_words_only(api, cache):
    actor = User.objects.create_user("editor")
    fact = services.fact_store(text="The nightly export runs at 02:00").fact
    services.fact_update(fact=fact, actor=actor, text="PostgreSQL exports run at 03:00")
    body = post(api, entities=["PostgreSQL"], matchMode="all", minScore=0)
    assert fact.pk in ids(body)
    found = api.get(FACTS, {"q": "nightly export 02:00", "k": 50}).json()
    texts = [r["text"] for r in found["results"]]
    assert "The nightly export runs at 02:00" not in texts


# --- projects -----------------------------------------------------------------------------


@pytest.fixture
def projects(vector_dir):
    kafka, _ = services.entity_store(name="Kafka", type="technology")
    return {
        scope: services.fact_store(
            text=f"Kafka keeps the {scope} events for a week", entities=[kafka], scope=scope
        ).fact.pk
        for scope in ("", "alpha", "beta")
    }


def test_a_project_sees_its_own_and_global_memory_never_anothers(api, projects):
    alpha = post(api, entities=["Kafka"], scope="alpha", minScore=0)
    assert sorted(ids(alpha)) == sorted([projects[""], projects["alpha"]])
    topical = api.get(FACTS, {"q": "Kafka events", "scope": "alpha", "k": 50}).json()
    assert sorted(ids(topical)) == sorted([projects[""], projects["alpha"]])
    assert ids(post(api, entities=["Kafka"], minScore=0)) == [projects[""]]
    every = post(api, entities=["Kafka"], all_scopes=True, minScore=0)
    assert sorted(ids(every)) == sorted(projects.values())


def test_a_filter_by_entity_keeps_to_the_project_too(api, projects):
    kafka = Entity.objects.get(name_norm="kafka").pk
    found = api.get(FACTS, {"q": "events", "entity": kafka, "scope": "beta", "k": 50}).json()
    assert sorted(ids(found)) == sorted([projects[""], projects["beta"]])


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"q": "   "}, "q"),
        ({"q": "x" * 2001}, "q"),
        ({"q": "x", "k": "ten"}, "k"),
        ({"q": "x", "k": "2.5"}, "k"),
        ({"q": "x", "k": -1}, "k"),
        ({"q": "x", "k": 10**12}, "k"),
        ({"q": "x", "minScore": "nan"}, "minScore"),
        ({"q": "x", "minScore": "high"}, "minScore"),
        ({"q": "x", "entity": "e" * 256}, "entity"),
        ({"q": "x", "scope": "s" * 129}, "scope"),
        ({"q": "x", "all_scopes": "perhaps"}, "all_scopes"),
    ],
)
def test_topical_search_with_bad_parameters_is_400_naming_the_field(api, vector_dir, params, field):
    response = api.get(FACTS, params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == field and error["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"entities": "Redis"}, "entities"),
        ({"entities": {"name": "Redis"}}, "entities"),
        ({"entities": [None]}, "entities"),
        ({"entities": ["R" * 513]}, "entities"),
        ({"entities": ["Redis"], "topK": "2.5"}, "topK"),
        ({"entities": ["Redis"], "topK": "many"}, "topK"),
        ({"entities": ["Redis"], "topK": -1}, "topK"),
        ({"entities": ["Redis"], "includeContent": "perhaps"}, "includeContent"),
        ({"entities": ["Redis"], "boostExactMatch": 11}, "boostExactMatch"),
        ({"entities": ["Redis"], "entityTypes": [""]}, "entityTypes"),
    ],
)
def test_entity_search_with_bad_input_is_400_naming_the_field(api, vector_dir, body, field):
    response = api.post(ENTITIES, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"].split(".")[0] == field


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"entities": "Redis"}, "entities"),
        ({"entities": ["Redis", 7]}, "entities.1"),
        ({"entities": ["  "]}, "entities.0"),
        ({"entities": ["Redis"], "top_k": 0}, "topK"),
        ({"entities": ["Redis"], "top_k": 10**9}, "topK"),
        ({"entities": ["Redis"], "min_score": float("nan")}, "minScore"),
        ({"entities": ["Redis"], "boost_exact_match": 0}, "boostExactMatch"),
    ],
)
def test_python_callers_get_the_same_errors_as_the_api(vector_dir, kwargs, field):
    with pytest.raises(InvalidInput) as error:
        ranking.search_by_entities(**kwargs)
    assert error.value.field == field


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"q": ""}, "q"),
        ({"q": "x", "k": 0}, "k"),
        ({"q": "x", "k": 51}, "k"),
        ({"q": "x", "min_score": -0.01}, "minScore"),
        ({"q": "x", "status": "gone"}, "status"),
    ],
)
def test_topical_search_from_python_names_the_field(vector_dir, kwargs, field):
    with pytest.raises(InvalidInput) as error:
        ranking.fact_search(**kwargs)
    assert error.value.field == field
