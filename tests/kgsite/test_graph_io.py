"""export_graph / import_graph: a lossless round trip, and no half-written import."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.forms.models import model_to_dict

from books.services import book_ingest
from entities.models import Entity, Fact, NameToken
from entities.selectors import entity_lookup
from entities.services import alias_add, entity_store, fact_store
from integrity.models import Contradiction
from integrity.resolution import contradiction_resolve
from kgsite.graph_io import graph_models
from notifications.services import notification_create, notification_mark_read

pytestmark = pytest.mark.django_db(transaction=True)
BOOKS = Path(__file__).resolve().parent.parent / "data" / "books"


@pytest.fixture
def graph(curator, settings, tmp_path):
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    # A book with chunks, mentions and its job.
    book_ingest(path=BOOKS / "15-appendix-ph-a-conditions.md", extractor="offline")
    city, _ = entity_store(name="İzmir", type="place", description="Ege kıyısında bir şehir")
    alias_add(entity=city, alias="Smyrna", actor=curator)
    old = fact_store(text="İzmir has 3 million people.", entities=[city], actor=curator).fact
    new = fact_store(text="İzmir has 4 million people.", entities=[city], actor=curator).fact
    pair, _ = Contradiction.objects.get_or_create(  # the background check finds it too
        fact_a=old, fact_b=new, defaults={"kind": "number", "confidence": 0.9}
    )
    contradiction_resolve(contradiction=pair, resolution="keep_second", actor=curator)
    fact_store(text="Smyrna was a Greek city.", entities=[city], actor=curator, client="notes")
    read = notification_create(type="system", urgency="high", title="seen", recipient=curator)
    notification_mark_read(user=curator, ids=[read.pk])
    notification_create(type="contradiction", urgency="medium", title="unseen")
    return city


def snapshot() -> dict[str, list[dict]]:
    """Every row of every table, every field (users by name: ids may differ)."""
    tables = {}
    for model in graph_models():
        rows = []
        for obj in model.objects.order_by("pk"):
            row = model_to_dict(obj, fields=[f.name for f in model._meta.concrete_fields])
            for field in model._meta.concrete_fields:
                if field.is_relation and field.related_model is User and row[field.name]:
                    row[field.name] = User.objects.get(pk=row[field.name]).username
            row["pk"] = obj.pk
            rows.append(row)
        tables[model._meta.label] = rows
    return tables


def differences(before: dict, after: dict) -> list[tuple]:
    """(table, pk, field, before, after) for every value that changed; rows gone or new."""
    found = []
    for label, rows in before.items():
        theirs = {row["pk"]: row for row in after.get(label, [])}
        for row in rows:
            other = theirs.pop(row["pk"], None)
            if other is None:
                found.append((label, row["pk"], "<row>", "present", "missing"))
                continue
            found += [(label, row["pk"], k, v, other[k]) for k, v in row.items() if other[k] != v]
        found += [(label, pk, "<row>", "missing", "present") for pk in theirs]
    return found


def empty_the_graph() -> None:
    for model in reversed(graph_models()):
        model.objects.all().delete()
    User.objects.all().delete()


def test_the_round_trip_is_lossless(graph, tmp_path):
    before = snapshot()
    assert all(before[label] for label in ("entities.Fact", "books.Mention", "kgsite.AuditEntry"))
    assert {f["status"] for f in before["entities.Fact"]} == {"active", "superseded"}
    path = tmp_path / "graph.jsonl"
    call_command("export_graph", str(path), verbosity=0, stdout=io.StringIO())
    assert "password" not in path.read_text()  # users travel by name only

    empty_the_graph()
    call_command("import_graph", str(path), verbosity=0, stdout=io.StringIO())
    assert differences(before, snapshot()) == []
    # Users come back inactive and without a password.
    assert not User.objects.get(username="curator").has_usable_password()
    # Derived indexes are rebuilt: a lookup miss still suggests, a new row gets a new id.
    assert NameToken.objects.exists()
    assert [e.canonical_name for e, _ in entity_lookup(name="Izmirr").suggestions] == ["İzmir"]
    newest = fact_store(text="İzmir hosts a fair.").fact
    assert newest.pk > max(f["pk"] for f in before["entities.Fact"])


def test_an_import_into_a_graph_that_has_rows_is_refused_and_writes_nothing(graph, tmp_path):
    path = tmp_path / "graph.jsonl"
    call_command("export_graph", str(path), verbosity=0, stdout=io.StringIO())
    before = snapshot()
    with pytest.raises(CommandError, match="not empty"):
        call_command("import_graph", str(path), verbosity=0, stdout=io.StringIO())
    assert snapshot() == before


def test_a_broken_export_half_way_rolls_everything_back(graph, tmp_path):
    path = tmp_path / "graph.jsonl"
    call_command("export_graph", str(path), verbosity=0, stdout=io.StringIO())
    lines = path.read_text().splitlines()
    facts = [i for i, line in enumerate(lines) if '"entities.fact"' in line]
    broken = json.loads(lines[facts[-1]])
    broken["fields"]["confidence"] = 7  # breaks the 0..1 check constraint
    lines[facts[-1]] = json.dumps(broken)
    path.write_text("\n".join(lines) + "\n")

    empty_the_graph()
    with pytest.raises(CommandError, match=f"line {facts[-1] + 1}"):
        call_command("import_graph", str(path), verbosity=0, stdout=io.StringIO())
    assert not Entity.objects.exists() and not Fact.objects.exists()
    assert not User.objects.exists()


def test_a_truncated_export_is_refused(graph, tmp_path):
    path = tmp_path / "graph.jsonl"
    call_command("export_graph", str(path), verbosity=0, stdout=io.StringIO())
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-3]) + "\n")
    empty_the_graph()
    with pytest.raises(CommandError, match="truncated"):
        call_command("import_graph", str(path), verbosity=0, stdout=io.StringIO())
    assert not Entity.objects.exists()
