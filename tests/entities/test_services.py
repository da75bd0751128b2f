from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from entities.models import Alias, Entity, EntityFact, Fact
from entities.selectors import entity_lookup
from entities.services import (
    alias_add,
    alias_remove,
    entity_store,
    entity_update,
    fact_link,
    fact_store,
    fact_update,
)
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


# --- Edits: type changes, renames, Unicode limits ----------------------------------------


def test_retyping_an_entity_whose_alias_is_taken_in_the_new_type_is_a_conflict(curator):
    language, _ = entity_store(name="Python", type="language")
    alias_add(entity=language, alias="Py")
    snake, _ = entity_store(name="Python regius", type="animal")
    alias_add(entity=snake, alias="py")
    with pytest.raises(Conflict) as info:
        entity_update(entity=snake, actor=curator, type="language")
    assert info.value.field == "type" and "Py" in info.value.message
    assert Entity.objects.get(pk=snake.pk).type == "animal"
    assert Alias.objects.get(alias_norm="py", entity=snake).type == "animal"


def test_retyping_carries_the_aliases_along(curator):
    snake, _ = entity_store(name="Python regius", type="animal")
    alias_add(entity=snake, alias="Ball python")
    entity_update(entity=snake, actor=curator, type="reptile")
    assert list(Alias.objects.values_list("type", flat=True)) == ["reptile"]
    assert entity_lookup(name="ball python", type="reptile").entity.id == snake.id


def test_retyping_onto_an_alias_equal_to_another_canonical_name_is_a_conflict(curator):
    entity_store(name="Boa", type="animal")
    snake, _ = entity_store(name="Boa constrictor", type="reptile")
    alias_add(entity=snake, alias="Boa")
    with pytest.raises(Conflict) as info:
        entity_update(entity=snake, actor=curator, type="animal")
    assert info.value.field == "type"


def test_renaming_to_an_own_alias_drops_the_now_redundant_alias(curator):
    pg, _ = entity_store(name="Postgres", type="database")
    alias_add(entity=pg, alias="PostgreSQL")
    alias_add(entity=pg, alias="pg")
    entity_update(entity=pg, actor=curator, canonical_name="POSTGRESQL")
    assert sorted(pg.aliases.values_list("alias", flat=True)) == ["pg"]
    entry = AuditEntry.objects.get(action="entity.update")
    assert entry.payload["removed_aliases"] == ["PostgreSQL"]
    assert entry.payload["before"]["canonical_name"] == "Postgres"
    assert entry.payload["after"]["canonical_name"] == "POSTGRESQL"


def test_store_with_empty_type_reuses_the_one_typed_entity():
    typed, _ = entity_store(name="Tonegawa", type="person")
    for empty in ("", "  "):
        again, created = entity_store(name="TONEGAWA", type=empty)
        assert not created and again.id == typed.id
    assert Entity.objects.filter(name_norm="tonegawa").count() == 1


def test_store_with_empty_type_creates_an_untyped_entity_when_the_name_is_new():
    entity, created = entity_store(name="Tonegawa", type="")
    assert created and entity.type == ""


@pytest.mark.parametrize(
    "char", ["\u200b", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\ufeff"]
)
def test_invisible_formatting_characters_are_rejected_in_names(char):
    with pytest.raises(InvalidInput) as info:
        entity_store(name=f"Zero{char}Width", type="thing")
    assert info.value.field == "name"
    assert f"U+{ord(char):04X}" in info.value.message
    pg, _ = entity_store(name="PostgreSQL", type="database")
    with pytest.raises(InvalidInput) as info:
        alias_add(entity=pg, alias=f"Post{char}gres")
    assert info.value.field == "alias"
    with pytest.raises(InvalidInput) as info:
        entity_store(name="Thing", type=f"da{char}ta")
    assert info.value.field == "type"
    assert Entity.objects.count() == 1 and Alias.objects.count() == 0


def test_joiners_stay_allowed_for_scripts_and_emoji():
    persian, _ = entity_store(name="می\u200cخواهم", type="word")  # ZWNJ
    family, _ = entity_store(name="\U0001f468\u200d\U0001f469\u200d\U0001f467", type="emoji")
    assert entity_lookup(name="می\u200cخواهم").entity.id == persian.id
    assert entity_lookup(name=family.canonical_name).entity.id == family.id


def test_tabs_and_newlines_in_a_name_collapse_to_spaces():
    entity, _ = entity_store(name="New\tYork\nCity", type="place")
    assert entity.canonical_name == "New York City"


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("ß" * 300, "ẞ" * 300),
        ("ﬃ" * 512, "ﬃ" * 512),
        ("ŉ" * 512, "ŉ" * 512),
        # The most UTF-8 bytes a character folds to (5): the index entry still fits.
        ("\u1ff7" * 512, "\u1ff7" * 512),
    ],
)
def test_names_that_lengthen_when_case_folded_are_stored_and_found(name, variant):
    # Each character folds to two or three ("ß" -> "ss", "ﬃ" -> "ffi"): the 512-character
    # display limit holds, the normalised column must hold the longer folded form.
    entity, created = entity_store(name=name, type="thing")
    assert created and len(entity.name_norm) > 512
    alias_add(entity=entity, alias=name[:-1])
    assert entity_lookup(name=variant).entity.id == entity.id
    assert entity_lookup(name=name[:-1]).match == "alias"
    assert entity_store(name=variant, type="thing") == (entity, False)


