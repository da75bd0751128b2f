"""``train_pair_model --dry-run`` prints, beside the mean of the held-out files, one
macro-F1 over every held-out verdict pooled (each pair judged by the fold that held its
file out), and the held-out errors by the pairs' phenomenon. The mean of files weighs a
file of 32 pairs like one of 220, so a cut-off choice on the small file moved it by
0.02 while the pooled figure barely moves (issue 28, round 17)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from integrity.detection.cv_report import Report, format_errors, format_report
from integrity.detection.scores import score


def _rows(seed: int, count: int) -> list[dict]:
    names = ["Ilse", "Marek", "Sunita", "Teodor", "Aiko", "Bram", "Lotte", "Nuno"]
    rows = []
    for i in range(count):
        name = names[(i + seed) % len(names)]
        year = 1950 + 3 * i + seed
        rows += [
            (f"{name} was born in {year}.", f"{name} was born in {year + 4}.", "contradiction"),
            (f"{name} keeps bees.", f"{name} keeps bees.", "duplicate"),
            (f"{name} keeps bees.", f"{name} plays the oboe in a band.", "compatible"),
        ]
    return [
        {
            "id": f"r{i}",
            "lang": "en",
            "existing": a,
            "new": b,
            "label": label,
            "phenomenon": {"contradiction": "date", "duplicate": "copy"}.get(label, "detail"),
        }
        for i, (a, b, label) in enumerate(rows)
    ]


def test_the_report_pools_every_verdict_and_weighs_each_pair_once() -> None:
    small = [("contradiction", "contradiction", None), ("duplicate", "duplicate", None)]
    large = [("contradiction", "compatible", "negation")] * 6 + [
        ("compatible", "compatible", "detail")
    ] * 6
    report = Report("none")
    for name, verdicts in (("small.jsonl", small), ("large.jsonl", large)):
        report.held_out_verdicts[name] = verdicts
        report.in_sample_verdicts[name] = verdicts
        report.held_out[name] = report.in_sample[name] = score(
            [e for e, _g, _p in verdicts], [g for _e, g, _p in verdicts]
        )
    pooled = report.pooled()
    expected = score([e for e, _g, _p in small + large], [g for _e, g, _p in small + large])
    assert pooled == expected and pooled.total == 14
    mean = (report.held_out["small.jsonl"].macro_f1 + report.held_out["large.jsonl"].macro_f1) / 2
    assert pooled.macro_f1 != pytest.approx(mean)
    text = format_report(report)
    assert f"pooled (14 verdicts){expected.macro_f1:>25.3f}" in text
    errors = format_errors(report)
    assert "contradiction -> compatible 6" in errors
    # The most missed phenomenon first, with its pairs and errors counted.
    lines = errors.splitlines()
    assert lines[2].split()[:3] == ["negation", "6", "6"]


def test_the_dry_run_prints_the_pooled_figure_of_the_held_out_files(tmp_path: Path, capsys) -> None:
    paths = []
    for seed, count in enumerate((3, 10, 12)):  # files of 9, 30 and 36 pairs
        path = tmp_path / f"s{seed}.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in _rows(seed, count)) + "\n")
        paths.append(str(path))
    call_command("train_pair_model", *paths, "--encoders", "none", "--dry-run")
    out = capsys.readouterr().out
    pooled = [line for line in out.splitlines() if line.startswith("pooled (75 verdicts)")]
    assert len(pooled) == 1, out
    assert "held-out errors" in out and "phenomenon" in out
