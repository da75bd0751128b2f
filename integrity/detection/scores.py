"""What reaches the curator, beside macro-F1: reach (contradictions answered
contradiction or uncertain), wrong duplicates (non-duplicates answered duplicate: a
duplicate folds a fact into another), false alarms (compatible pairs answered
contradiction) and the share sent to a person as uncertain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

LABELS = ("contradiction", "duplicate", "compatible")


@dataclass(frozen=True)
class Scores:
    macro_f1: float
    accuracy: float
    reach: float
    wrong_duplicates: float
    false_alarms: float
    uncertain_rate: float
    total: int


def score(expected: Sequence[str], got: Sequence[str]) -> Scores:
    """``uncertain`` is never right: it is a miss in every F1, and counts toward reach."""
    pairs = list(zip(expected, got, strict=True))
    f1s = []
    for label in LABELS:
        tp = sum(e == g == label for e, g in pairs)
        predicted = sum(g == label for _e, g in pairs)
        support = sum(e == label for e, _g in pairs)
        precision = tp / predicted if predicted else 0.0
        recall = tp / support if support else 0.0
        f1s.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    contradictions = [g for e, g in pairs if e == "contradiction"]
    others = [g for e, g in pairs if e != "duplicate"]
    compatible = [g for e, g in pairs if e == "compatible"]
    n = max(len(pairs), 1)
    return Scores(
        macro_f1=sum(f1s) / len(f1s),
        accuracy=sum(e == g for e, g in pairs) / n,
        reach=_share(contradictions, ("contradiction", "uncertain")),
        wrong_duplicates=_share(others, ("duplicate",)),
        false_alarms=_share(compatible, ("contradiction",)),
        uncertain_rate=sum(g == "uncertain" for _e, g in pairs) / n,
        total=len(pairs),
    )


def _share(labels: list[str], wanted: tuple[str, ...]) -> float:
    return sum(x in wanted for x in labels) / len(labels) if labels else 0.0
