"""The dashboard and the audit log."""

from __future__ import annotations

import pytest

from entities.services import alias_add, entity_store

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def test_the_dashboard_counts_and_shows_recent_curator_actions(curator_client, curator, holmes):
    alias_add(entity=holmes, alias="The Detective", actor=curator)
    html = curator_client.get("/").content.decode()
    for label in ["entities", "active facts", "books", "open contradictions"]:
        assert f"</span> {label}" in html, label
    assert "pending duplicate suggestions</a>" in html
    assert '<span class="n">1</span> entities' in html
    assert "alias.add" in html and "curator" in html


def test_the_audit_log_filters_by_action(curator_client, curator):
    entity, _ = entity_store(name="Ada Lovelace", type="person", actor=curator)
    alias_add(entity=entity, alias="Countess", actor=curator)
    html = curator_client.get("/audit/", {"action": "alias.add"}, **HTMX).content.decode()
    assert "<html" not in html and "alias.add" in html
    assert "entity.create" not in html and "entity.store" not in html
    full = curator_client.get("/audit/").content.decode()
    assert '<option value="alias.add"' in full
