"""The lookup's plain-SQL path answers what the ORM answers, and shows in the query log."""

from __future__ import annotations

import contextlib
import random

import pytest

from entities import lookup_sql
from entities.models import (
    Entity,
    EntityFact,
    ExternalEntityId,
    ExternalFactLink,
    Fact,
    NameToken,
)
from entities.name_index import PREFIX_CHARS
from entities.scopes import ScopeFilter
from entities.selectors import entity_lookup
from entities.services import alias_add, entity_store, fact_link, fact_store, fact_update
from kgsite.errors import Conflict
from kgsite.text import normalize

pytestmark = pytest.mark.django_db

NAMES = ["Ada Lovelace", "Ada", "Analytical Engine", "Babbage", "Ångström", "İstanbul", "Straße"]
TYPES = ["person", "machine", "place"]


@pytest.fixture
def graph():
    """Names shared across types, aliases that are other entities' names, facts in two
    projects, one retracted."""
    rng = random.Random(7)
    entities = []
    for name in NAMES:
        for entity_type in rng.sample(TYPES, rng.randint(1, 3)):
            entities.append(entity_store(name=name, type=entity_type)[0])
    for entity in entities:
        for alias in rng.sample(NAMES, 2):
            if normalize(alias) != entity.name_norm:
                # A name taken in that type: the service refuses it.
                with contextlib.suppress(Conflict):
                    alias_add(entity=entity, alias=alias)
        for scope in ("", "alpha", "beta"):
            fact = fact_store(text=f"{entity.canonical_name} ({entity.type}) note {scope}",
                              scope=scope).fact  # fmt: skip
            fact_link(fact=fact, entity=entity)
    retracted = Fact.objects.order_by("id").first()
    fact_update(fact=retracted, actor=None, status=Fact.Status.RETRACTED)
    return entities


def _orm_found(norm: str, entity_type: str | None) -> list[Entity]:
    by_name = Entity.objects.filter(name_norm=norm)
    by_alias = Entity.objects.filter(aliases__alias_norm=norm).exclude(name_norm=norm)
    if entity_type:
        by_name, by_alias = by_name.filter(type=entity_type), by_alias.filter(type=entity_type)
    return list(by_name.order_by().union(by_alias.order_by(), all=True))


def test_found_entities_are_the_orms(graph):
    for name in NAMES + ["nobody"]:
        for entity_type in [None, *TYPES]:
            norm = normalize(name)
            raw = lookup_sql.entities_named(norm, entity_type)
            assert sorted(e.id for e in raw) == sorted(e.id for e in _orm_found(norm, entity_type))
            assert [e.type for e in raw] == sorted(e.type for e in raw)
            for entity in raw:
                stored = Entity.objects.get(pk=entity.id)
                assert (entity.canonical_name, entity.name_norm, entity.curated) == (
                    stored.canonical_name, stored.name_norm, stored.curated)  # fmt: skip
                assert entity.created_at == stored.created_at  # deferred, loaded on access


def test_aliases_facts_and_imported_ids_are_the_orms(graph):
    readers = [ScopeFilter(), ScopeFilter(scope="alpha"), ScopeFilter(all_scopes=True)]
    entity = graph[0]
    ExternalEntityId.objects.create(store="old.db", external_id="e_000000001", entity=entity)
    for scope in ("", "alpha", "beta"):
        ExternalFactLink.objects.create(store="old.db", external_id=f"f_{scope}",
                                        entity=entity, scope=scope)  # fmt: skip
    for entity in graph:
        expected = [a for _n, a in sorted(entity.aliases.values_list("alias_norm", "alias"))]
        for reader in readers:
            found = lookup_sql.details(entity.id, status=Fact.Status.ACTIVE, scopes=reader)
            assert found.aliases == expected
            orm = EntityFact.objects.filter(entity=entity, fact__status=Fact.Status.ACTIVE)
            orm = orm.filter(reader.q("fact__")).order_by("fact_id")
            assert found.facts == list(orm.values_list("fact_id", flat=True))
            links = ExternalFactLink.objects.filter(entity=entity).filter(reader.q())
            assert found.external == {
                "external_ids": [
                    {"store": x.store, "id": x.external_id}
                    for x in ExternalEntityId.objects.filter(entity=entity)
                ],
                "external_facts": [
                    {"store": x.store, "id": x.external_id, "fact": None}
                    for x in links.order_by("external_id")
                ],
            }
    # The project's facts and imported links reach a reader of that project only.
    entity = graph[0]
    global_only = lookup_sql.details(entity.id, status=None, scopes=None)
    everything = lookup_sql.details(entity.id, status=None, scopes=ScopeFilter(all_scopes=True))
    assert len(everything.facts) == 3 and len(global_only.facts) == 1
    assert len(everything.external["external_facts"]) == 3
    assert [x["id"] for x in global_only.external["external_facts"]] == ["f_"]


def test_word_start_rows_are_the_orms(graph):
    for stem in ("ada", "ana", "bab", "ång", "zzz"):
        for entity_type in (None, "person"):
            orm = NameToken.objects.filter(prefix=stem[:PREFIX_CHARS])
            if entity_type:
                orm = orm.filter(entity__type=entity_type)
            raw = lookup_sql.tokens_rows([stem], entity_type, 1000)
            assert sorted(raw) == sorted(orm.values_list("entity_id", "text"))


def test_a_quote_in_a_name_is_data_not_sql():
    entity, _ = entity_store(name="O'Brien'); DROP TABLE x; --", type="person")
    assert entity_lookup(name="o'brien'); drop table x; --").entity.id == entity.id
    assert Entity.objects.filter(pk=entity.id).exists()  # the statement ran as written


def test_a_hit_runs_two_statements_and_shows_them(graph, django_assert_num_queries):
    entity = graph[0]
    with django_assert_num_queries(2) as captured:
        result = entity_lookup(name=entity.canonical_name, type=entity.type)
        result.as_dict()  # the imported ids were read with the aliases and facts
    assert result.entity.id == entity.id
    assert entity.name_norm in captured.captured_queries[0]["sql"]
