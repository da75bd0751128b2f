from __future__ import annotations

import pytest

from entities.models import Alias, Entity, EntityFact, Fact
from entities.services import alias_add, alias_remove, entity_store, fact_link, fact_store
from kgsite.errors import Conflict, InvalidInput, NotFound
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db


def test_store_returns_existing_entity_for_case_and_unicode_variants():
    first, created = entity_store(name="Müller", type="person")
    again, created_again = entity_store(name="  MÜLLER ", type="Person")
    assert created and not created_again
    assert again.id == first.id
    assert Entity.objects.count() == 1
    assert first.canonical_name == "Müller"
    assert len(first.id) == 12


def test_same_name_under_two_types_is_two_entities():
    spell, _ = entity_store(name="Shield", type="spell")
    armour, _ = entity_store(name="Shield", type="equipment")
    assert spell.id != armour.id


def test_store_without_type_reuses_the_one_entity_of_that_name():
    typed, _ = entity_store(name="Tonegawa", type="person")
    reused, created = entity_store(name="tonegawa")
    assert not created and reused.id == typed.id


def test_store_without_type_is_ambiguous_when_several_exist():
    entity_store(name="Shield", type="spell")
    entity_store(name="Shield", type="equipment")
    with pytest.raises(Conflict) as info:
        entity_store(name="shield")
    assert info.value.code == "ambiguous"
    assert {c["type"] for c in info.value.extra["candidates"]} == {"spell", "equipment"}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "empty"),
        ("   \t ", "empty"),
        ("x" * 513, "longer than 512"),
        ("bad\x00name", "control"),
        ("bell\x07", "control"),
    ],
)
def test_bad_names_are_rejected_and_nothing_is_written(name, message):
    with pytest.raises(InvalidInput) as info:
        entity_store(name=name, type="person")
    assert message in info.value.message
    assert info.value.field == "name"
    assert Entity.objects.count() == 0


def test_a_512_character_name_is_accepted():
    entity, created = entity_store(name="y" * 512)
    assert created and len(entity.canonical_name) == 512


def test_type_tags_are_normalised():
    entity, _ = entity_store(name="Rust", type="ProgrammingLanguage")
    assert entity.type == "programming_language"


def test_alias_points_to_one_entity_per_type():
    pg, _ = entity_store(name="PostgreSQL", type="database")
    mysql, _ = entity_store(name="MySQL", type="database")
    alias_add(entity=pg, alias="postgres")
    with pytest.raises(Conflict):
        alias_add(entity=mysql, alias="POSTGRES")
    assert Alias.objects.get().entity_id == pg.id  # not silently moved


def test_alias_add_is_idempotent_and_remove_works():
    pg, _ = entity_store(name="PostgreSQL", type="database")
    _, created = alias_add(entity=pg, alias="pg")
    _, again = alias_add(entity=pg, alias=" PG ")
    assert created and not again
    assert Alias.objects.count() == 1
    alias_remove(entity=pg, alias="Pg")
    assert Alias.objects.count() == 0
    with pytest.raises(NotFound):
        alias_remove(entity=pg, alias="pg")


def test_alias_may_not_be_another_entitys_canonical_name():
    pg, _ = entity_store(name="PostgreSQL", type="database")
    entity_store(name="MySQL", type="database")
    with pytest.raises(Conflict):
        alias_add(entity=pg, alias="mysql")


def test_same_alias_may_name_entities_of_different_types():
    spell, _ = entity_store(name="Shield", type="spell")
    armour, _ = entity_store(name="Shield", type="equipment")
    alias_add(entity=spell, alias="Shield of Faith-ish")
    alias_add(entity=armour, alias="Shield of Faith-ish")
    assert Alias.objects.count() == 2


def test_fact_linking_twice_stores_one_row():
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    fact = fact_store(text="Ada Lovelace wrote the first program.").fact
    _, created = fact_link(fact=fact, entity=ada)
    _, again = fact_link(fact=fact, entity=ada)
    assert created and not again
    assert EntityFact.objects.filter(fact=fact, entity=ada).count() == 1


def test_fact_store_with_triple_links_subject_and_object():
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    babbage, _ = entity_store(name="Charles Babbage", type="person")
    result = fact_store(
        text="Ada Lovelace worked with Charles Babbage.",
        subject=ada,
        predicate="worked_with",
        object_entity=babbage,
        source="test",
        confidence=0.8,
    )
    assert result.action == "created"
    roles = dict(EntityFact.objects.filter(fact=result.fact).values_list("entity_id", "role"))
    assert roles == {ada.id: "subject", babbage.id: "object"}


def test_same_fact_twice_is_a_confirmation_not_a_copy():
    first = fact_store(text="Tonegawa won the Nobel Prize in 1987.", confidence=0.6)
    second = fact_store(text="  tonegawa won the nobel prize in 1987. ", confidence=0.6)
    assert first.action == "created" and second.action == "confirmed"
    assert Fact.objects.count() == 1
    fact = Fact.objects.get()
    assert fact.confirmations == 2
    assert fact.confidence > 0.6


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"text": ""}, "text"),
        ({"text": "ok", "confidence": 1.5}, "confidence"),
        ({"text": "ok", "object_value": "x"}, "subject"),
    ],
)
def test_bad_facts_are_rejected(kwargs, field):
    with pytest.raises(InvalidInput) as info:
        fact_store(**kwargs)
    assert info.value.field == field
    assert Fact.objects.count() == 0


def test_curator_writes_leave_an_audit_row(curator):
    pg, _ = entity_store(name="PostgreSQL", type="database", actor=curator)
    alias_add(entity=pg, alias="pg", actor=curator)
    actions = list(AuditEntry.objects.order_by("id").values_list("action", "actor__username"))
    assert actions == [("entity.create", "curator"), ("alias.add", "curator")]
