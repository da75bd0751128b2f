"""A change of embedding model (a new signature) rebuilds the indexes from the database:
the same vectors under a new name answer exactly as before, and a model of another
dimension answers from vectors of its own, never from the old file."""

from __future__ import annotations

import pytest

from entities import services
from entities.search import ranking
from entities.search.kinds import similar_facts
from kgsite.vectors import service
from kgsite.vectors.embedder import DIM, HashingEmbedder
from tests.conftest import restart

pytestmark = pytest.mark.django_db


class RenamedEmbedder(HashingEmbedder):
    """The same vectors, published under another model name."""

    signature = f"hashing-renamed:{DIM}"


class WideEmbedder(HashingEmbedder):
    """Another model: twice the dimension."""

    dim = 2 * DIM
    signature = f"hashing-wide:{2 * DIM}"


TEXTS = [
    "Redis keeps the session cache for the checkout",
    "PostgreSQL stores the orders table",
    "The sourdough starter needs feeding twice a day",
    "Kafka topics are compacted every night",
]


@pytest.fixture
def stored(vector_dir):
    redis, _ = services.entity_store(name="Redis", type="technology")
    ids = [services.fact_store(text=t).fact.pk for t in TEXTS]
    services.fact_link(fact=services.fact_store(text=TEXTS[0]).fact, entity=redis)
    # What the on-commit jobs do in a running site (this test's transaction never commits).
    for kind in ("facts", "entities"):
        service.vector_rebuild(kind)
    return ids


def answers() -> dict:
    topical = ranking.fact_search(q="session cache checkout", k=4)
    entity = ranking.search_by_entities(entities=["Redis"], min_score=0)
    return {
        "topical": [(r["id"], r["score"]) for r in topical["results"]],
        "entity": [(r["memory_id"], r["score"]) for r in entity["results"]],
        "similar": similar_facts("orders table in PostgreSQL", 2),
        "complete": topical["index_complete"],
    }


def switch(settings, embedder: type) -> None:
    settings.KGSITE_EMBEDDER = f"{__name__}.{embedder.__name__}"
    service.query_cache_clear()
    restart()


def test_the_same_vectors_under_a_new_name_answer_exactly_as_before(stored, settings):
    before = answers()
    assert before["topical"][0][0] == stored[0] and before["complete"]
    switch(settings, RenamedEmbedder)
    after = answers()
    assert [pk for pk, _ in after["topical"]] == [pk for pk, _ in before["topical"]]
    assert [pk for pk, _ in after["entity"]] == [pk for pk, _ in before["entity"]]
    old = [score for _, score in before["topical"] + before["entity"]]
    new = [score for _, score in after["topical"] + after["entity"]]
    assert new == pytest.approx(old, abs=1e-5)
    assert [k for k, _ in after["similar"]] == [k for k, _ in before["similar"]]
    assert after["complete"] is True


def test_a_model_of_another_dimension_answers_from_its_own_vectors(stored, settings):
    answers()  # the indexes now hold vectors of the first model
    switch(settings, WideEmbedder)
    after = answers()
    assert after["topical"][0][0] == stored[0]
    assert [k for k, _ in after["similar"]][:1] == [stored[1]]
    query = service.embed_query("session cache checkout")
    assert query.shape == (2 * DIM,)
    assert service.vector_index("facts").scores(query, [stored[0]])[stored[0]] == pytest.approx(
        after["topical"][0][1], abs=1e-5
    )


def test_switching_back_answers_as_the_first_model_did(stored, settings):
    before = answers()
    switch(settings, WideEmbedder)
    answers()
    switch(settings, HashingEmbedder)
    again = answers()
    assert [pk for pk, _ in again["topical"]] == [pk for pk, _ in before["topical"]]
    assert [s for _, s in again["topical"]] == pytest.approx([s for _, s in before["topical"]])
