"""The full-text path as a user types: query syntax of the index is only words, a
query in another Unicode form or in capitals finds the fact as written, on SQLite and
PostgreSQL alike."""

from __future__ import annotations

import unicodedata

import pytest

from entities import services
from entities.models import Fact
from entities.search.fulltext import fulltext_search, query_terms, words

pytestmark = pytest.mark.django_db

TEXTS = {
    "token": "Tokens are signed with RS256",
    "depot": "The Straße Süd depot uses ZX81 runners",
    "office": "İzmir office uses Kafka",
    "cafe": "Café Lumière serves QV77 coffee",
    "gate": "Error E11000 AND timeout NEAR the NOT gate",
}


@pytest.fixture
def facts(vector_dir):
    return {key: services.fact_store(text=text).fact.pk for key, text in TEXTS.items()}


def found(facts, query: str, qs=None) -> set[str]:
    by_id = {pk: key for key, pk in facts.items()}
    hits = fulltext_search(query, qs if qs is not None else Fact.objects.all(), limit=10)
    return {by_id[pk] for pk, _score in hits}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"RS256', {"token"}),
        ("RS256*", {"token"}),
        ("NOT RS256", {"token"}),
        ("rs256 OR", {"token"}),
        ("(ZX81)", {"depot"}),
        ("col:zx81", {"depot"}),
        ("^zx81", {"depot"}),
        ("zx81 -rs256", {"depot", "token"}),
        ("NEAR(RS256 ZX81)", {"depot", "token", "gate"}),
        ("'; DROP TABLE entities_fact; --", set()),
        ("AND", set()),
    ],
)
def test_the_index_query_syntax_is_read_as_plain_words(facts, query, expected):
    assert found(facts, query) == expected
    assert Fact.objects.count() == len(TEXTS)


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("café lumière", "cafe"),
        (unicodedata.normalize("NFD", "café lumière"), "cafe"),
        (unicodedata.normalize("NFD", "CAFÉ"), "cafe"),
        ("straße", "depot"),
        (unicodedata.normalize("NFD", "STRAẞE SÜD"), "depot"),
        ("İZMIR", "office"),
        ("İzmir", "office"),
        ("izmir", "office"),
        ("IZMIR", "office"),
        ("e11000", "gate"),
    ],
)
def test_a_query_in_any_unicode_form_or_case_finds_the_fact_as_written(facts, query, key):
    assert found(facts, query) == {key}


def test_query_words_are_composed_and_plain_lower_case():
    assert words(unicodedata.normalize("NFD", "Café")) == ["café"]
    assert words("İZMIR KIŞLA") == ["izmir", "kişla"]
    assert words("kv/orchard_v2") == ["kv", "orchard", "v2"]
    assert query_terms("") == [] and query_terms("the of and") == []


def test_a_deleted_or_edited_fact_leaves_the_index_in_every_form(facts, curator):
    cafe = Fact.objects.get(pk=facts["cafe"])
    services.fact_update(fact=cafe, actor=curator, text="Bistro Lumière serves QV88 tea")
    assert found(facts, unicodedata.normalize("NFD", "café")) == set()
    assert found(facts, "QV88") == {"cafe"}
    services.fact_delete(fact=Fact.objects.get(pk=facts["cafe"]), actor=curator)
    assert found(facts, "lumière") == set()


@pytest.mark.parametrize("limit", [0, -1])
def test_a_limit_of_nothing_finds_nothing(facts, limit):
    assert fulltext_search("RS256", Fact.objects.all(), limit=limit) == []


def test_a_huge_limit_finds_each_match_once(facts):
    hits = fulltext_search("uses serves RS256", Fact.objects.all(), limit=10**9)
    pks = [pk for pk, _score in hits]
    assert sorted(pks) == sorted(facts[k] for k in ("token", "depot", "office", "cafe"))
    assert [s for _pk, s in hits] == sorted((s for _pk, s in hits), reverse=True)


def test_another_projects_fact_never_matches(vector_dir):
    mine = services.fact_store(text="Runner QZ41 crashed", scope="alpha").fact
    services.fact_store(text="Runner QZ41 crashed twice", scope="beta")
    hits = fulltext_search("QZ41", Fact.objects.filter(scope__in=["", "alpha"]), limit=10)
    assert [pk for pk, _score in hits] == [mine.pk]


def test_a_filter_that_can_match_nothing_finds_nothing_instead_of_failing(facts):
    # Django refuses to write SQL for "in an empty list": the search must not crash on it.
    assert found(facts, "RS256", Fact.objects.filter(session_id__in=[])) == set()
    assert found(facts, "RS256", Fact.objects.filter(pk__in=facts.values())) == {"token"}
