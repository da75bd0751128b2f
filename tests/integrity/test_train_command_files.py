"""``train_pair_model`` with too few pair files: its cross-validation is nested leave
one file out (a file held out, then one of the others to choose the cut-offs), so it
needs three. With one or two it died on a NumPy traceback after a minute of work."""

from __future__ import annotations

import json

import pytest

from tests.commands import command_fails

ROWS = [
    {"id": "a", "existing": "The bridge is 120 m long.", "new": "The bridge is 95 m long."},
    {"id": "b", "existing": "The bridge is 120 m long.", "new": "The bridge is 120 m long."},
]
LABELS = ["contradiction", "duplicate"]


@pytest.mark.parametrize("count", [1, 2])
def test_fewer_than_three_pair_files_is_one_line(tmp_path, count):
    paths = []
    for i in range(count):
        path = tmp_path / f"pairs{i}.jsonl"
        rows = [{**row, "label": label} for row, label in zip(ROWS, LABELS, strict=True)]
        path.write_text("\n".join(json.dumps(row) for row in rows))
        paths.append(str(path))
    message = command_fails("train_pair_model", *paths, "--encoders", "none", "--dry-run")
    assert "at least 3 pair files" in message and f"got {count}" in message


@pytest.mark.parametrize("where", ["missing/model.json", "."])
def test_an_out_path_that_cannot_be_written_is_refused_before_training(tmp_path, where):
    """It failed on a traceback when writing, after the whole training run."""
    paths = []
    for i in range(3):
        path = tmp_path / f"pairs{i}.jsonl"
        rows = [{**row, "label": label} for row, label in zip(ROWS, LABELS, strict=True)]
        path.write_text("\n".join(json.dumps(row) for row in rows))
        paths.append(str(path))
    out = str(tmp_path / where)
    message = command_fails("train_pair_model", *paths, "--encoders", "none", "--out", out)
    assert message.startswith("--out: ") and out.rstrip("/.") in message


def test_files_without_one_of_the_three_labels_are_one_line(tmp_path):
    """Three files of contradictions and compatible pairs only: a two-label regression
    has one row of weights, and the head building died on an IndexError."""
    rows = [
        ("The bridge is 120 m long.", "The bridge is 95 m long.", "contradiction"),
        ("The bridge is 120 m long.", "The bridge was painted red.", "compatible"),
        ("The ferry leaves at 9:00.", "The ferry leaves at 11:30.", "contradiction"),
        ("The ferry leaves at 9:00.", "The ferry carries forty cars.", "compatible"),
    ]
    paths = []
    for i in range(3):
        path = tmp_path / f"pairs{i}.jsonl"
        lines = [
            json.dumps({"id": f"{i}-{n}", "existing": a, "new": b, "label": label})
            for n, (a, b, label) in enumerate(rows)
        ]
        path.write_text("\n".join(lines))
        paths.append(str(path))
    message = command_fails(
        "train_pair_model", *paths, "--encoders", "none", "--dry-run", "--no-synthetic"
    )
    assert "no duplicate pairs" in message
