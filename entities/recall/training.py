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
from sklearn.linear_model import LogisticRegression

from .. import hooks, services
from ..models import Fact
from ..scopes import ScopeFilter
from . import selectors
from .evaluation import memories_store
from .items import AT_LEAST, PRIMARY_FIRST
from .options import RecallOptions
from .retrieval import FEATURES, Candidate
from .scorer import PAIR_FEATURES

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
SAME_LANGUAGE = FEATURES.index("same_language")
# Triggers whose pairs in two languages a head of their own judges (``cross_fit``).
# Unknown: its head trained on English questions weighs shared words and full-text
# rank, which an Italian question and its English answer cannot show (held out on the
# mixed-language file, unknown 0.80 -> 1.00 in the ranking simulation). Measured on the
# other triggers too and not kept: pre-check in-sample 0.93 -> 0.86, free recall held
# out 0.93 -> 0.86, domain held out 0.80 -> 0.60; finding unchanged.
CROSS_TRIGGERS = frozenset({"unknown"})
CROSS_FEATURES = (
    "cosine_xl",
    "cosine_xl_gap",
    "rr_crosslingual",
    "confidence",
    "project",
    "entities",
    "length",
    *(f"kind_{k}" for k in Fact.Kind.values),
)


@dataclass
class QueryRows:
    """One query's candidates: features, labels and what the product needs to decide."""

    group: str
    qid: str
    scope: str
    trigger: str
    expect: set[int]
    x: np.ndarray
    y: np.ndarray
    ids: list[int]
    kinds: list[str]
    confidence: list[float]
    judged: list[dict[str, Any] | None] = field(default_factory=list)
    strict_duplicate: int | None = None
    raw: list[dict[str, float]] = field(default_factory=list)


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
            scope=q.get("scope", ""),
            trigger=TRIGGER_OF[q["endpoint"]],
            expect=expect,
            x=np.array([[c.features.get(f, 0.0) for f in FEATURES] for c in found]).reshape(
                len(found), len(FEATURES)
            ),
            y=np.array([c.fact.pk in expect for c in found], dtype=int),
            ids=[c.fact.pk for c in found],
            kinds=[c.fact.kind for c in found],
            confidence=[c.fact.confidence for c in found],
            raw=[dict(c.features) for c in found],
        )
        if rows.trigger == "finding":
            text, scope = q["input"]["text"], q.get("scope", "")
            kind = q["input"].get("kind", Fact.Kind.FACT)
            strict = services.fact_find_duplicate(text=text, scope=scope, kind=kind)
            rows.strict_duplicate = strict.pk if strict is not None else None
            judges = hooks.pair_judges()
            rows.judged = [judges[0](c.fact.text, text) if judges else None for c in found]
        out.append(rows)
    return out


# --- What a trigger shows, given probabilities ----------------------------------------------


def _pair_decides(rows: QueryRows, i: int, relevance: float, pair: Head | None) -> bool:
    """The product's ``scorer.restates`` on stored rows."""
    judged = rows.judged[i] if i < len(rows.judged) else None
    if judged is None:
        return False
    if judged["label"] == "duplicate":
        return True
    if _vetoed(judged):
        return False
    if pair is None:
        return False
    x = np.array([[_pair_row(rows, i, relevance)[f] for f in PAIR_FEATURES]])
    return bool(pair.proba(x)[0] >= pair.threshold)


def _vetoed(judged: dict[str, Any]) -> bool:
    """The duplicate guard objects for more than weak reasons (``scorer.restates``)."""
    return bool(judged["blocked"]) and not judged.get("weak_only")


def _pair_row(rows: QueryRows, i: int, relevance: float) -> dict[str, float]:
    judged = rows.judged[i]
    features = rows.raw[i]
    return {
        "guard_weak": 1.0 if judged.get("weak_only") else 0.0,
        "relevance": relevance,
        "duplicate": judged["duplicate"],
        "contradiction": judged["contradiction"],
        "compatible": judged["compatible"],
        **{f: features[f] for f in ("cosine", "cosine_xl", "lexical", "rare_terms")},
    }


