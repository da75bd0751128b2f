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


def test_the_dashboard_counts_the_duplicate_pairs_the_queue_shows(curator_client, curator):
    """A merge deletes the duplicate; its other pending pairs lose that side and leave the
    queue, but the dashboard still counted them: "2 pending" over a queue of none."""
    from entities.models import DuplicateSuggestion
    from entities.services import entity_merge

    keep, _ = entity_store(name="Quill Harbour", type="place")
    twin, _ = entity_store(name="Quill Harbor", type="place")
    third, _ = entity_store(name="Quil Harbour", type="place")
    for a, b in [(keep, twin), (twin, third)]:
        DuplicateSuggestion.objects.create(
            pair_key="|".join(sorted([a.pk, b.pk])), entity_a=a, entity_b=b, score=0.9
        )
    entity_merge(survivor=keep, duplicates=[twin], actor=curator)
    queue = curator_client.get("/entities/duplicates/").content.decode()
    assert "No pending suggestions" in queue
    html = curator_client.get("/").content.decode()
    assert '<span class="n">0</span> <a href="/entities/duplicates/">' in html
