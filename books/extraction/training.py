"""Train the extraction scorer on annotated documents (the gold format of
``books.extraction.evaluate``): one reproducible procedure for ``train_extraction``.

Each document is parsed and chunked as ingestion does, its term pool measured
(``candidates.book_term_rows``), and each term labelled by the gold rows: an entity when
one of its names is a key's name (its type that key's), not one otherwise; a chunk
defines a key when its heading is the key's defining heading. Three logistic
regressions learn from those labels; thresholds are tuned on the training documents
only, so a held-out document never shapes the model that scores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings

from books.chunking import ChunkDraft, chunk_sections
from books.extraction.candidates import book_term_rows
from books.extraction.decide import TermRow
from books.extraction.evaluate import GoldRow, gold_read, heading_key, name_key
from books.extraction.scoring import Linear, Scorer
from books.extraction.termhood import N_STATS
from books.parsing import detect_format, parse_document

# Regularisation of the three models (inverse strength, scikit-learn's C).
C_ENTITY = 0.5
C_TYPE = 0.03
C_DEFINE = 0.5
# A gold junk string (one the annotators say must never become an entity) weighs this
# many unlabelled terms in the entity model.
JUNK_WEIGHT = 8.0
# The entity threshold maximises F-beta on the training documents' held-out
# probabilities (``INNER_FOLDS``): recall counts more than precision (a missed entity is
# lost; a surplus one is a candidate to review).
BETA = 2.0
# What a wrong definition costs against a right one when the define threshold is tuned:
# the entity threshold's preference of recall over precision (F-beta weighs recall beta²
# times), so a chunk that describes a term is not lost to keep out a surplus mark.
WRONG_DEFINE = 1 / BETA**2
# The define threshold's gain curve is read through a running mean of this many steps
# of 0.01.
SMOOTH_STEPS = 9
# Thresholds are tuned on held-out probabilities of this many document folds.
INNER_FOLDS = 4


@dataclass
class LabelledDoc:
    name: str
    chunks: list[ChunkDraft]
    rows: list[TermRow]
    entity: np.ndarray  # 1 where a gold key names the term
    types: list[str]  # the gold type of each term ("" when none)
    define_rows: list[list[float]]
    define_labels: list[int]
    define_groups: list[int]  # the term (row index) each define option belongs to
    junk: set[str]


def _keys(rows: Sequence[GoldRow]) -> tuple[dict[str, GoldRow], set[str]]:
    keys: dict[str, GoldRow] = {}
    junk: set[str] = set()
    for row in rows:
        for name in row.names:
            if row.kind == "key":
                keys.setdefault(name_key(name), row)
            else:
                junk.add(name_key(name))
    return keys, junk


def doc_load(path: Path, gold: Sequence[GoldRow]) -> LabelledDoc:
    document = parse_document(path.read_bytes(), fmt=detect_format(path.name))
    chunks = chunk_sections(document.sections, max_chars=int(settings.KGSITE_CHUNK_MAX_CHARS))
    rows = book_term_rows(chunks)
    keys, junk = _keys(gold)
    entity = np.zeros(len(rows), dtype=int)
    types: list[str] = []
    define_rows: list[list[float]] = []
    define_labels: list[int] = []
    define_groups: list[int] = []
    for i, row in enumerate(rows):
        names = [name_key(row.display), *(name_key(a) for a in row.aliases)]
        match = next((keys[n] for n in names if n in keys), None)
        types.append(match.type if match else "")
        if match is None:
            continue
        entity[i] = 1
        wanted = heading_key(match.heading) if match.heading else None
        for (index, _s, _e), feats in zip(row.options, row.option_features, strict=True):
            path_ = chunks[index].heading_path
            got = heading_key(path_[-1]) if path_ else ""
            define_rows.append(feats)
            define_labels.append(int(wanted is not None and got == wanted))
            define_groups.append(i)
    return LabelledDoc(
        path.name, chunks, rows, entity, types, define_rows, define_labels, define_groups, junk
    )


def gold_documents(gold_files: Sequence[Path]) -> list[tuple[Path, list[GoldRow]]]:
    """(document path, its gold rows) for every document the gold files name."""
    found: list[tuple[Path, list[GoldRow]]] = []
    for gold in gold_files:
        rows = gold_read(gold)
        for doc in dict.fromkeys(r.doc for r in rows):
            found.append((gold.parent / doc, [r for r in rows if r.doc == doc]))
    return found


def _linear(model, mean, scale, classes=(), threshold=0.5) -> Linear:
    coef = np.atleast_2d(model.coef_)
    return Linear(mean, scale, coef, np.atleast_1d(model.intercept_), tuple(classes), threshold)


def _standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    return (x - mean) / scale, mean, scale


def _best_threshold(p: np.ndarray, y: np.ndarray, beta: float) -> float:
    best, chosen = -1.0, 0.5
    for t in np.linspace(0.05, 0.95, 91):
        pred = p >= t
        tp = float((pred & (y == 1)).sum())
        if tp == 0:
            continue
        precision, recall = tp / pred.sum(), tp / max((y == 1).sum(), 1)
        f = (1 + beta**2) * precision * recall / (beta**2 * precision + recall)
        if f > best:
            best, chosen = f, float(t)
    return chosen


def _define_threshold(p: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> float:
    """The threshold with the most terms whose best option is right, less wrong picks
    at ``WRONG_DEFINE`` each (each term's best option does not depend on the threshold:
    found once)."""
    tops = np.asarray(
        [w[int(p[w].argmax())] for w in (np.flatnonzero(groups == g) for g in np.unique(groups))]
    )
    if not len(tops):
        return 0.5
    gains = np.where(labels[tops] == 1, 1.0, -WRONG_DEFINE)
    grid = np.linspace(0.05, 0.95, 91)
    scores = np.asarray([gains[p[tops] >= t].sum() for t in grid])
    # The curve is flat and jagged over a wide range (a few picks either way): its
    # running mean over SMOOTH_STEPS neighbours picks the middle of a good range, not the
    # one spike a fold happens to have.
    kernel = np.ones(SMOOTH_STEPS) / SMOOTH_STEPS
    smooth = np.convolve(np.pad(scores, SMOOTH_STEPS // 2, mode="edge"), kernel, mode="valid")
    return float(grid[int(smooth.argmax())])


def _held_out(make, x: np.ndarray, y: np.ndarray, groups: np.ndarray, weights=None) -> np.ndarray:
    """P(yes) of each row from a model trained on the other documents (grouped k-fold);
    the in-sample probability where a fold would lack a class."""
    from sklearn.model_selection import GroupKFold  # deferred: only training needs it

    out = np.zeros(len(y))
    folds = min(INNER_FOLDS, len(np.unique(groups)))
    if folds < 2:
        return make().fit(x, y, sample_weight=weights).predict_proba(x)[:, 1]
    for train, test in GroupKFold(n_splits=folds).split(x, y, groups):
        if len(np.unique(y[train])) < 2:
            out[test] = 0.5
            continue
        model = make()
        model.fit(x[train], y[train], sample_weight=None if weights is None else weights[train])
        out[test] = model.predict_proba(x[test])[:, 1]
    return out


def _entity_model():
    from sklearn.linear_model import LogisticRegression  # deferred: only training needs it

    return LogisticRegression(C=C_ENTITY, max_iter=2000)


def _define_model():
    from sklearn.linear_model import LogisticRegression  # deferred: only training needs it

    return LogisticRegression(C=C_DEFINE, max_iter=2000, class_weight="balanced")


def fit(docs: Sequence[LabelledDoc]) -> Scorer:
    """The three models trained on ``docs``."""
    from sklearn.linear_model import LogisticRegression  # deferred: only training needs it

    x = np.asarray([r.features for d in docs for r in d.rows], dtype=float)
    y = np.concatenate([d.entity for d in docs])
    xs, mean, scale = _standardise(x)
    junk = np.asarray([name_key(r.display) in d.junk for d in docs for r in d.rows], dtype=bool)
    weights = np.where(y == 1, (y == 0).sum() / max(y.sum(), 1), 1.0)
    weights[junk & (y == 0)] = JUNK_WEIGHT
    entity = _entity_model()
    entity.fit(xs, y, sample_weight=weights)
    # The threshold is chosen on probabilities each document got from a model trained
    # without it: in-sample ones are overconfident and set it too high for a new text.
    groups = np.asarray([k for k, d in enumerate(docs) for _r in d.rows])
    held = _held_out(_entity_model, xs, y, groups, weights)
    threshold = _best_threshold(held, y, BETA)

    types = [t for d in docs for t in d.types]
    positive = np.flatnonzero(y == 1)
    type_model = LogisticRegression(C=C_TYPE, max_iter=3000)
    # The kind of a term, not how often this document names it: the usage features
    # (the first N_STATS) are left out of the type model (their weights stay 0).
    type_model.fit(xs[positive][:, N_STATS:], [types[i] for i in positive])
    type_model.coef_ = np.hstack([np.zeros((type_model.coef_.shape[0], N_STATS)), type_model.coef_])

    dx = np.asarray([f for d in docs for f in d.define_rows], dtype=float)
    dy = np.asarray([label for d in docs for label in d.define_labels], dtype=int)
    offsets = np.cumsum([0] + [len(d.rows) for d in docs[:-1]])
    dg = np.asarray(
        [g + off for d, off in zip(docs, offsets, strict=True) for g in d.define_groups]
    )
    dxs, dmean, dscale = _standardise(dx)
    # Each term weighs the same whatever its number of options: the model learns to
    # pick a term's defining chunk, not the terms with many chunks.
    dweights = 1.0 / np.bincount(dg)[dg] if len(dg) else np.ones(0)
    dweights *= len(dweights) / max(dweights.sum(), 1e-9)
    define = _define_model()
    define.fit(dxs, dy, sample_weight=dweights)
    # The threshold is chosen on probabilities each document got from a model trained
    # without it (in-sample ones are overconfident and set it too high for a new text).
    ddoc = np.asarray([k for k, d in enumerate(docs) for _f in d.define_rows])
    dp = _held_out(_define_model, dxs, dy, ddoc, dweights)
    dthreshold = _define_threshold(dp, dy, dg)
    return Scorer(
        entity=_linear(entity, mean, scale, threshold=threshold),
        type=_linear(type_model, mean, scale, classes=type_model.classes_),
        define=_linear(define, dmean, dscale, threshold=dthreshold),
        info={
            "documents": [d.name for d in docs],
            "terms": int(len(y)),
            "entities": int(y.sum()),
            "define_options": int(len(dy)),
        },
    )
