"""The full-text index of facts: identifiers are found as written, and the index follows
every write and delete of a fact."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from entities import services
from entities.models import Fact
from entities.search.fulltext import fulltext_search, query_terms

pytestmark = pytest.mark.django_db


def store(text: str, **fields) -> Fact:
    return services.fact_store(text=text, **fields).fact


def found(text: str, qs=None) -> list[str]:
    qs = qs if qs is not None else Fact.objects.all()
    by_id = {f.pk: f.text for f in Fact.objects.all()}
    return [by_id[pk] for pk, _score in fulltext_search(text, qs, limit=10)]


def test_an_identifier_finds_the_fact_that_names_it(vector_dir):
    store("Tokens are signed with RS256 and rotated monthly")
    store("Tokens are signed and rotated by the platform team")
    store("The cache lives under kv/orchard in the secret store")
    assert found("which algorithm, RS256?") == ["Tokens are signed with RS256 and rotated monthly"]
    assert found("what is kept at kv/orchard") == [
        "The cache lives under kv/orchard in the secret store"
    ]
    assert found("nothing like this at all") == []


def test_common_words_do_not_match_and_prefixes_do():
    assert "the" not in query_terms("the RS256 of the key")
    assert "rs256" in query_terms("the RS256 of the key")


def test_the_index_follows_edits_and_deletes(vector_dir, curator):
    fact = store("Error E11000 means a duplicate key in the orders collection")
    assert found("E11000") == [fact.text]
    services.fact_update(fact=fact, actor=curator, text="Error E4410 means a lock timeout")
    assert found("E11000") == []
    assert found("E4410") == ["Error E4410 means a lock timeout"]
    services.fact_delete(fact=Fact.objects.get(pk=fact.pk), actor=curator)
    assert found("E4410") == []


def test_search_keeps_to_the_given_facts(vector_dir):
    store("Deploys use the ZX81 runner", scope="alpha")
    store("Deploys use the ZX81 runner too", scope="beta")
    assert found("ZX81", Fact.objects.filter(scope="alpha")) == ["Deploys use the ZX81 runner"]


def test_rebuild_command_restores_a_wiped_index(vector_dir):
    from django.db import connection

    store("Port 8443 serves the admin console")
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("INSERT INTO entities_fact_fts(entities_fact_fts) VALUES ('delete-all')")
            assert found("8443") == []
    call_command("rebuild_fulltext")
    assert found("8443") == ["Port 8443 serves the admin console"]


def test_scoped_search_widens_past_other_scopes_best_matches(vector_dir, monkeypatch):
    from entities.search import fulltext

    monkeypatch.setattr(fulltext, "SCOPED_MAX", 0)  # the path of a broad scope
    monkeypatch.setattr(fulltext, "FETCH", 3)
    monkeypatch.setattr(fulltext, "CHECK", 1)
    for n in range(6):
        store(f"Runner QV77 crashed on build {n} with QV77 again, QV77", scope="beta")
    mine = store("Runner QV77 crashed once", scope="alpha")
    # The other scope's facts rank first (the word three times): the search goes on.
    assert fulltext_search("QV77", Fact.objects.filter(scope="alpha"), limit=1)[0][0] == mine.pk


def test_a_word_in_most_facts_is_left_out_of_the_query(vector_dir, monkeypatch):
    from entities.search import fulltext

    monkeypatch.setattr(fulltext, "FREQUENT_MIN", 3)
    monkeypatch.setattr(fulltext, "FREQUENT_SHARE", 0.5)
    fulltext._STATS.clear()
    for n in range(8):
        store(f"Worker pool number {n} restarts nightly")
    rare = store("Worker pool for the Z80 emulator restarts weekly")
    call_command("rebuild_fulltext")  # PostgreSQL counts lexemes at ANALYZE
    # "restarts" is in every fact: only the rare word decides.
    assert found("restarts Z80") == [rare.text]
    assert found("restarts") == []


def test_a_word_is_counted_once_a_minute_not_on_every_query(vector_dir, monkeypatch):
    """Counting a word reads every fact holding it: a frequent word is the one each
    query repeats, so its count is remembered as the table's size is."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from entities.search import fulltext

    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL reads the counts from its statistics")
    monkeypatch.setattr(fulltext, "FREQUENT_MIN", 3)
    monkeypatch.setattr(fulltext, "FREQUENT_SHARE", 0.5)
    for n in range(8):
        store(f"Worker pool number {n} restarts nightly")
    call_command("rebuild_fulltext")
    assert found("restarts") == []
    with CaptureQueriesContext(connection) as queries:
        assert found("restarts") == []
    assert not [q for q in queries if "_vocab" in q["sql"]]
    # A rebuild forgets the counts: a word no longer frequent is searched again.
    Fact.objects.filter(text__contains="number 1").update(text="Worker pool restarts weekly")
    Fact.objects.exclude(text__contains="weekly").delete()
    call_command("rebuild_fulltext")
    assert found("restarts") == ["Worker pool restarts weekly"]


def test_a_scope_is_counted_no_further_than_asked(vector_dir):
    from entities.search import fulltext

    fulltext._SIZES.clear()
    for n in range(4):
        store(f"Queue QX{n} drains at night", scope="alpha")
    alpha = Fact.objects.filter(scope="alpha")
    assert fulltext.scope_size(alpha, 10, known_only=True) is None
    assert fulltext.scope_size(alpha, 2) == 3  # stops at the cap + 1
    assert fulltext.scope_size(alpha, 10) == 4
    assert fulltext.scope_size(alpha, 10, known_only=True) == 4