def _shown(
    rows: QueryRows, p: np.ndarray, threshold: float, pair: Head | None = None
) -> tuple[list[int], int | None]:
    hint = FEATURES.index("rr_hint")
    kept = rows.trigger == "domain"  # the keyword list's patterns stay (domains.py)
    first = FEATURES.index("pair_rank") if rows.trigger in PRIMARY_FIRST else None
    at_least = AT_LEAST.get(rows.trigger, 0)
    order = [
        i
        for n, i in enumerate(np.argsort(-p, kind="stable"))
        if p[i] >= threshold
        or n < at_least
        or (kept and rows.x[i][hint])
        or (first is not None and rows.x[i][first] == 1.0)
    ]
    order = order[: SHOWN[rows.trigger]]
    if rows.trigger == "finding" and pair is not False:
        if rows.strict_duplicate is not None:
            return [rows.strict_duplicate], rows.strict_duplicate
        for i in order:
            if _pair_decides(rows, i, float(p[i]), pair):
                return [rows.ids[i]], rows.ids[i]
        return [], None
    if rows.trigger == "pre_check":
        order = [i for i in order if rows.kinds[i] != "mistake" or rows.confidence[i] >= 0.5]
    return [rows.ids[i] for i in order], None


def _hit(rows: QueryRows, shown: list[int], existing: int | None, pair=None) -> bool:
    if rows.trigger == "finding" and pair is not False:
        return existing is None if not rows.expect else existing in rows.expect
    if not rows.expect and rows.trigger == "unknown":
        return not any(
            rows.kinds[rows.ids.index(pk)] == "resolved_unknown" for pk in shown if pk in rows.ids
        )
    return rows.expect <= set(shown)


def outcome(queries: Sequence[QueryRows], probs: Sequence[np.ndarray], threshold: float, pair=None):
    """(hit rate, precision of what is shown) of one trigger at ``threshold``. For the
    finding trigger ``pair`` is its second stage (None: the pair model's verdict alone;
    False: judge the ranking only, as for the other triggers)."""
    hits, shown_n, right = 0, 0, 0
    for rows, p in zip(queries, probs, strict=True):
        shown, existing = _shown(rows, p, threshold, pair)
        hits += _hit(rows, shown, existing, pair)
        shown_n += len(shown)
        right += sum(1 for pk in shown if pk in rows.expect)
    return hits / max(1, len(queries)), (right / shown_n) if shown_n else 1.0


# --- Fitting -------------------------------------------------------------------------------


@dataclass
class Head:
    coef: np.ndarray
    intercept: float
    threshold: float
    # The columns of ``FEATURES`` it reads (None: every column of the rows it is given),
    # and the head of a pair in two languages (``scorer.cross_pair``).
    columns: list[int] | None = None
    cross: Head | None = None

    def proba(self, x: np.ndarray) -> np.ndarray:
        if len(x) == 0:
            return np.zeros(0)
        own = x if self.columns is None else x[:, self.columns]
        z = np.clip(own @ self.coef + self.intercept, -30, 30)
        p = 1.0 / (1.0 + np.exp(-z))
        if self.cross is not None:
            p = np.where(x[:, SAME_LANGUAGE] == 0.0, self.cross.proba(x), p)
        return p

    def as_dict(self, features: Sequence[str] = FEATURES) -> dict[str, Any]:
        names = features if self.columns is None else [features[i] for i in self.columns]
        out = {
            "features": list(names),
            "coef": [round(float(w), 6) for w in self.coef],
            "intercept": round(float(self.intercept), 6),
            "threshold": round(float(self.threshold), 4),
        }
        if self.cross is not None:
            out["cross"] = self.cross.as_dict(features)
        return out


def head_of(raw: dict[str, Any]) -> Head:
    """A stored head (``as_dict``) over the rows of ``FEATURES`` (or, for the finding's
    second stage, of ``PAIR_FEATURES``)."""
    names = list(raw["features"])
    whole = names in (list(FEATURES), list(PAIR_FEATURES))
    return Head(
        np.array(raw["coef"]),
        raw["intercept"],
        raw["threshold"],
        columns=None if whole else [FEATURES.index(f) for f in names],
        cross=head_of(raw["cross"]) if raw.get("cross") else None,
    )


def _logistic(x: np.ndarray, y: np.ndarray, n: int) -> Head:
    if len(y) == 0 or y.min() == y.max():
        return Head(np.zeros(n), 5.0 if len(y) and y.max() == 1 else -5.0, 0.5)
    model = LogisticRegression(C=C, class_weight="balanced", max_iter=2000)
    model.fit(x, y)
    return Head(model.coef_[0], float(model.intercept_[0]), 0.5)


def _best_threshold(score) -> float:
    best = (-math.inf, 0.5)
    for threshold in np.linspace(0.05, 0.95, 37):
        value = score(float(threshold))
        if value > best[0] + 1e-9:
            best = (value, float(threshold))
    return best[1]


