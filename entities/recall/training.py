"""Learning the recall scorers (``manage.py train_recall``).

For every query of the recall sets, the candidates its trigger would judge (the same
hybrid retrieval as the product) with their features, labelled relevant when the query
expects them. One logistic regression per trigger; its showing threshold is chosen on
the training queries to maximise hit rate plus a quarter of precision (so a threshold
that shows everything does not win). Cross-validation leaves one file out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import hooks, services
from ..models import Fact
from ..scopes import ScopeFilter
from . import selectors
from .evaluation import memories_store
from .options import RecallOptions
from .retrieval import FEATURES, Candidate

# Endpoint of the recall sets -> scored trigger.
TRIGGER_OF = {
    "pre-check": "pre_check",
    "unknown": "unknown",
    "finding": "finding",
    "domain": "domain",
    "recall": "query",
}
# How many memories each trigger shows at most (the selectors' defaults).
SHOWN = {"pre_check": 12, "unknown": 10, "finding": 3, "domain": 5, "query": 5}
PRECISION_WEIGHT = 0.25
C = 1.0


@dataclass
class QueryRows:
    """One query's candidates: features, labels and what the product needs to decide."""

    group: str
    qid: str
    trigger: str
    expect: set[int]
    x: np.ndarray
    y: np.ndarray
    ids: list[int]
    kinds: list[str]
    confidence: list[float]
    restates: list[bool] = field(default_factory=list)
    strict_duplicate: int | None = None


def _candidates(q: dict[str, Any], options: RecallOptions) -> list[Candidate]:
    trigger = TRIGGER_OF[q["endpoint"]]
    args = q.get("input", {})
    scopes = ScopeFilter.of(q.get("scope", ""))
    if trigger == "domain":
        detected = selectors.domains_detect(args["tool"], args.get("arguments", {}))
        return selectors.domain_candidates(
            args["tool"], args.get("arguments", {}), detected, scopes, options
        )
    text = args.get("action") or args.get("text") or args.get("query") or ""
    if trigger == "finding":
        options = RecallOptions.defaults()
    return selectors.trigger_candidates(trigger, text, scopes, options)


def rows_collect(data: dict[str, Any], group: str) -> list[QueryRows]:
    """Store ``data`` (inside ``scratch_database``) and gather every scored query's rows."""
    ids = memories_store(data)
    options = RecallOptions.defaults()
    out = []
    for q in data.get("queries", []):
        if q["endpoint"] not in TRIGGER_OF:
            continue
        found = _candidates(q, options)
        expect = {ids[k] for k in q.get("expect", [])}
        rows = QueryRows(
            group=group,
            qid=q["id"],
            trigger=TRIGGER_OF[q["endpoint"]],
            expect=expect,
            x=np.array([[c.features.get(f, 0.0) for f in FEATURES] for c in found]).reshape(
                len(found), len(FEATURES)
            ),
            y=np.array([c.fact.pk in expect for c in found], dtype=int),
            ids=[c.fact.pk for c in found],
            kinds=[c.fact.kind for c in found],
            confidence=[c.fact.confidence for c in found],
        )
        if rows.trigger == "finding":
            text, scope = q["input"]["text"], q.get("scope", "")
            kind = q["input"].get("kind", Fact.Kind.FACT)
            strict = services.fact_find_duplicate(text=text, scope=scope, kind=kind)
            rows.strict_duplicate = strict.pk if strict is not None else None
            judges = hooks.pair_judges()
            rows.restates = [
                any(judge(c.fact.text, text) for judge in judges)
                for c in found[: SHOWN["finding"] * 3]
            ]
        out.append(rows)
    return out


# --- What a trigger shows, given probabilities ----------------------------------------------


