"""Fixtures shared by the integrity tests."""

from __future__ import annotations

import pytest

from entities.services import entity_store, fact_store
from integrity import services
from integrity.models import Contradiction


@pytest.fixture
def contradiction(db, monkeypatch, django_capture_on_commit_callbacks) -> Contradiction:
    """Two birth years of one person: one open contradiction, found by the background
    check (no vector search: the pair is compared directly)."""
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [])
    alice = entity_store(name="Alice", type="person")[0]
    with django_capture_on_commit_callbacks(execute=True):
        fact_store(text="Alice was born in 1990.", subject=alice)
        fact_store(text="Alice was born in 1985.", subject=alice)
    return Contradiction.objects.get()


@pytest.fixture
def no_index(monkeypatch):
    """The vector index is empty: candidates come from entity links only."""
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [])


@pytest.fixture
def alice(db):
    return entity_store(name="Alice", type="person")[0]
