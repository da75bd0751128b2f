"""Concurrent writers: real threads, real connections, on whichever database CI selects."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from entities.models import Alias, Entity, Fact
from entities.services import alias_add, entity_store, fact_store

THREADS = 8


def run_together(target) -> tuple[list, list]:
    barrier = threading.Barrier(THREADS)
    results, errors = [], []

    def worker():
        try:
            barrier.wait()
            results.append(target())
        except Exception as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results, errors


@pytest.mark.django_db(transaction=True)
def test_eight_threads_storing_the_same_name_make_one_row():
    results, errors = run_together(lambda: entity_store(name="Tonegawa", type="person"))
    assert errors == []
    assert len(results) == THREADS  # every thread came back (none hung past the join)
    assert len({entity.id for entity, _created in results}) == 1
    assert sum(created for _entity, created in results) == 1
    assert Entity.objects.filter(name_norm="tonegawa").count() == 1


@pytest.mark.django_db(transaction=True)
def test_eight_threads_adding_the_same_alias_make_one_row():
    entity, _ = entity_store(name="Tonegawa", type="person")
    results, errors = run_together(lambda: alias_add(entity=entity, alias="S. Tonegawa"))
    assert errors == []
    assert len(results) == THREADS
    assert len({alias.id for alias, _created in results}) == 1
    assert Alias.objects.count() == 1
    assert sum(created for _alias, created in results) == 1


@pytest.mark.django_db(transaction=True)
def test_eight_threads_storing_the_same_fact_make_one_fact(vector_dir):
    """Two agents logging the same finding at once: one fact, confirmed by the others.
    On PostgreSQL both writers read "no such text yet" and each stored a copy."""
    results, errors = run_together(
        lambda: fact_store(text="The nightly export writes CSV files", scope="shop")
    )
    assert errors == []
    assert len(results) == THREADS
    assert sorted(r.action for r in results) == ["confirmed"] * (THREADS - 1) + ["created"]
    fact = Fact.objects.get()
    assert fact.confirmations == THREADS


@pytest.mark.django_db
def test_sqlite_runs_in_wal_mode():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
