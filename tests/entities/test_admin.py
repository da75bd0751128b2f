from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from entities.models import Entity
from entities.services import alias_add, entity_store, fact_link, fact_store

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    user = User.objects.create_superuser("admin", password="admin-pass")
    client.force_login(user)
    return client


def test_entity_admin_searches_the_normalised_name(admin_client):
    entity_store(name="Straße", type="place")
    entity_store(name="Tonegawa", type="person")
    page = admin_client.get("/admin/entities/entity/", {"q": "STRASSE"})
    assert page.status_code == 200
    assert "Straße" in page.content.decode() and "Tonegawa" not in page.content.decode()


def test_entity_admin_shows_aliases_and_linked_facts(admin_client):
    entity, _ = entity_store(name="PostgreSQL", type="database")
    alias_add(entity=entity, alias="postgres")
    fact = fact_store(text="PostgreSQL supports JSON.").fact
    fact_link(fact=fact, entity=entity)
    page = admin_client.get(f"/admin/entities/entity/{entity.pk}/change/").content.decode()
    assert 'value="postgres"' in page
    assert "linked fact" in page.lower() and str(fact.pk) in page


def test_fact_admin_filters_by_status_and_source(admin_client):
    fact_store(text="Kept fact.", source="wiki")
    fact_store(text="Other fact.", source="chat")
    page = admin_client.get("/admin/entities/fact/", {"source": "wiki"}).content.decode()
    assert "Kept fact." in page and "Other fact." not in page
    assert "By status" in page


def test_admin_edit_keeps_the_normalised_name_in_step(admin_client):
    entity, _ = entity_store(name="Postgres", type="database")
    response = admin_client.post(
        f"/admin/entities/entity/{entity.pk}/change/",
        {
            "canonical_name": "PostgreSQL",
            "type": "Database",
            "description": "",
            "aliases-TOTAL_FORMS": "1",
            "aliases-INITIAL_FORMS": "0",
            "aliases-0-alias": "PG",
            "aliases-0-manual": "on",
            "entity_facts-TOTAL_FORMS": "0",
            "entity_facts-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    entity.refresh_from_db()
    assert (entity.name_norm, entity.type, entity.curated) == ("postgresql", "database", True)
    assert entity.aliases.get().alias_norm == "pg"
    assert Entity.objects.count() == 1


def test_home_page_shows_counts(client):
    entity_store(name="PostgreSQL", type="database")
    page = client.get("/")
    assert page.status_code == 200 and "1 entities" in page.content.decode()
