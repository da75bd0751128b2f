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
    # In words, with the entity's name and a link to its page (not a model label and id).
    assert "added an alias to" in html and "curator" in html
    assert f'<a href="/entities/{holmes.pk}/">Sherlock Holmes</a>' in html
    assert "entities.entity" not in html


def test_the_audit_log_filters_by_action(curator_client, curator):
    entity, _ = entity_store(name="Ada Lovelace", type="person", actor=curator)
    alias_add(entity=entity, alias="Countess", actor=curator)
    html = curator_client.get("/audit/", {"action": "alias.add"}, **HTMX).content.decode()
    assert "<html" not in html and "added an alias to" in html and "Ada Lovelace" in html
    assert "created" not in html
    full = curator_client.get("/audit/").content.decode()
    assert '<option value="alias.add"' in full
