"""train_recall refuses a file that holds nothing to learn from, before it writes: such a
run answered 0 and replaced the model with an empty one (recall then fell back to the
settings' thresholds everywhere)."""

from __future__ import annotations

import json
import pickle

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


ONE_QUERY = {
    "memories": [{"key": "m1", "kind": "fact", "text": "The harbour gate opens at seven."}],
    "queries": [
        {"id": "q1", "endpoint": "recall", "input": {"query": "when does the gate open?"},
         "expect": ["m1"]},
    ],
}  # fmt: skip


def test_an_out_file_in_a_missing_folder_is_refused_before_collecting(tmp_path, db):
    """The model was fitted for minutes, then the write failed with a traceback."""
    source = tmp_path / "one.json"
    source.write_text(json.dumps(ONE_QUERY), encoding="utf-8")
    out = tmp_path / "no" / "model.json"
    rows = tmp_path / "rows.pickle"
    message = command_fails("train_recall", str(source), "--out", str(out), "--rows", str(rows))
    assert message == f"cannot write {out}: no folder {out.parent}"
    assert not rows.exists()  # refused before any candidate was collected


@pytest.mark.parametrize("content", [b"not a pickle", b"", pickle.dumps({"rows": 1})])
def test_a_rows_file_that_is_no_rows_file_is_one_line(tmp_path, db, content):
    source = tmp_path / "one.json"
    source.write_text(json.dumps(ONE_QUERY), encoding="utf-8")
    rows = tmp_path / "rows.pickle"
    rows.write_bytes(content)
    out = tmp_path / "model.json"
    args = ("train_recall", str(source), "--out", str(out), "--rows", str(rows), "--no-eval")
    assert command_fails(*args).startswith(f"--rows {rows}: not a rows file this command wrote")
    assert not out.exists()