def head_fit(queries: Sequence[QueryRows], columns: Sequence[str] = FEATURES) -> Head:
    index = [FEATURES.index(f) for f in columns]
    x = np.vstack([q.x[:, index] for q in queries if len(q.x)])
    y = np.concatenate([q.y for q in queries if len(q.x)])
    head = _logistic(x, y, len(index))
    head.columns = None if list(columns) == list(FEATURES) else index
    probs = [head.proba(q.x) for q in queries]

    def score(threshold: float) -> float:
        rate, precision = outcome(queries, probs, threshold, pair=False)
        return rate + PRECISION_WEIGHT * precision

    head.threshold = _best_threshold(score)
    return head


def cross_fit(queries: Sequence[QueryRows], head: Head) -> Head:
    """The head of a pair in two languages: fitted on every pair of the training queries
    over the features such a pair shows as well as one in one language (the multilingual
    encoder's cosine, its gap to the best and its list's rank; kind, confidence, project,
    entities, length), its threshold mapped onto ``head``'s probability scale."""
    cross = head_fit(queries, CROSS_FEATURES)
    cross.intercept += _logit(head.threshold) - _logit(cross.threshold)
    cross.threshold = head.threshold
    return cross


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def pair_fit(queries: Sequence[QueryRows], first: Head) -> Head:
    """The finding trigger's second stage, on the pairs the first stage shows and the
    pair model leaves undecided (not a duplicate verdict, not vetoed by the guard)."""
    xs, ys = [], []
    probs = [first.proba(q.x) for q in queries]
    for rows, p in zip(queries, probs, strict=True):
        order = [i for i in np.argsort(-p, kind="stable") if p[i] >= first.threshold]
        for i in order[: SHOWN["finding"]]:
            judged = rows.judged[i]
            if judged is None or _vetoed(judged) or judged["label"] == "duplicate":
                continue
            row = _pair_row(rows, i, float(p[i]))
            xs.append([row[f] for f in PAIR_FEATURES])
            ys.append(int(rows.ids[i] in rows.expect))
    x = np.array(xs).reshape(len(xs), len(PAIR_FEATURES))
    pair = _logistic(x, np.array(ys, dtype=int), len(PAIR_FEATURES))

    def score(threshold: float) -> float:
        pair.threshold = threshold
        rate, precision = outcome(queries, probs, first.threshold, pair=pair)
        return rate + PRECISION_WEIGHT * precision

    pair.threshold = _best_threshold(score)
    return pair


def model_fit(rows: Sequence[QueryRows], signature: str) -> dict[str, Any]:
    heads = {}
    for trigger in sorted({r.trigger for r in rows}):
        queries = [r for r in rows if r.trigger == trigger]
        head = head_fit(queries)
        if trigger in CROSS_TRIGGERS:
            head.cross = cross_fit(queries, head)
        heads[trigger] = head.as_dict()
        if trigger == "finding":
            heads["finding_pair"] = pair_fit(queries, head).as_dict(PAIR_FEATURES)
    return {"embedder": signature, "heads": heads}


def model_write(model: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def simulated(rows: Sequence[QueryRows], model: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Trigger -> (hit rate, precision) of ``model`` on ``rows`` (the candidates' ranking
    only; ``eval_recall`` runs the product itself)."""
    out = {}
    heads = {name: head_of(raw) for name, raw in model["heads"].items()}
    for trigger, head in heads.items():
        queries = [r for r in rows if r.trigger == trigger]
        if queries:
            probs = [head.proba(q.x) for q in queries]
            out[trigger] = outcome(queries, probs, head.threshold, heads.get("finding_pair"))
    return out


def project_cv(rows: Sequence[QueryRows], signature: str) -> dict[str, tuple[float, float]]:
    """Trigger -> (hit rate, precision) with each project's queries (file and scope)
    scored by a model trained on the other projects' queries, pooled over projects."""
    projects = sorted({(r.group, r.scope) for r in rows})
    hits: dict[str, list[float]] = {}
    for project in projects:
        held = [r for r in rows if (r.group, r.scope) == project]
        model = model_fit([r for r in rows if (r.group, r.scope) != project], signature)
        for trigger, (rate, precision) in simulated(held, model).items():
            n = sum(1 for r in held if r.trigger == trigger)
            hits.setdefault(trigger, []).extend([rate * n, precision * n, n])
    return {t: (sum(v[0::3]) / sum(v[2::3]), sum(v[1::3]) / sum(v[2::3])) for t, v in hits.items()}


Log = Callable[[str], None]
