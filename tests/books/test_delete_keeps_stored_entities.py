"""Deleting a book collects the entities its text made up, never one somebody stored on
purpose (a gazetteer row, an agent's entity_store, an imported memory) that the book
happened to mention: ``entity_get`` must still find it afterwards."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from entities.mcp.tools import ToolContext, entity_store
from entities.models import Entity

pytestmark = pytest.mark.django_db

BOOK = "# Kestrel\n\nKestrel is the engine of the cluster. Kestrel schedules every job.\n"


def _ingest_then_delete(tmp_path) -> str:
    path = tmp_path / "kestrel-notes.md"
    path.write_text(BOOK, encoding="utf-8")
    call_command("ingest_book", str(path), "--sync", stdout=StringIO())
    out = StringIO()
    call_command("delete_book", "kestrel-notes", stdout=out)
    return out.getvalue()


def test_a_gazetteer_entity_outlives_the_book_that_mentioned_it(tmp_path):
    tsv = tmp_path / "kb.tsv"
    tsv.write_text("Kestrel\tk1\tsoftware\n", encoding="utf-8")
    call_command("load_gazetteer", str(tsv), stdout=StringIO())
    summary = _ingest_then_delete(tmp_path)
    assert "0 entities removed" in summary, summary
    assert Entity.objects.filter(name_norm="kestrel", type="software").exists()


def test_an_entity_an_agent_stored_outlives_the_book_that_mentioned_it(tmp_path, vector_dir):
    entity_store(ToolContext(), name="Kestrel", type="software")
    _ingest_then_delete(tmp_path)
    assert Entity.objects.filter(name_norm="kestrel", type="software").exists()
