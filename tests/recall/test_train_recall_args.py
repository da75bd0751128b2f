"""train_recall refuses a file that holds nothing to learn from, before it writes: such a
run answered 0 and replaced the model with an empty one (recall then fell back to the
settings' thresholds everywhere)."""

from __future__ import annotations

import json

import pytest

from tests.commands import command_fails


@pytest.mark.parametrize(
    "content",
    [{"memories": [], "queries": []}, {"memories": [{"key": "m1", "text": "x", "kind": "fact"}]}],
)
def test_a_file_without_queries_is_refused_and_no_model_is_written(tmp_path, db, content):
    source = tmp_path / "empty.json"
    source.write_text(json.dumps(content), encoding="utf-8")
    out = tmp_path / "model.json"
    message = command_fails("train_recall", str(source), "--out", str(out), "--no-eval")
    assert "empty.json: holds no queries" in message
    assert not out.exists()
