from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from entities.models import Alias, Entity, Fact
from entities.selectors import entity_lookup
from entities.services import alias_add, entity_store, fact_link, fact_store
from kgsite.models import AuditEntry

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
    # Who added an alias is shown, not offered as a checkbox the save would ignore.
    assert 'name="aliases-0-manual"' not in page and "Manual" in page


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


def test_home_page_shows_counts(client, reader):
    # Issue 11: the dashboard needs a login (anonymous visitors go to the login page).
    entity_store(name="PostgreSQL", type="database")
    assert client.get("/").status_code == 302
    client.force_login(reader)
    page = client.get("/")
    assert page.status_code == 200
    assert '<span class="n">1</span> entities' in page.content.decode()


# --- The admin goes through the services ---------------------------------------------------


def change_form(entity, *, aliases=(), **fields) -> dict:
    """The POST body of the entity change page: ``aliases`` are (id or None, text, delete)."""
    data = {
        "canonical_name": entity.canonical_name,
        "type": entity.type,
        "description": entity.description,
        "aliases-TOTAL_FORMS": str(len(aliases)),
        "aliases-INITIAL_FORMS": str(sum(1 for pk, _t, _d in aliases if pk)),
        "entity_facts-TOTAL_FORMS": "0",
        "entity_facts-INITIAL_FORMS": "0",
        **fields,
    }
    for i, (pk, text, delete) in enumerate(aliases):
        data[f"aliases-{i}-alias"] = text
        data[f"aliases-{i}-manual"] = "on"
        data[f"aliases-{i}-entity"] = entity.pk
        if pk:
            data[f"aliases-{i}-id"] = str(pk)
        if delete:
            data[f"aliases-{i}-DELETE"] = "on"
    return data


def snapshot() -> list:
    entities = list(Entity.objects.order_by("pk").values_list("pk", "name_norm", "type"))
    aliases = list(Alias.objects.order_by("pk").values_list("entity_id", "alias_norm", "type"))
    return [entities, aliases, AuditEntry.objects.count()]


def post_change(admin_client, entity, data):
    return admin_client.post(f"/admin/entities/entity/{entity.pk}/change/", data)


def assert_form_error(response, text):
    assert response.status_code == 200, response.status_code  # the form again, not a 500
    page = response.content.decode()
    assert "errornote" in page and text in page, page[:3000]


def test_admin_rename_to_an_existing_name_is_a_form_error(admin_client):
    entity_store(name="PostgreSQL", type="database")
    mysql, _ = entity_store(name="MySQL", type="database")
    before = snapshot()
    response = post_change(admin_client, mysql, change_form(mysql, canonical_name="postgresql"))
    assert_form_error(response, "another database entity is named")
    assert snapshot() == before


def test_admin_control_or_invisible_characters_are_a_form_error(admin_client):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    before = snapshot()
    for bad in ("Post\x00gres", "Post\u200bgres"):
        response = post_change(admin_client, pg, change_form(pg, canonical_name=bad))
        assert response.status_code == 200
        assert "errornote" in response.content.decode()
    response = post_change(admin_client, pg, change_form(pg, aliases=[(None, "pg\x07", False)]))
    assert_form_error(response, "control characters")
    assert snapshot() == before


def test_admin_alias_taken_by_another_entity_is_a_form_error(admin_client):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    alias_add(entity=pg, alias="postgres")
    mysql, _ = entity_store(name="MySQL", type="database")
    before = snapshot()
    response = post_change(
        admin_client, mysql, change_form(mysql, aliases=[(None, "Postgres", False)])
    )
    assert_form_error(response, "already points to")
    # An alias equal to another entity's canonical name is refused as alias_add does.
    response = post_change(
        admin_client, mysql, change_form(mysql, aliases=[(None, "postgresql", False)])
    )
    assert_form_error(response, "canonical name of another entity")
    assert snapshot() == before


def test_admin_retype_clashing_with_an_alias_is_a_form_error(admin_client):
    language, _ = entity_store(name="Python", type="language")
    alias_add(entity=language, alias="Py")
    snake, _ = entity_store(name="Python regius", type="animal")
    alias = alias_add(entity=snake, alias="py")[0]
    before = snapshot()
    response = post_change(
        admin_client, snake, change_form(snake, type="language", aliases=[(alias.pk, "py", False)])
    )
    assert_form_error(response, "already points to")
    assert snapshot() == before
    # Deleting the clashing alias in the same form makes the retype fine.
    response = post_change(
        admin_client, snake, change_form(snake, type="language", aliases=[(alias.pk, "py", True)])
    )
    assert response.status_code == 302
    assert Entity.objects.get(pk=snake.pk).type == "language"


