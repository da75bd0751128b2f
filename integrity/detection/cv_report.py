"""The cross-validation report of ``train``: each held-out file beside its in-sample
figures, the verdicts pooled over every held-out file, and the held-out errors by the
pairs' phenomenon.

Pooled (issue 28, round 17): one macro-F1 over every held-out verdict together, each
pair judged by the fold that held its file out. The mean of four files weighs the 32
pairs of the smallest like the 220 of the largest, and that file's macro-F1 flips by
0.08 with the contradiction cut-off its inner folds choose (0.633 / 0.549); the pooled
figure is moved by it as by 32 pairs of 622.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from .scores import Scores, score

# (expected label, verdict, phenomenon or None) of one pair.
Verdict = tuple[str, str, "str | None"]
NO_PHENOMENON = "(no phenomenon)"


@dataclass
class Report:
    encoder: str
    held_out: dict[str, Scores] = field(default_factory=dict)
    in_sample: dict[str, Scores] = field(default_factory=dict)
    choices: dict = field(default_factory=dict)
    # The verdicts behind ``held_out`` and ``in_sample``, per file, in the file's order.
    held_out_verdicts: dict[str, list[Verdict]] = field(default_factory=dict)
    in_sample_verdicts: dict[str, list[Verdict]] = field(default_factory=dict)

    def pooled(self, *, in_sample: bool = False) -> Scores | None:
        """The scores of every file's verdicts together (None without verdicts)."""
        found = self.in_sample_verdicts if in_sample else self.held_out_verdicts
        every = [v for verdicts in found.values() for v in verdicts]
        if not every:
            return None
        return score([e for e, _g, _p in every], [g for _e, g, _p in every])


def verdicts_of(pairs: list, got: list[str]) -> list[Verdict]:
    return [(p.label, g, p.phenomenon) for p, g in zip(pairs, got, strict=True)]


def format_report(report: Report) -> str:
    lines = [
        f"encoder: {report.encoder}",
        f"{'held-out file':<36}{'macro-F1':>9}{'in-sample':>10}{'gap':>7}{'reach':>7}"
        f"{'wrong dup':>10}{'false al.':>10}{'uncertain':>10}",
    ]
    for name, s in report.held_out.items():
        ins = report.in_sample[name]
        lines.append(_row(name, s, ins.macro_f1))
    mean = lambda attr: np.mean([getattr(s, attr) for s in report.held_out.values()])  # noqa: E731
    lines.append(
        f"{'mean':<36}{mean('macro_f1'):>9.3f}"
        f"{np.mean([s.macro_f1 for s in report.in_sample.values()]):>10.3f}{'':>7}"
        f"{mean('reach'):>7.2f}{mean('wrong_duplicates'):>10.3f}{mean('false_alarms'):>10.3f}"
        f"{mean('uncertain_rate'):>10.3f}"
    )
    pooled, pooled_in = report.pooled(), report.pooled(in_sample=True)
    if pooled is not None:
        lines.append(
            _row(f"pooled ({pooled.total} verdicts)", pooled, pooled_in and pooled_in.macro_f1)
        )
    for name, c in report.choices.items():
        lines.append(
            f"  chosen for {name}: C={c.c} contradiction_min={c.contradiction_min} "
            f"duplicate_min={c.duplicate_min} uncertain_min={c.uncertain_min} "
            f"doubt_min={c.doubt_min}"
        )
    return "\n".join(lines)


def _row(name: str, s: Scores, in_sample: float | None) -> str:
    ins = f"{in_sample:>10.3f}{in_sample - s.macro_f1:>7.3f}" if in_sample is not None else ""
    return (
        f"{name:<36}{s.macro_f1:>9.3f}{ins or '':>17}"
        f"{s.reach:>7.2f}{s.wrong_duplicates:>10.3f}{s.false_alarms:>10.3f}"
        f"{s.uncertain_rate:>10.3f}"
    )


def format_errors(report: Report) -> str:
    """The pooled held-out errors: ``label -> verdict`` counts, then by the pairs'
    phenomenon (the files' own tag), the most missed first: which kinds of pair the
    model still gets wrong when it never saw the pair's file."""
    every = [v for verdicts in report.held_out_verdicts.values() for v in verdicts]
    if not every:
        return ""
    confusion = Counter((e, g) for e, g, _p in every if e != g)
    lines = [
        f"held-out errors ({sum(confusion.values())} of {len(every)}), label -> verdict: "
        + ", ".join(f"{e} -> {g} {n}" for (e, g), n in confusion.most_common())
    ]
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for v in every:
        groups[v[2] or NO_PHENOMENON].append(v)
    lines.append(f"  {'phenomenon':<24}{'pairs':>6}{'wrong':>6}  commonest errors")
    ranked = sorted(groups.items(), key=lambda kv: (-_wrong(kv[1]), kv[0]))
    for name, group in ranked:
        errors = Counter((e, g) for e, g, _p in group if e != g)
        common = ", ".join(f"{e} -> {g} {n}" for (e, g), n in errors.most_common(3))
        lines.append(f"  {name:<24}{len(group):>6}{_wrong(group):>6}  {common}")
    return "\n".join(lines)


def _wrong(group: list[Verdict]) -> int:
    return sum(e != g for e, g, _p in group)
