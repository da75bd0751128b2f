"""Rows stored before ``normalize`` folded "i" + U+0307 are found again after the data
migration (entities 0017, books 0006); a row whose new form clashes keeps its old one."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from books.models import Book
from entities.models import Alias, Entity, Fact
from entities.name_index import name_index_refresh
from entities.selectors import entity_lookup
from entities.services import entity_store

pytestmark = pytest.mark.django_db

LOWERED = "İzmir".lower()  # "i" + U+0307 + "zmir"
entities_0017 = importlib.import_module("entities.migrations.0017_fold_dot_above_i")
books_0006 = importlib.import_module("books.migrations.0006_fold_dot_above_i")


def _stored_the_old_way(name: str, type_: str = "place") -> Entity:
    """An entity whose norm was written by the earlier normalize (the dot kept)."""
    entity = Entity.objects.create(canonical_name=name, name_norm=name.casefold(), type=type_)
    name_index_refresh(entity_ids=[entity.pk])
    return entity


def test_an_old_row_is_found_by_every_spelling_after_the_migration():
    old = _stored_the_old_way(LOWERED)
    assert entity_lookup(name="İzmir").as_dict()["match"] == "none"

    entities_0017.forwards(apps, None)

    old.refresh_from_db()
    assert old.name_norm == "izmir"
    for asked in ("İzmir", "IZMIR", LOWERED, "izmir"):
        assert entity_lookup(name=asked).as_dict()["entity"]["id"] == old.id


def test_aliases_and_fact_texts_are_folded_too():
    town, _ = entity_store(name="Smyrna", type="place")
    alias = Alias.objects.create(entity=town, alias=LOWERED, alias_norm=LOWERED, type="place")
    fact = Fact.objects.create(text=f"{LOWERED} is a port.", text_norm=f"{LOWERED} is a port.")

    entities_0017.forwards(apps, None)

    alias.refresh_from_db()
    fact.refresh_from_db()
    assert alias.alias_norm == "izmir"
    assert fact.text_norm == "izmir is a port."
    assert entity_lookup(name="İZMİR").as_dict()["entity"]["id"] == town.id


def test_a_row_whose_new_form_is_taken_keeps_its_old_one_and_both_stay():
    new, _ = entity_store(name="İzmir", type="place")
    old = _stored_the_old_way(LOWERED)

    entities_0017.forwards(apps, None)

    old.refresh_from_db()
    assert old.name_norm == LOWERED  # left for a curator to merge, nothing dropped
    assert set(Entity.objects.values_list("pk", flat=True)) == {new.pk, old.pk}
    assert entity_lookup(name=LOWERED).as_dict()["entity"]["id"] == new.id


def test_book_titles_are_folded_unless_taken():
    folded = Book.objects.create(title=f"{LOWERED} notes", title_norm=f"{LOWERED} notes")
    Book.objects.create(title="İzmir guide", title_norm="izmir guide")
    kept = Book.objects.create(title=f"{LOWERED} guide", title_norm=f"{LOWERED} guide")

    books_0006.forwards(apps, None)

    folded.refresh_from_db()
    kept.refresh_from_db()
    assert folded.title_norm == "izmir notes"
    assert kept.title_norm == f"{LOWERED} guide"