def test_admin_retype_moves_the_aliases_and_writes_audit_rows(admin_client):
    snake, _ = entity_store(name="Python regius", type="animal")
    alias = alias_add(entity=snake, alias="Ball python")[0]
    data = change_form(
        snake,
        type="Reptile",
        canonical_name="Python Regius",
        aliases=[(alias.pk, "Ball python", False), (None, "Royal python", False)],
    )
    response = post_change(admin_client, snake, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert sorted(Alias.objects.values_list("alias", "type")) == [
        ("Ball python", "reptile"),
        ("Royal python", "reptile"),
    ]
    assert entity_lookup(name="royal python", type="reptile").entity.id == snake.id
    actions = list(
        AuditEntry.objects.filter(actor__isnull=False)  # not the setup's own entity.create
        .order_by("pk")
        .values_list("action", "actor__username", "target_id")
    )
    assert actions == [("entity.update", "admin", snake.pk), ("alias.add", "admin", snake.pk)]


def test_admin_edit_and_delete_of_an_alias_are_audited(admin_client):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    old = alias_add(entity=pg, alias="postgress")[0]
    gone = alias_add(entity=pg, alias="pgsql")[0]
    data = change_form(pg, aliases=[(old.pk, "postgres", False), (gone.pk, "pgsql", True)])
    assert post_change(admin_client, pg, data).status_code == 302
    assert list(pg.aliases.values_list("alias", flat=True)) == ["postgres"]
    payloads = list(
        AuditEntry.objects.filter(action__startswith="alias.")
        .order_by("pk")
        .values_list("action", "payload")
    )
    assert payloads == [
        ("alias.remove", {"alias": "postgress"}),
        ("alias.remove", {"alias": "pgsql"}),
        ("alias.add", {"alias": "postgres"}),
    ]


def test_admin_add_goes_through_the_services(admin_client):
    entity_store(name="Tonegawa", type="person")
    data = {
        "canonical_name": "TONEGAWA",
        "type": "",
        "description": "",
        "aliases-TOTAL_FORMS": "0",
        "aliases-INITIAL_FORMS": "0",
        "entity_facts-TOTAL_FORMS": "0",
        "entity_facts-INITIAL_FORMS": "0",
    }
    response = admin_client.post("/admin/entities/entity/add/", data)
    assert_form_error(response, "give a type")
    data.update({"canonical_name": "Kubernetes", "type": "Cloud", "aliases-TOTAL_FORMS": "1"})
    data.update({"aliases-0-alias": "k8s", "aliases-0-manual": "on"})
    response = admin_client.post("/admin/entities/entity/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    k8s = Entity.objects.get(name_norm="kubernetes")
    assert (k8s.type, k8s.curated, list(k8s.aliases.values_list("type", flat=True))) == (
        "cloud",
        True,
        ["cloud"],
    )
    assert set(AuditEntry.objects.values_list("action", flat=True)) == {
        "entity.create",
        "alias.add",
    }


def test_admin_delete_is_audited(admin_client):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    alias_add(entity=pg, alias="pg")
    response = admin_client.post(f"/admin/entities/entity/{pg.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Entity.objects.exists() and not Alias.objects.exists()
    entry = AuditEntry.objects.get(action="entity.delete")
    assert entry.target_id == pg.pk and entry.payload["aliases"] == ["pg"]


def test_fact_admin_edit_goes_through_fact_update(admin_client):
    fact = fact_store(text="Redis is single threaded.", source="blog").fact
    data = {
        "text": "Redis runs commands on one thread.",
        "predicate": "",
        "object_value": "",
        "confidence": "1.5",
        "source": "docs",
        "status": "active",
    }
    response = admin_client.post(f"/admin/entities/fact/{fact.pk}/change/", data)
    assert_form_error(response, "confidence must be between 0 and 1")
    data["confidence"] = "0.9"
    response = admin_client.post(f"/admin/entities/fact/{fact.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    fact.refresh_from_db()
    assert (fact.text_norm, fact.confidence, fact.source) == (
        "redis runs commands on one thread.",
        0.9,
        "docs",
    )
    assert AuditEntry.objects.get(action="fact.update").actor.username == "admin"


def test_fact_admin_add_stores_or_confirms_through_fact_store(admin_client):
    assert admin_client.get("/admin/entities/fact/add/").status_code == 200
    assert admin_client.get("/admin/entities/entity/add/").status_code == 200
    data = {"text": "Redis keeps data in memory.", "confidence": "0.6", "status": "active"}
    data.update({"predicate": "", "object_value": "", "source": "notes"})
    response = admin_client.post("/admin/entities/fact/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    fact = Fact.objects.get()
    assert (fact.created_by.username, fact.source, fact.confidence) == ("admin", "notes", 0.6)
    response = admin_client.post("/admin/entities/fact/add/", data, follow=True)
    assert "was confirmed" in response.content.decode()
    fact.refresh_from_db()
    assert Fact.objects.count() == 1 and fact.confirmations == 2
    data.update({"text": "x", "object_value": "orphan"})
    assert_form_error(admin_client.post("/admin/entities/fact/add/", data), "needs a subject")
    assert Fact.objects.count() == 1


def test_an_entity_a_book_mentions_can_be_deleted_in_the_admin(admin_client, tmp_path):
    """Its mentions go with it (as DELETE /entities/<id>/ does): the page must not ask
    for a permission to delete mentions, which nobody has (they are read only)."""
    from books.models import Mention
    from books.services import book_ingest

    entity, _ = entity_store(name="Kestrel", type="software")
    path = tmp_path / "kestrel.md"
    path.write_text("# Kestrel\n\nKestrel schedules every job of the cluster.\n")
    book_ingest(path=path, extractor="offline", embed=False)
    assert Mention.objects.filter(entity=entity).exists()
    page = admin_client.get(f"/admin/entities/entity/{entity.pk}/delete/")
    assert "permission to delete" not in page.content.decode()
    response = admin_client.post(f"/admin/entities/entity/{entity.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Entity.objects.filter(pk=entity.pk).exists()
    assert AuditEntry.objects.filter(action="entity.delete", target_id=entity.pk).exists()


@pytest.mark.parametrize("term", ["Köln", "KÖLN", "Ko\u0308ln", "kÖlN"])
def test_fact_admin_search_finds_a_fact_however_its_words_are_cased_or_composed(admin_client, term):
    fact_store(text="Der Bahnhof in Köln ist groß.")
    fact_store(text="Redis keeps data in memory.")
    page = admin_client.get("/admin/entities/fact/", {"q": term}).content.decode()
    assert "Bahnhof" in page and "Redis" not in page


def test_admin_fixing_an_aliass_letter_case_saves_it(admin_client):
    """ "Postgresql" to "PostgreSQL" names the same alias: the edit was dropped without a
    word, the page saying it had saved."""
    pg, _ = entity_store(name="Postgres database", type="database")
    alias = alias_add(entity=pg, alias="Postgresql")[0]
    data = change_form(pg, aliases=[(alias.pk, "PostgreSQL", False)])
    assert post_change(admin_client, pg, data).status_code == 302
    assert list(pg.aliases.values_list("alias", flat=True)) == ["PostgreSQL"]
    assert entity_lookup(name="postgresql", type="database").entity.id == pg.id
    actions = AuditEntry.objects.filter(action__startswith="alias.").values_list(
        "action", "payload"
    )
    assert list(actions.order_by("pk")) == [
        ("alias.remove", {"alias": "Postgresql"}),
        ("alias.add", {"alias": "PostgreSQL"}),
    ]


def test_dismissing_suggestions_in_the_admin_says_how_many(admin_client, graph):
    """The action dismissed them and said nothing: the curator could not tell it worked."""
    suggestion = graph["suggestion"]
    response = admin_client.post(
        "/admin/entities/duplicatesuggestion/",
        {"action": "dismiss_selected", "_selected_action": [suggestion.pk]},
        follow=True,
    )
    suggestion.refresh_from_db()
    assert suggestion.status == "dismissed"
    assert "Dismissed 1 suggestion." in response.content.decode()