def test_a_long_fact_text_is_stored_and_confirmed():
    words = [f"w{i}x{i * 7919 % 10007}" for i in range(1500)]
    text = " ".join(words)[:9990]
    assert fact_store(text=text).action == "created"
    assert fact_store(text=text.upper()).action == "confirmed"
    assert Fact.objects.get().confirmations == 2


@pytest.mark.parametrize(
    ("field", "limit"),
    [("predicate", 128), ("object_value", 1024), ("source", 255), ("client", 128)],
)
def test_fact_store_rejects_a_value_too_long_for_its_column(field, limit):
    subject, _ = entity_store(name="Ada Lovelace", type="person")
    with pytest.raises(InvalidInput, match=f"longer than {limit}") as caught:
        fact_store(
            text="Ada wrote the first program", subject=subject, **{field: "x" * (limit + 1)}
        )
    assert caught.value.field == field
    assert Fact.objects.count() == 0
    # Nor does a repeat of a stored fact confirm it with a value that would be cut.
    fact_store(text="Ada wrote the first program", subject=subject)
    with pytest.raises(InvalidInput):
        fact_store(
            text="Ada wrote the first program", subject=subject, **{field: "x" * (limit + 1)}
        )
    assert Fact.objects.get().confirmations == 1
    # Up to the limit the value is kept whole.
    stored = fact_store(text="Ada met Babbage", subject=subject, **{field: " " + "y" * limit}).fact
    assert getattr(Fact.objects.get(pk=stored.pk), field) == "y" * limit


def test_fact_store_rejects_a_300_character_predicate():
    with pytest.raises(InvalidInput, match="predicate is longer than 128") as caught:
        fact_store(text="Deploys happen on Tuesdays", predicate="p" * 300)
    assert caught.value.field == "predicate"
    assert Fact.objects.count() == 0


# --- Confirming a fact with new links ----------------------------------------------------


def test_confirming_a_fact_links_the_entities_the_new_call_names():
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    babbage, _ = entity_store(name="Charles Babbage", type="person")
    engine, _ = entity_store(name="Analytical Engine", type="machine")
    first = fact_store(text="Ada Lovelace worked with Charles Babbage.").fact
    second = fact_store(
        text="Ada Lovelace worked with Charles Babbage.",
        subject=ada,
        object_entity=babbage,
        entities=[engine],
    )
    assert second.action == "confirmed" and second.fact.id == first.id
    roles = dict(EntityFact.objects.filter(fact=first).values_list("entity_id", "role"))
    assert roles == {ada.id: "subject", babbage.id: "object", engine.id: "mention"}
    assert entity_lookup(name="Analytical Engine").facts == [first.id]


# --- fact_update -------------------------------------------------------------------------


def test_fact_update_edits_and_audits(curator):
    fact = fact_store(text="Redis is single threaded.", source="blog", confidence=0.5).fact
    updated = fact_update(
        fact=fact,
        actor=curator,
        text="Redis runs commands on one thread.",
        confidence=0.9,
        status="superseded",
        source="docs",
    )
    assert (updated.text, updated.confidence, updated.status, updated.source) == (
        "Redis runs commands on one thread.",
        0.9,
        "superseded",
        "docs",
    )
    assert updated.text_norm == "redis runs commands on one thread."
    entry = AuditEntry.objects.get(action="fact.update")
    assert entry.actor == curator
    assert entry.payload["before"] == {
        "text": "Redis is single threaded.",
        "confidence": 0.5,
        "status": "active",
        "source": "blog",
    }
    assert entry.payload["after"]["text"] == "Redis runs commands on one thread."


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"text": "   "}, "text"),
        ({"text": "bad\x00text"}, "text"),
        ({"text": "x" * 10_001}, "text"),
        ({"confidence": 1.2}, "confidence"),
        ({"confidence": -0.1}, "confidence"),
        ({"status": "deleted"}, "status"),
        ({"valid_to": datetime(2019, 1, 1, tzinfo=UTC)}, "valid_to"),
        ({"object_value": "Paris"}, "object_value"),
        ({"subject": None}, "subject"),
    ],
)
def test_fact_update_rejects_bad_edits_and_writes_nothing(curator, changes, field):
    fact = fact_store(text="Alice lives in Lyon.", valid_from=datetime(2020, 1, 1, tzinfo=UTC)).fact
    with pytest.raises(InvalidInput) as info:
        fact_update(fact=fact, actor=curator, **changes)
    assert info.value.field == field
    fact.refresh_from_db()
    assert (fact.text, fact.confidence, fact.status) == ("Alice lives in Lyon.", 1.0, "active")
    assert not AuditEntry.objects.filter(action="fact.update").exists()


