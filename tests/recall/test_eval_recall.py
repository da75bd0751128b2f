"""``manage.py eval_recall``: a recall set's table per endpoint, and one readable line
for a file it cannot read. The set is written for this test."""

from __future__ import annotations

import contextlib
import json

import pytest
from django.core.management import CommandError, call_command

from entities.management.commands import eval_recall

pytestmark = pytest.mark.django_db(transaction=True)

SET = {
    "entities": [{"name": "Orchard", "type": "software", "aliases": ["orchard-api"]}],
    "memories": [
        {"key": "a1", "kind": "fact", "scope": "orchard",
         "text": "Orchard signs its tokens with the ZQ-9 key kept in the vault",
         "entities": ["Orchard"]},
        {"key": "b1", "kind": "fact", "scope": "meadow",
         "text": "Meadow signs its tokens with the ZQ-9 key kept on disk"},
        {"key": "a2", "kind": "resolved_unknown", "scope": "orchard",
         "text": "Why do Orchard logins fail after midnight",
         "resolved_by": "the session cache expired at midnight UTC"},
    ],
    "queries": [
        {"id": "q1", "endpoint": "recall", "scope": "orchard",
         "input": {"query": "which key signs Orchard tokens, ZQ-9?"},
         "expect": ["a1"], "forbid": ["b1"]},
        {"id": "q2", "endpoint": "unknown", "scope": "orchard",
         "input": {"text": "Why do Orchard logins fail after midnight"},
         "expect": ["a2"], "forbid": []},
        {"id": "q3", "endpoint": "finding", "scope": "orchard",
         "input": {"text": "Orchard moved its tokens to the QX-4 key"},
         "expect": [], "forbid": []},
    ],
}  # fmt: skip


@pytest.fixture
def recall_set(tmp_path, vector_dir, monkeypatch):
    # The test database is already a fresh one: no second scratch database inside it.
    monkeypatch.setattr(eval_recall, "scratch_database", contextlib.nullcontext)
    path = tmp_path / "set.json"
    path.write_text(json.dumps(SET))
    return path


def test_the_table_counts_hits_and_leaks_per_endpoint(recall_set, capsys):
    call_command("eval_recall", str(recall_set))
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["recall"][1] == "1/1" and rows["recall"][-1] == "0"  # found, no leak
    assert rows["unknown"][1] == "1/1"
    assert rows["finding"][1] == "1/1"  # a changed value is new: create_new
    assert rows["all"][1] == "3/3"


def test_an_unreadable_set_is_one_readable_error(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"memories": [], "queries": [{"id": "x", "endpoint": "nowhere"}]}')
    with pytest.raises(CommandError, match="unknown endpoint"):
        call_command("eval_recall", str(broken))


MEMORY = {"key": "a1", "kind": "fact", "text": "Orchard signs its tokens with ZQ-9"}
QUERY = {"id": "q1", "endpoint": "recall", "input": {"query": "ZQ-9"}, "expect": ["a1"]}


@pytest.mark.parametrize(
    ("memories", "queries", "says"),
    [
        ([MEMORY], ["q1"], "query 1 is not an object"),
        ([MEMORY], {"q1": QUERY}, "queries must be a list"),
        (["a1"], [QUERY], "memory 1 is not an object"),
        ([{"key": "a1", "kind": "fact"}], [QUERY], "memory a1 has no text"),
        ([{**MEMORY, "kind": "gossip"}], [QUERY], "memory a1: kind must be one of"),
        ([MEMORY], [{**QUERY, "expect": "a1"}], "query q1: expect must be a list"),
        ([MEMORY], [{**QUERY, "input": "ZQ-9"}], "query q1: input must be an object"),
    ],
)
def test_a_malformed_set_is_one_readable_error_before_anything_is_stored(
    tmp_path, vector_dir, monkeypatch, memories, queries, says
):
    """A set with a query or memory of the wrong shape stopped with a traceback, some
    only after the scratch database was built and half the memories stored."""
    monkeypatch.setattr(eval_recall, "scratch_database", contextlib.nullcontext)
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"memories": memories, "queries": queries}))
    with pytest.raises(CommandError, match=says):
        call_command("eval_recall", str(path))
