"""Every write path keeps the vector index in step (test settings: HashingEmbedder, jobs
run inline when the transaction commits). Each test checks the index itself, since search
would also drop a deleted row on its own when it re-checks hits against the database."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from entities.models import Entity, Fact
from entities.services import alias_add, entity_store, fact_delete, fact_store
from kgsite.vectors import service
from kgsite.vectors.index import text_hash

# Real commits: the index jobs are queued on commit (and run inline in tests).
pytestmark = pytest.mark.django_db(transaction=True)

TOPICS = [
    "The billing service writes invoices to PostgreSQL",
    "Sourdough needs a lively starter and a warm kitchen",
    "Deploys happen on Tuesdays after the standup",
    "Kubernetes restarts crashed worker pods",
    "The cache expires sessions after one hour",
    "Backups are copied to the cold storage bucket nightly",
    "Our mobile app is written in Kotlin",
    "The search cluster runs on three nodes",
    "Invoices are numbered per calendar year",
    "The office plants are watered on Fridays",
    "Grafana dashboards show request latency",
    "New hires get a laptop on their first day",
]


@pytest.fixture
def vectors(tmp_path, settings):
    """A fresh index directory and no index in memory."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    service.vector_indexes_reset()
    yield
    service.vector_indexes_reset()


@pytest.fixture
def admin_user(db):
    # A flushed (transactional) database has no "curators" group: a superuser curates.
    return User.objects.create_superuser("admin", password="admin-pass")


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def curator_api(admin_user):
    api = APIClient()
    api.force_authenticate(admin_user)
    return api


def indexed_text(kind: str, key) -> str | None:
    return service.vector_index(kind).hash_of(key)


def entity_hits(text: str) -> list[str]:
    return [key for key, _score in service.similar_items("entities", text, 5)]


def test_editing_a_fact_through_the_api_reindexes_it(vectors, curator_api):
    facts = [fact_store(text=t).fact for t in TOPICS]
    edited = facts[1]
    new_text = "Tonegawa won the Nobel Prize for immunology"
    response = curator_api.patch(f"/api/v1/facts/{edited.pk}/", {"text": new_text}, format="json")
    assert response.status_code == 200
    assert indexed_text("facts", edited.pk) == text_hash(new_text)
    body = curator_api.get("/api/v1/facts/search", {"q": new_text, "k": 1}).json()
    assert [hit["id"] for hit in body["results"]] == [edited.pk]


def test_editing_an_entity_through_the_api_reindexes_it(vectors, curator_api):
    entity, _ = entity_store(name="Postgres", type="database")
    before = indexed_text("entities", entity.pk)
    url = f"/api/v1/entities/{entity.pk}/"
    assert curator_api.patch(url, {"description": "relational"}, format="json").status_code == 200
    after = indexed_text("entities", entity.pk)
    assert before is not None and after not in (None, before)
    assert curator_api.post(f"{url}aliases/", {"alias": "pgsql"}, format="json").status_code == 201
    assert indexed_text("entities", entity.pk) not in (None, after)
    assert curator_api.delete(f"{url}aliases/pgsql/").status_code == 204
    assert indexed_text("entities", entity.pk) == after


def test_deleting_an_entity_in_the_admin_drops_it_from_entity_search(vectors, admin_client):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    alias_add(entity=pg, alias="Postgres")
    entity_store(name="Sourdough", type="food")
    assert entity_hits("postgres")[0] == pg.pk
    response = admin_client.post(f"/admin/entities/entity/{pg.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert pg.pk not in service.vector_index("entities")
    assert pg.pk not in entity_hits("postgres")


def test_bulk_delete_in_the_admin_drops_entities_never_facts(vectors, admin_client):
    doomed = [entity_store(name=n, type="thing")[0] for n in ("Alpha", "Beta")]
    kept, _ = entity_store(name="Gamma", type="thing")
    facts = [fact_store(text=t).fact for t in TOPICS[:3]]
    response = admin_client.post(
        "/admin/entities/entity/",
        {"action": "delete_selected", "_selected_action": [e.pk for e in doomed], "post": "yes"},
    )
    assert response.status_code == 302
    index = service.vector_index("entities")
    assert [e.pk in index for e in doomed] == [False, False] and kept.pk in index
    response = admin_client.post(
        "/admin/entities/fact/",
        {"action": "delete_selected", "_selected_action": [facts[0].pk], "post": "yes"},
    )
    # Facts are retracted, never deleted (issue 16): the admin offers no delete.
    assert response.status_code in (200, 302)
    assert Fact.objects.filter(pk=facts[0].pk).exists()
    assert facts[0].pk in service.vector_index("facts")


def test_editing_a_fact_and_an_entity_in_the_admin_reindexes_them(vectors, admin_client):
    fact = fact_store(text=TOPICS[0], source="wiki").fact
    data = {"text": TOPICS[3], "confidence": "1", "status": "active", "source": "wiki"}
    response = admin_client.post(f"/admin/entities/fact/{fact.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert indexed_text("facts", fact.pk) == text_hash(TOPICS[3])

    entity, _ = entity_store(name="Postgres", type="database")
    data = {
        "canonical_name": "PostgreSQL",
        "type": "database",
        "description": "",
        "aliases-TOTAL_FORMS": "0",
        "aliases-INITIAL_FORMS": "0",
        "entity_facts-TOTAL_FORMS": "0",
        "entity_facts-INITIAL_FORMS": "0",
    }
    before = indexed_text("entities", entity.pk)
    response = admin_client.post(f"/admin/entities/entity/{entity.pk}/change/", data)
    assert response.status_code == 302
    assert indexed_text("entities", entity.pk) not in (None, before)
    assert Entity.objects.get(pk=entity.pk).canonical_name == "PostgreSQL"


def test_a_batch_that_saves_and_deletes_facts_queues_upserts_in_chunks(
    vectors, monkeypatch, admin_user
):
    kept = fact_store(text=TOPICS[0]).fact
    monkeypatch.setattr(service, "BATCH_TASK_SIZE", 2)
    queued = []
    real = service._enqueue
    monkeypatch.setattr(
        service, "_enqueue", lambda func, *args: (queued.append((func, args)), real(func, *args))
    )
    with service.vector_batch():
        doomed = fact_store(text=TOPICS[1]).fact
        added = [fact_store(text=t).fact for t in TOPICS[2:5]]
        fact_delete(fact=doomed, actor=admin_user)
        assert queued == []  # collected, not queued, inside the block
    # Four distinct ids (the deleted one appears twice), two per job, upserts only.
    assert [func for func, _args in queued] == [service.vector_upsert] * 2
    assert [len(args[1]) for _func, args in queued] == [2, 2]
    index = service.vector_index("facts")
    assert doomed.pk not in index
    assert all(f.pk in index for f in [kept, *added])
