"""Writes that wait, not fail (issue 27): the slow part of a write (embedding, the
near-duplicate search) runs before its transaction, the lock wait is bounded by
``KGSITE_DB_BUSY_TIMEOUT``, and a write that could not get the lock answers 503 with
Retry-After in the JSON error shape, writing nothing."""

from __future__ import annotations

import sqlite3

import pytest
from django.conf import settings
from django.db import OperationalError, connection

from entities import hooks
from entities.models import Fact
from entities.services import fact_store
from kgsite.middleware import is_lock_timeout


def _sqlite_only() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's write lock")


def _postgres_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's row locks")


def _other_writer() -> sqlite3.Connection:
    """A second connection to the test database, as another process would open it."""
    other = sqlite3.connect(connection.settings_dict["NAME"], timeout=0, isolation_level=None)
    return other


@pytest.mark.django_db(transaction=True)
def test_the_near_duplicate_search_runs_before_the_write_transaction(monkeypatch):
    seen = []

    def finder(text, text_norm, *, scope, kind, named):
        seen.append(connection.in_atomic_block)
        if connection.vendor == "sqlite":
            # Another writer can take the write lock meanwhile: this write holds none.
            other = _other_writer()
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            other.close()
        return None

    monkeypatch.setattr(hooks, "_duplicate_finders", [*hooks._duplicate_finders, finder])
    result = fact_store(text="The ferry to Vlieland leaves at seven.")
    assert result.action == "created"
    assert seen == [False]


@pytest.mark.django_db
def test_the_lock_wait_is_the_configured_busy_timeout():
    assert settings.DB_BUSY_TIMEOUT == 5.0  # KGSITE_DB_BUSY_TIMEOUT's default
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA busy_timeout")
            assert cursor.fetchone()[0] == 5000
        else:
            cursor.execute("SHOW lock_timeout")
            assert cursor.fetchone()[0] == "5s"


@pytest.mark.django_db(transaction=True)
def test_a_write_that_cannot_get_the_sqlite_lock_answers_503_and_writes_nothing(curator_api):
    _sqlite_only()
    connection.ensure_connection()
    connection.connection.execute("PRAGMA busy_timeout=200")
    other = _other_writer()
    other.execute("BEGIN IMMEDIATE")
    try:
        response = curator_api.post(
            "/api/v1/facts/", {"text": "The lighthouse keeper is Anneke."}, format="json"
        )
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert response.status_code == 503
    assert response["Retry-After"].isdigit()
    assert response.json()["error"]["code"] == "busy"
    assert set(response.json()["error"]) == {"code", "message", "field"}
    assert not Fact.objects.exists()
    # Once the lock is free, the same write goes through.
    again = curator_api.post(
        "/api/v1/facts/", {"text": "The lighthouse keeper is Anneke."}, format="json"
    )
    assert again.status_code == 201


@pytest.mark.django_db(transaction=True)
def test_a_confirmation_waiting_on_a_postgres_row_lock_answers_503(curator_api):
    _postgres_only()
    import psycopg

    fact = fact_store(text="The lighthouse keeper is Anneke.").fact
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    other = psycopg.connect(**params)
    try:
        other.execute("SELECT id FROM entities_fact WHERE id = %s FOR UPDATE", [fact.pk])
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '200ms'")
        response = curator_api.post(
            "/api/v1/facts/", {"text": "The lighthouse keeper is Anneke."}, format="json"
        )
    finally:
        other.rollback()
        other.close()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert response.status_code == 503
    assert response["Retry-After"].isdigit()
    assert response.json()["error"]["code"] == "busy"
    assert Fact.objects.get(pk=fact.pk).confirmations == fact.confirmations


def test_only_a_lock_wait_counts_as_busy():
    assert is_lock_timeout(OperationalError("database is locked"))
    assert not is_lock_timeout(OperationalError("no such table: entities_fact"))
    assert not is_lock_timeout(ValueError("database is locked"))


@pytest.mark.django_db(transaction=True)
def test_the_encoder_never_runs_inside_a_write_transaction(monkeypatch, curator):
    from entities.curation import fact_supersede
    from kgsite.vectors.embedder import HashingEmbedder

    inside = []
    original = HashingEmbedder.encode

    def encode(self, texts, *, batch_size=None):
        inside.append(connection.in_atomic_block)
        return original(self, texts, batch_size=batch_size)

    monkeypatch.setattr(HashingEmbedder, "encode", encode)
    fact = fact_store(text="The ferry to Vlieland leaves at seven.").fact
    fact_supersede(fact=fact, text="The ferry to Vlieland leaves at eight.", actor=curator)
    assert inside and not any(inside)