def _shown(rows: QueryRows, p: np.ndarray, threshold: float) -> tuple[list[int], int | None]:
    order = [i for i in np.argsort(-p, kind="stable") if p[i] >= threshold]
    order = order[: SHOWN[rows.trigger]]
    if rows.trigger == "finding":
        if rows.strict_duplicate is not None:
            return [rows.strict_duplicate], rows.strict_duplicate
        for i in order:
            if i < len(rows.restates) and rows.restates[i]:
                return [rows.ids[i]], rows.ids[i]
        return [], None
    if rows.trigger == "pre_check":
        order = [i for i in order if rows.kinds[i] != "mistake" or rows.confidence[i] >= 0.5]
    return [rows.ids[i] for i in order], None


def _hit(rows: QueryRows, shown: list[int], existing: int | None) -> bool:
    if rows.trigger == "finding":
        return existing is None if not rows.expect else existing in rows.expect
    if not rows.expect and rows.trigger == "unknown":
        return not any(
            rows.kinds[rows.ids.index(pk)] == "resolved_unknown" for pk in shown if pk in rows.ids
        )
    return rows.expect <= set(shown)


def outcome(queries: Sequence[QueryRows], probs: Sequence[np.ndarray], threshold: float):
    """(hit rate, precision of what is shown) of one trigger at ``threshold``."""
    hits, shown_n, right = 0, 0, 0
    for rows, p in zip(queries, probs, strict=True):
        shown, existing = _shown(rows, p, threshold)
        hits += _hit(rows, shown, existing)
        shown_n += len(shown)
        right += sum(1 for pk in shown if pk in rows.expect)
    return hits / max(1, len(queries)), (right / shown_n) if shown_n else 1.0


# --- Fitting -------------------------------------------------------------------------------


@dataclass
class Head:
    coef: np.ndarray
    intercept: float
    threshold: float

    def proba(self, x: np.ndarray) -> np.ndarray:
        if len(x) == 0:
            return np.zeros(0)
        z = np.clip(x @ self.coef + self.intercept, -30, 30)
        return 1.0 / (1.0 + np.exp(-z))

    def as_dict(self) -> dict[str, Any]:
        return {
            "features": list(FEATURES),
            "coef": [round(float(w), 6) for w in self.coef],
            "intercept": round(float(self.intercept), 6),
            "threshold": round(float(self.threshold), 4),
        }


def head_fit(queries: Sequence[QueryRows]) -> Head:
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([q.x for q in queries if len(q.x)])
    y = np.concatenate([q.y for q in queries if len(q.x)])
    if y.min() == y.max():
        return Head(np.zeros(len(FEATURES)), -5.0 if y.max() == 0 else 5.0, 0.5)
    model = LogisticRegression(C=C, class_weight="balanced", max_iter=2000)
    model.fit(x, y)
    head = Head(model.coef_[0], float(model.intercept_[0]), 0.5)
    probs = [head.proba(q.x) for q in queries]
    best = (-math.inf, 0.5)
    for threshold in np.linspace(0.05, 0.95, 37):
        rate, precision = outcome(queries, probs, float(threshold))
        score = rate + PRECISION_WEIGHT * precision
        if score > best[0] + 1e-9:
            best = (score, float(threshold))
    head.threshold = best[1]
    return head


def model_fit(rows: Sequence[QueryRows], signature: str) -> dict[str, Any]:
    heads = {}
    for trigger in sorted({r.trigger for r in rows}):
        heads[trigger] = head_fit([r for r in rows if r.trigger == trigger]).as_dict()
    return {"embedder": signature, "heads": heads}


def model_write(model: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def simulated(rows: Sequence[QueryRows], model: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Trigger -> (hit rate, precision) of ``model`` on ``rows`` (the candidates' ranking
    only; ``eval_recall`` runs the product itself)."""
    out = {}
    for trigger, raw in model["heads"].items():
        head = Head(np.array(raw["coef"]), raw["intercept"], raw["threshold"])
        queries = [r for r in rows if r.trigger == trigger]
        if queries:
            out[trigger] = outcome(queries, [head.proba(q.x) for q in queries], head.threshold)
    return out


Log = Callable[[str], None]
