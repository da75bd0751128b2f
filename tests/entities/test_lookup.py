from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from entities.selectors import entity_lookup
from entities.services import alias_add, entity_store, fact_link, fact_store
from kgsite.errors import InvalidInput

pytestmark = pytest.mark.django_db
DEV_SET = Path(__file__).parent.parent / "data" / "eval" / "entity_lookup_dev.json"


@pytest.fixture
def tonegawa():
    entity, _ = entity_store(name="Tonegawa", type="person")
    alias_add(entity=entity, alias="Susumu Tonegawa")
    alias_add(entity=entity, alias="S. Tonegawa")
    return entity


def test_canonical_match_carries_aliases_and_facts(tonegawa):
    fact = fact_store(text="Tonegawa won the 1987 Nobel Prize.").fact
    fact_link(fact=fact, entity=tonegawa)
    result = entity_lookup(name="TONEGAWA").as_dict()
    assert result["match"] == "canonical"
    assert result["entity"] == {"id": tonegawa.id, "canonical_name": "Tonegawa", "type": "person"}
    assert result["aliases"] == ["S. Tonegawa", "Susumu Tonegawa"]
    assert result["facts"] == [fact.id]
    assert result["candidates"] == [] and result["suggestions"] == []


def test_alias_resolves_to_the_same_id(tonegawa):
    result = entity_lookup(name="  susumu   TONEGAWA ")
    assert result.match == "alias"
    assert result.entity.id == tonegawa.id


def test_unicode_variants_resolve():
    muller, _ = entity_store(name="Müller", type="person")
    strasse, _ = entity_store(name="Straße", type="place")
    for query in ("MÜLLER", "müller", unicodedata.normalize("NFD", "Müller")):
        assert entity_lookup(name=query).entity.id == muller.id
    assert entity_lookup(name="STRASSE").entity.id == strasse.id


def test_unknown_name_is_none_never_a_guess():
    entity_store(name="Erwin Schrödinger", type="person")
    result = entity_lookup(name="Schroedinger").as_dict()
    assert result["match"] == "none"
    assert result["entity"] is None
    # A near miss is offered as a suggestion, clearly apart from a match.
    assert [s["canonical_name"] for s in result["suggestions"]] == ["Erwin Schrödinger"]
    assert 0 < result["suggestions"][0]["score"] <= 1


def test_accent_difference_is_not_a_match():
    entity_store(name="São Paulo", type="place")
    assert entity_lookup(name="Sao Paulo").match == "none"


def test_name_of_several_types_is_ambiguous_unless_typed():
    spell, _ = entity_store(name="Shield", type="spell")
    armour, _ = entity_store(name="Shield", type="equipment")
    result = entity_lookup(name="shield")
    assert result.match == "ambiguous"
    assert result.entity is None
    assert {e.id for e in result.candidates} == {spell.id, armour.id}
    typed = entity_lookup(name="shield", type="equipment")
    assert typed.match == "canonical" and typed.entity.id == armour.id


def test_canonical_name_wins_over_an_alias_of_another_entity():
    holmes, _ = entity_store(name="Holmes", type="person")
    mycroft, _ = entity_store(name="Mycroft Holmes", type="person")
    alias_add(entity=mycroft, alias="Mr. Holmes")
    assert entity_lookup(name="holmes").entity.id == holmes.id


@pytest.mark.parametrize("name", [None, "", "   "])
def test_missing_or_empty_name_is_an_error(name):
    with pytest.raises(InvalidInput) as info:
        entity_lookup(name=name)
    assert info.value.field == "name"


def test_dev_set_resolves_every_query_through_the_api(api):
    data = json.loads(DEV_SET.read_text(encoding="utf-8"))
    for item in data["entities"]:
        entity, _ = entity_store(name=item["name"], type=item["type"])
        for alias in item["aliases"]:
            alias_add(entity=entity, alias=alias)
    failures = []
    for query in data["queries"]:
        body = api.get("/api/v1/entities/lookup", {"name": query["q"]}).json()
        got = body["entity"]["canonical_name"] if body["entity"] else None
        if got != query["expect"] or (got is None and body["match"] != "none"):
            failures.append((query["q"], query["expect"], got))
    assert failures == []
    assert len(data["queries"]) >= 14


def test_a_name_matching_entities_of_several_types_is_ambiguous_even_via_alias():
    language, _ = entity_store(name="Python", type="language")
    troupe, _ = entity_store(name="Monty Python", type="comedy_group")
    alias_add(entity=troupe, alias="Python")
    result = entity_lookup(name="python")
    assert result.match == "ambiguous" and result.entity is None
    # Canonical matches come first among the candidates.
    assert [e.id for e in result.candidates] == [language.id, troupe.id]
    assert entity_lookup(name="python", type="language").entity.id == language.id
    typed = entity_lookup(name="python", type="comedy_group")
    assert (typed.match, typed.entity.id) == ("alias", troupe.id)
    # A name only one type knows still resolves.
    assert entity_lookup(name="monty python").entity.id == troupe.id


def test_ambiguous_lookup_through_the_api_lists_candidates(api):
    entity_store(name="Python", type="language")
    troupe, _ = entity_store(name="Monty Python", type="comedy_group")
    alias_add(entity=troupe, alias="Python")
    body = api.get("/api/v1/entities/lookup", {"name": "PYTHON"}).json()
    assert body["match"] == "ambiguous" and body["entity"] is None
    assert [c["canonical_name"] for c in body["candidates"]] == ["Python", "Monty Python"]


def test_turkish_spellings_are_one_entity_that_keeps_its_name():
    first, created = entity_store(name="İzmir Kışla", type="place")
    again, created_again = entity_store(name="İZMIR KIŞLA", type="place")
    assert created and not created_again
    assert again.pk == first.pk
    assert again.canonical_name == "İzmir Kışla"  # the display name keeps its letters
    assert entity_lookup(name="izmir kisla").match == "none"  # ş is not s
    assert entity_lookup(name="IZMIR KIŞLA").entity.pk == first.pk


def test_extraction_finds_a_turkish_name_in_any_case_with_offsets():
    from entities.extraction import extract_entities

    entity_store(name="Diyarbakır", type="place")
    text = "Trenle DİYARBAKIR'a gittik."
    found = extract_entities(text)
    assert [(d.canonical_name, text[d.start : d.end]) for d in found] == [
        ("Diyarbakır", "DİYARBAKIR")
    ]


def test_the_migration_refolds_stored_turkish_names():
    import importlib

    from django.apps import apps

    from entities.models import Alias, Entity

    migration = importlib.import_module("entities.migrations.0004_fold_turkish_i")
    city, _ = entity_store(name="Kırşehir", type="place")
    alias_add(entity=city, alias="KIRŞEHİR İLİ")
    other, _ = entity_store(name="Kirsehir", type="place")
    # As stored before the fold: casefold kept ı and turned İ into i + a combining dot.
    Entity.objects.filter(pk=city.pk).update(name_norm="Kırşehir".casefold())
    Alias.objects.filter(entity=city).update(alias_norm="KIRŞEHİR İLİ".casefold())
    migration.forwards(apps, None)
    assert Entity.objects.get(pk=city.pk).name_norm == "kirşehir"
    assert Alias.objects.get(entity=city).alias_norm == "kirşehir ili"
    assert Entity.objects.get(pk=other.pk).name_norm == "kirsehir"
