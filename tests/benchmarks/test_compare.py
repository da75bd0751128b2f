"""``python -m benchmarks NAME --compare REF``: both sides' figures with their ratio."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import compare
from benchmarks.__main__ import COMPARE_COLUMNS, render_table

ROOT = Path(__file__).resolve().parents[2]


def test_figures_of_both_sides_are_paired_by_benchmark_and_metric():
    before = [
        {"benchmark": "lookup", "metric": "p50", "value": 2.0, "unit": "ms"},
        {"benchmark": "lookup", "metric": "gone", "value": 5, "unit": "rows"},
    ]
    after = [
        {"benchmark": "lookup", "metric": "p50", "value": 0.5, "unit": "ms", "goal": "< 1"},
        {"benchmark": "lookup", "metric": "new", "value": 7, "unit": "rows"},
    ]
    rows = {r["metric"]: r for r in compare.compare_rows("abc123", before, after)}
    assert rows["p50"]["before"] == 2.0
    assert rows["p50"]["value"] == 0.5
    assert rows["p50"]["ratio"] == pytest.approx(0.25)
    # A figure present on one side only keeps its row, with no ratio.
    assert rows["new"]["before"] == "" and rows["new"]["ratio"] is None
    assert rows["gone"]["value"] == "" and rows["gone"]["ratio"] is None
    table = render_table(list(rows.values()), COMPARE_COLUMNS)
    assert "0.25x" in table
    assert table.splitlines()[0].split()[:5] == ["benchmark", "metric", "before", "value", "ratio"]


def test_text_and_zero_figures_get_no_ratio():
    before = [
        {"benchmark": "b", "metric": "db", "value": "sqlite"},
        {"benchmark": "b", "metric": "errors", "value": 0},
    ]
    after = [
        {"benchmark": "b", "metric": "db", "value": "sqlite"},
        {"benchmark": "b", "metric": "errors", "value": 3},
    ]
    assert [r["ratio"] for r in compare.compare_rows("x", before, after)] == [None, None]


needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout"
)


@needs_git
def test_the_scratch_checkout_holds_the_commit_and_is_removed_afterwards():
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    with compare.scratch_checkout(ROOT, "HEAD") as path:
        assert (path / "benchmarks" / "__main__.py").exists()
        inside = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, check=True
        ).stdout.strip()
        assert inside == head
    assert not path.exists()


@needs_git
def test_an_unknown_ref_is_one_readable_line_and_a_nonzero_exit():
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "lookup", "--compare", "no-such-ref-42"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("--compare no-such-ref-42:")
