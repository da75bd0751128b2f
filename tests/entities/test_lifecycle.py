"""Entities that machines create and collect go through the entity graph's services:
created in bulk with their aliases, audited, indexed once per batch, and deleted only
when no app still refers to them."""

from __future__ import annotations

import pytest

from entities import hooks
from entities.models import Alias, Entity
from entities.services import EntityDraft, entities_ensure, entity_gc, entity_store, fact_store
from kgsite.models import AuditEntry


@pytest.fixture
def saved(monkeypatch):
    """Every on_entity_saved call, as the vectors room and the gazetteer receive them."""
    calls: list[list[str]] = []
    hook = hooks.on_entity_saved(lambda ids: calls.append(sorted(ids)))
    yield calls
    hooks._entity_saved.remove(hook)


@pytest.mark.django_db
def test_machines_create_entities_in_bulk_with_aliases_and_one_audit_row(
    saved, django_capture_on_commit_callbacks
):
    existing, _ = entity_store(name="Ada Lovelace", type="person")
    drafts = [
        EntityDraft("Ada Lovelace", "person"),
        EntityDraft("Analytical Engine", "machine", ("the Engine",)),
        EntityDraft("analytical engine", "machine"),  # same entity, another case
        EntityDraft("", "person"),  # a bad name is skipped, not an error
    ]
    with django_capture_on_commit_callbacks(execute=True):
        result = entities_ensure(drafts=drafts, source="book:7")
    engine = Entity.objects.get(name_norm="analytical engine")
    assert result.ids[("ada lovelace", "person")] == existing.pk
    assert result.created == [engine.pk]
    assert list(engine.aliases.values_list("alias", "manual")) == [("the Engine", False)]
    row = AuditEntry.objects.get(action="entity.bulk_create")
    assert row.payload == {"source": "book:7", "ids": [engine.pk]}
    assert saved[-1] == [engine.pk]  # one call for the batch

    again = entities_ensure(drafts=drafts, source="book:7")
    assert again.created == [] and Entity.objects.count() == 2


@pytest.mark.django_db
def test_garbage_collection_keeps_what_something_refers_to_and_audits_the_rest(
    saved, django_capture_on_commit_callbacks
):
    ids = entities_ensure(
        drafts=[EntityDraft(n, "thing") for n in ("Lamp", "Chair", "Table", "Rug")], source="t"
    ).ids
    lamp, chair, table, rug = (ids[(n, "thing")] for n in ("lamp", "chair", "table", "rug"))
    fact_store(text="The lamp is broken.", subject=Entity.objects.get(pk=lamp))
    Alias.objects.create(
        entity_id=chair, alias="Seat", alias_norm="seat", type="thing", manual=True
    )
    referrer = hooks.entity_referrers(lambda batch: {pk for pk in batch if pk == table})
    try:
        with django_capture_on_commit_callbacks(execute=True):
            removed = entity_gc(entity_ids=[lamp, chair, table, rug], source="book:9")
    finally:
        hooks._entity_referrers.remove(referrer)
    assert removed == [rug]
    assert set(Entity.objects.values_list("pk", flat=True)) == {lamp, chair, table}
    row = AuditEntry.objects.get(action="entity.gc")
    assert row.payload["source"] == "book:9"
    assert row.payload["removed"] == [{"id": rug, "canonical_name": "Rug", "type": "thing"}]
    assert saved[-1] == [rug]


@pytest.mark.django_db
def test_a_curators_entity_is_never_collected():
    entity, _ = entity_store(name="Grace Hopper", type="person")
    entity.curated = True
    entity.save()
    assert entity_gc(entity_ids=[entity.pk], source="test") == []
    assert not AuditEntry.objects.filter(action="entity.gc").exists()
