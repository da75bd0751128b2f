"""Score the pair classifier against a labelled JSONL set and format the figures.

Kept apart from the management command so the metrics are plain functions a unit test
can call, and so a benchmark runner can reuse them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .aliases import Mentions
from .classifier import (
    DEFAULT_THRESHOLDS,
    LABELS,
    UNCERTAIN,
    PairEncoder,
    Thresholds,
    classify_pair,
)
from .scores import Scores, score
from .structure import language, read

# Embedding cosine of (existing, new), or None when no embedder is at hand.
Similarity = Callable[[str, str], "float | None"]


class PairFileError(ValueError):
    """The pairs file is missing or malformed; the message is one readable line."""


@dataclass(frozen=True)
class Pair:
    id: str
    lang: str | None
    existing: str
    new: str
    label: str
    phenomenon: str | None = None


@dataclass(frozen=True)
class Outcome:
    id: str
    expected: str
    got: str
    explanation: str
    lang: str | None = None
    phenomenon: str | None = None


@dataclass(frozen=True)
class GroupScore:
    """Accuracy of one group of pairs (a language, a phenomenon); uncertain counted apart."""

    name: str
    correct: int
    uncertain: int
    total: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


@dataclass(frozen=True)
class LabelScore:
    label: str
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class Report:
    scores: tuple[LabelScore, ...]
    macro_f1: float
    accuracy: float
    confusion: dict[str, dict[str, int]]
    misses: tuple[Outcome, ...]
    total: int
    uncertain: int = 0
    by_lang: tuple[GroupScore, ...] = ()
    by_phenomenon: tuple[GroupScore, ...] = ()
    curator: Scores | None = None


def load_pairs(path: str | Path) -> list[Pair]:
    """Read one pair per line; blank lines are skipped, anything else must be valid, and
    a file without a pair is refused."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise PairFileError(f"{path}: no such file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise PairFileError(f"{path}: cannot read ({exc})") from exc
    pairs = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PairFileError(f"{path}:{number}: invalid JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise PairFileError(f"{path}:{number}: expected a JSON object")
        missing = [k for k in ("existing", "new", "label") if not isinstance(row.get(k), str)]
        if missing:
            raise PairFileError(f"{path}:{number}: missing or non-text {', '.join(missing)}")
        if row["label"] not in LABELS:
            raise PairFileError(
                f"{path}:{number}: label {row['label']!r} is not one of {', '.join(LABELS)}"
            )
        pairs.append(
            Pair(
                id=str(row.get("id", number)),
                lang=row.get("lang"),
                existing=row["existing"],
                new=row["new"],
                label=row["label"],
                phenomenon=row.get("phenomenon")
                if isinstance(row.get("phenomenon"), str)
                else None,
            )
        )
    if not pairs:  # nothing to measure or learn from
        raise PairFileError(f"{path}: holds no pairs")
    return pairs


def run_pairs(
    pairs: Iterable[Pair],
    *,
    detect_lang: bool = False,
    similarity: Similarity | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    mentions: Mentions | None = None,
    encoder: PairEncoder | None = None,
) -> list[Outcome]:
    """Classify every pair; with ``detect_lang`` the file's language hint is ignored.

    Texts are stripped as the check endpoint strips them; ``encoder`` gives the model
    its cosine feature, as the check endpoint's does.
    """
    outcomes = []
    for pair in pairs:
        existing, new = pair.existing.strip(), pair.new.strip()
        lang = language(read(existing)) if detect_lang else (pair.lang or None)
        score = similarity(existing, new) if similarity is not None else None
        verdict = classify_pair(
            existing,
            new,
            lang=lang,
            similarity=score,
            thresholds=thresholds,
            mentions=mentions,
            encoder=encoder,
        )
        outcomes.append(
            Outcome(
                pair.id,
                pair.label,
                verdict.label,
                verdict.explanation,
                lang=lang or pair.lang,
                phenomenon=pair.phenomenon,
            )
        )
    return outcomes


def evaluate(outcomes: Iterable[Outcome], labels: tuple[str, ...] = LABELS) -> Report:
    """Per-label precision/recall/F1, macro-F1 over all labels, confusion and misses.

    ``uncertain`` is never a right answer: it counts as a miss in every figure, and is
    also counted on its own (a pair routed to a curator beats a wrong verdict).
    """
    outcomes = list(outcomes)
    columns = (*labels, UNCERTAIN)
    confusion = {e: dict.fromkeys(columns, 0) for e in labels}
    for o in outcomes:
        confusion.setdefault(o.expected, dict.fromkeys(columns, 0))
        confusion[o.expected][o.got] = confusion[o.expected].get(o.got, 0) + 1
    scores = [_label_score(label, confusion) for label in labels]
    correct = sum(o.expected == o.got for o in outcomes)
    return Report(
        scores=tuple(scores),
        macro_f1=sum(s.f1 for s in scores) / len(scores) if scores else 0.0,
        accuracy=correct / len(outcomes) if outcomes else 0.0,
        confusion=confusion,
        misses=tuple(o for o in outcomes if o.expected != o.got),
        total=len(outcomes),
        uncertain=sum(o.got == UNCERTAIN for o in outcomes),
        by_lang=_groups(outcomes, lambda o: o.lang),
        by_phenomenon=_groups(outcomes, lambda o: o.phenomenon),
        curator=score([o.expected for o in outcomes], [o.got for o in outcomes]),
    )


def _label_score(label: str, confusion: dict[str, dict[str, int]]) -> LabelScore:
    tp = confusion[label][label]
    predicted = sum(row.get(label, 0) for row in confusion.values())
    support = sum(confusion[label].values())
    precision = tp / predicted if predicted else 0.0
    recall = tp / support if support else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return LabelScore(label, precision, recall, f1, support)


def _groups(
    outcomes: list[Outcome], key: Callable[[Outcome], str | None]
) -> tuple[GroupScore, ...]:
    """One score per value of ``key``; empty when no pair has one (an old-format file)."""
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        name = key(o)
        if name:
            groups.setdefault(name, []).append(o)
    return tuple(
        GroupScore(
            name,
            sum(o.expected == o.got for o in group),
            sum(o.got == UNCERTAIN for o in group),
            len(group),
        )
        for name, group in sorted(groups.items())
    )


def _format_groups(title: str, groups: tuple[GroupScore, ...]) -> list[str]:
    if not groups:
        return []
    width = max(len(title), *(len(g.name) for g in groups)) + 2
    lines = [f"{title:<{width}}{'accuracy':>10}{'correct':>10}{'uncertain':>10}{'pairs':>8}"]
    for g in groups:
        lines.append(
            f"{g.name:<{width}}{g.accuracy:>10.3f}{g.correct:>10}{g.uncertain:>10}{g.total:>8}"
        )
    lines.append("")
    return lines


def format_report(report: Report) -> str:
    """A plain-text table: scores, macro-F1, confusion matrix (rows = expected), misses."""
    labels = [s.label for s in report.scores]
    corner = "expected \\ got"
    width = max(len(x) for x in [*labels, corner]) + 2
    lines = [f"{'label':<{width}}{'precision':>10}{'recall':>10}{'f1':>10}{'support':>10}"]
    for s in report.scores:
        lines.append(
            f"{s.label:<{width}}{s.precision:>10.3f}{s.recall:>10.3f}{s.f1:>10.3f}{s.support:>10}"
        )
    lines.append(f"{'macro-F1':<{width}}{'':>20}{report.macro_f1:>10.3f}{report.total:>10}")
    lines.append(f"{'accuracy':<{width}}{'':>20}{report.accuracy:>10.3f}")
    lines.append(f"{'uncertain':<{width}}{'':>20}{report.uncertain:>10}")
    if report.curator is not None:
        c = report.curator
        lines.append(f"{'reach':<{width}}{'':>20}{c.reach:>10.3f}")
        lines.append(f"{'wrong dup.':<{width}}{'':>20}{c.wrong_duplicates:>10.3f}")
        lines.append(f"{'false alarms':<{width}}{'':>20}{c.false_alarms:>10.3f}")
        lines.append(f"{'uncertain %':<{width}}{'':>20}{c.uncertain_rate:>10.3f}")
    lines.append("")
    columns = [*labels, UNCERTAIN]
    lines.append(f"{corner:<{width}}" + "".join(f"{x:>15}" for x in columns))
    for expected in labels:
        row = report.confusion.get(expected, {})
        lines.append(f"{expected:<{width}}" + "".join(f"{row.get(x, 0):>15}" for x in columns))
    lines.append("")
    lines += _format_groups("language", report.by_lang)
    lines += _format_groups("phenomenon", report.by_phenomenon)
    if report.misses:
        lines.append(f"misses ({len(report.misses)}):")
        for m in report.misses:
            lines.append(f"  {m.id}: expected {m.expected}, got {m.got} — {m.explanation}")
    else:
        lines.append("misses: none")
    return "\n".join(lines)