def test_fact_update_may_not_repeat_another_active_fact(curator):
    fact_store(text="Alice lives in Paris.")
    other = fact_store(text="Alice lives in Lyon.").fact
    with pytest.raises(Conflict) as info:
        fact_update(fact=other, actor=curator, text="ALICE lives in Paris.")
    assert info.value.field == "text"
    # Once the first is retracted, the edit is fine.
    first = Fact.objects.get(text="Alice lives in Paris.")
    fact_update(fact=first, actor=curator, status="retracted")
    assert fact_update(fact=other, actor=curator, text="Alice lives in Paris.").status == "active"


def test_the_duplicate_check_uses_the_text_head_index():
    for i in range(50):
        fact_store(text=f"Fact number {i} about things.")
    with CaptureQueriesContext(connection) as ctx:
        assert fact_store(text="FACT number 7 about things.").action == "confirmed"
    check = next(
        q["sql"]
        for q in ctx.captured_queries
        if "text_norm, 1" in q["sql"] or "LEFT(text_norm" in q["sql"]
    )
    explain = "EXPLAIN QUERY PLAN " if connection.vendor == "sqlite" else "EXPLAIN "
    with connection.cursor() as cursor:
        # With fresh statistics the planner sees every row share one status and each
        # text head be rare; without them its guess may pick the status index. Fifty
        # rows fit one page, where PostgreSQL rightly prefers reading the table: the
        # question is which index it takes when it takes one.
        cursor.execute("ANALYZE " + connection.ops.quote_name(Fact._meta.db_table))
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(explain + check)
        plan = " ".join(str(row) for row in cursor.fetchall())
    assert "fact_text_head_status_idx" in plan, plan


def test_a_confirmation_reads_the_fact_links_once_and_adds_only_the_missing():
    """Restating a fact about entities it already names costs one read of its links;
    an entity it did not name yet is linked, the others keep their roles."""
    kim = entity_store(name="Kim Abara", type="person")[0]
    lab = entity_store(name="North Lab", type="place")[0]
    port = entity_store(name="Harbour Road", type="place")[0]
    first = fact_store(text="Kim Abara works at the North Lab.", subject=kim, entities=[lab]).fact
    with CaptureQueriesContext(connection) as queries:
        again = fact_store(text="Kim Abara works at the North Lab.", subject=kim, entities=[lab])
    assert again.action == "confirmed"
    links = [q["sql"] for q in queries if "entities_entityfact" in q["sql"]]
    assert len(links) == 2  # does it name the same entities; which are linked
    again = fact_store(text="Kim Abara works at the North Lab.", subject=kim, entities=[port, lab])
    assert (again.action, again.fact.pk) == ("confirmed", first.pk)
    assert dict(EntityFact.objects.filter(fact=first).values_list("entity_id", "role")) == {
        kim.pk: "subject",
        lab.pk: "mention",
        port.pk: "mention",
    }


def test_a_link_another_writer_made_meanwhile_is_not_counted_as_this_confirmations(monkeypatch):
    """Between the read of a fact's links and the insert, another writer links one of
    the entities: nothing fails, and the confirmation does not claim that link (its undo
    would remove the other writer's)."""
    from entities.services import facts as facts_module

    kim = entity_store(name="Kim Abara", type="person")[0]
    lab = entity_store(name="North Lab", type="place")[0]
    fact = fact_store(text="Kim Abara works at the North Lab.", subject=kim).fact
    real_filter = EntityFact.objects.filter

    def read_before_the_other_writer(*args, **kwargs):
        monkeypatch.setattr(EntityFact.objects, "filter", real_filter)
        EntityFact.objects.create(fact=fact, entity=lab, role="mention")
        return real_filter(pk__in=[])  # what was read before that link existed

    monkeypatch.setattr(EntityFact.objects, "filter", read_before_the_other_writer)
    added = facts_module._link_all(fact, kim, None, [lab])
    assert added == []
    assert EntityFact.objects.filter(fact=fact).count() == 2
