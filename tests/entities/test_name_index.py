"""Lookup misses find their suggestions through the word-start index, kept in step."""

from __future__ import annotations

import io
import unicodedata

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given, settings
from hypothesis import strategies as st

from entities.models import Entity, NameToken
from entities.name_index import _secondary_indexes, fold, name_index_rebuild
from entities.selectors import entity_lookup
from entities.services import alias_add, alias_remove, entity_delete, entity_store, entity_update

pytestmark = pytest.mark.django_db


def suggested(name: str) -> list[str]:
    return [e.canonical_name for e, _score in entity_lookup(name=name).suggestions]


def test_a_miss_reads_the_index_not_every_name():
    entity_store(name="Mustafa Kemal Atatürk", type="person")
    with CaptureQueriesContext(connection) as queries:
        assert suggested("Ataturkk") == ["Mustafa Kemal Atatürk"]
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert "LIKE" not in sql.upper()  # no '%word%' scan of the name tables


def test_the_index_follows_renames_aliases_and_deletes(curator):
    city, _ = entity_store(name="Eskişehir", type="place")
    assert suggested("Eskisehirr") == ["Eskişehir"]
    alias_add(entity=city, alias="Dorylaion")
    assert suggested("Dorylaio") == ["Eskişehir"]
    alias_remove(entity=city, alias="Dorylaion")
    assert suggested("Dorylaio") == []
    entity_update(entity=city, canonical_name="Gaziantep", actor=curator)
    assert suggested("Eskisehirr") == []
    assert suggested("Gaziantepp") == ["Gaziantep"]
    entity_delete(entity=Entity.objects.get(pk=city.pk), actor=curator)
    assert suggested("Gaziantepp") == [] and not NameToken.objects.exists()


def test_a_bulk_load_is_indexed_by_the_rebuild_command():
    Entity.objects.bulk_create([Entity(canonical_name="Kapadokya", name_norm="kapadokya")])
    assert suggested("Kapadokia") == []  # bypassed the services
    call_command("rebuild_name_index", stdout=io.StringIO())
    assert suggested("Kapadokia") == ["Kapadokya"]


def test_suggestions_keep_to_the_type_asked_for():
    entity_store(name="Ararat", type="mountain")
    entity_store(name="Ararat", type="film")
    assert [e.type for e, _ in entity_lookup(name="Ararrat", type="film").suggestions] == ["film"]


def test_a_rebuild_puts_back_every_index_it_dropped_to_load_fast():
    entity_store(name="Ada Lovelace", type="person")
    with connection.cursor() as cursor:
        before = sorted(_secondary_indexes(cursor, NameToken._meta.db_table))
    assert {"name_token_prefix_idx"} <= {name for name, _sql in before}
    assert name_index_rebuild() > 0
    with connection.cursor() as cursor:
        assert sorted(_secondary_indexes(cursor, NameToken._meta.db_table)) == before
    assert entity_lookup(name="Ada Lovelase").suggestions  # the miss path reads the rows


@given(st.text(max_size=30))
@settings(max_examples=300, deadline=None)
def test_the_fold_is_the_whole_texts_nfkd_fold(text):
    """The fold goes code point by code point (a table, for speed): the same as spelling
    out umlauts and ligatures and dropping combining marks after NFKD of the whole text,
    whatever marks follow which letters."""
    spelt = text.translate(str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"}))
    spelt = spelt.translate(
        str.maketrans({"ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "ð": "d", "þ": "th"})
    )
    expected = "".join(
        c for c in unicodedata.normalize("NFKD", spelt) if not unicodedata.combining(c)
    )
    assert fold(text) == expected


def test_accented_and_decomposed_spellings_fold_alike():
    assert fold("citro\u0308en ærø") == fold("citroën ærø") == "citroen aero"
    assert fold("ångström") == "angstroem"
