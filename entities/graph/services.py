"""Writes of the graph room: training and storing a TransE model."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.utils import timezone
from django_q.tasks import async_task

from kgsite import leases
from kgsite.vectors.service import embed_texts, vector_rebuild, vector_rebuild_enqueue

from ..models import Alias, Entity
from ..scopes import ScopeFilter
from ..search.kinds import entity_text
from . import kge
from .models import Edge, EdgeFact, KGEModel
from .transe import TransEConfig, rank_metrics, train_transe, triple_keys, triple_scores
from .visibility import support_q

logger = logging.getLogger(__name__)

# Below this many triples nothing can be learned or calibrated.
MIN_TRIPLES = 8
# The largest model one may ask for, over REST or the command: beyond, memory runs out.
DIM_MAX = 512
# The smallest, over REST or the command: fewer dimensions cannot hold apart the
# entities of a relation, and the model would still replace the readers' current one.
DIM_MIN = 8
EPOCHS_MAX = 2000
# torch.manual_seed takes at most 2**64 - 1; a larger seed failed the run mid-way.
SEED_MAX = 2**32 - 1
# Rebuild the model's vector indexes in the training process up to this many entities;
# beyond, a queued job does it (searches meanwhile answer from the exact fallback).
INDEX_INLINE = 200_000
# Held-out triples ranked for the stored metrics and scored for calibration, at most.
CALIBRATION_MAX = 5000


@dataclass
class GraphTriples:
    entity_ids: list[str]
    relation_names: list[str]
    triples: np.ndarray  # (n, 3) int64 h, r, t
    functional: dict[str, bool]


def graph_triples(scopes: ScopeFilter | None = None) -> GraphTriples:
    """The current edges as integer triples; a symmetric relation's edges both ways.

    With ``scopes``, only the edges that a fact of that view supports (default: every
    edge)."""
    edges = Edge.objects.all()
    if scopes is not None and not scopes.all_scopes:
        edges = edges.filter(pk__in=EdgeFact.objects.filter(support_q(scopes)).values("edge_id"))
    rows = list(
        edges.order_by("pk").values_list(
            "head_id", "relation__name", "tail_id", "relation__symmetric"
        )
    )
    # Entities in name order (ids are random): the same graph trains the same model.
    ids = {e for h, _r, t, _s in rows for e in (h, t)}
    names = dict(Entity.objects.filter(pk__in=ids).values_list("pk", "name_norm"))
    entity_ids = sorted(ids, key=lambda e: (names.get(e, ""), e))
    relation_names = sorted({r for _h, r, _t, _s in rows})
    e_index = {e: i for i, e in enumerate(entity_ids)}
    r_index = {r: i for i, r in enumerate(relation_names)}
    triples = []
    tails_per_head: dict[str, dict[str, int]] = {}
    for h, r, t, symmetric in rows:
        triples.append((e_index[h], r_index[r], e_index[t]))
        if symmetric:
            triples.append((e_index[t], r_index[r], e_index[h]))
        per = tails_per_head.setdefault(r, {})
        per[h] = per.get(h, 0) + 1
    functional = {
        r: len(per) >= 3 and sum(1 for n in per.values() if n == 1) / len(per) >= 0.95
        for r, per in tails_per_head.items()
    }
    array = np.asarray(triples, dtype=np.int64).reshape(-1, 3)
    return GraphTriples(entity_ids, relation_names, array, functional)


def split_triples(triples: np.ndarray, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Hold out ``fraction`` of the triples whose head and tail stay in training."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(triples))
    held = max(1, int(len(triples) * fraction))
    seen_h: dict[int, int] = {}
    for h, _r, t in triples:
        seen_h[h] = seen_h.get(h, 0) + 1
        seen_h[t] = seen_h.get(t, 0) + 1
    valid_idx: list[int] = []
    for i in order:
        if len(valid_idx) >= held:
            break
        h, _r, t = triples[i]
        if seen_h[h] > 1 and seen_h[t] > 1:
            seen_h[h] -= 1
            seen_h[t] -= 1
            valid_idx.append(int(i))
    mask = np.ones(len(triples), dtype=bool)
    mask[valid_idx] = False
    return triples[mask], triples[~mask]


def _corrupt(triples: np.ndarray, known: np.ndarray, n_entities: int, n_relations: int, seed: int):
    """One filtered corruption (head or tail replaced) per triple, for calibration."""
    rng = np.random.default_rng(seed + 1)
    out = triples.copy()
    side = rng.random(len(triples)) < 0.5
    for _ in range(10):
        out[side, 0] = np.where(side, rng.integers(0, n_entities, len(triples)), out[:, 0])[side]
        out[~side, 2] = np.where(~side, rng.integers(0, n_entities, len(triples)), out[:, 2])[~side]
        bad = np.isin(triple_keys(out, n_entities, n_relations), known)
        if not bad.any():
            break
    keys = (out[:, 0] * n_relations + out[:, 1]) * n_entities + out[:, 2]
    return out[~np.isin(keys, known)]


def calibrate(pos: np.ndarray, neg: np.ndarray) -> dict[str, float]:
    """Thresholds and a Platt fit from held-out true triples' scores and corruptions'.

    ``valid``: the score separating the two best (accuracy on a balanced set);
    ``unlikely``: below it fall only 5% of the true held-out triples (never above valid);
    confidence is ``sigmoid(a * score + b)`` fitted on the same scores.
    """
    pos = np.asarray(pos, dtype=np.float64)
    neg = np.asarray(neg, dtype=np.float64)
    candidates = np.unique(np.concatenate([pos, neg]))
    pos_sorted, neg_sorted = np.sort(pos), np.sort(neg)
    # Balanced accuracy of "score >= c" for every candidate c, by binary search.
    accuracy = 0.5 * (
        1
        - np.searchsorted(pos_sorted, candidates, side="left") / len(pos)
        + np.searchsorted(neg_sorted, candidates, side="left") / len(neg)
    )
    best = float(accuracy.max())
    a, b = _platt(pos, neg)
    # "valid" where the calibrated confidence reaches one half, so the label and the
    # confidence never disagree; the accuracy-best cut if the fit is degenerate.
    valid = -b / a if a > 0 else float(candidates[int(accuracy.argmax())])
    unlikely = min(float(np.quantile(pos, 0.05)), valid)
    return {"a": a, "b": b, "valid": valid, "unlikely": unlikely, "accuracy": float(best)}


def _platt(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float]:
    """Logistic regression on one feature, by damped Newton's method (two parameters).

    The scores are standardised first and each step is halved until the loss falls:
    plain Newton from (1, 0) diverges when the scores lie far from 0 (L1 distances of
    64 dimensions are several units)."""
    x_raw = np.concatenate([pos, neg])
    mu, sd = float(x_raw.mean()), float(x_raw.std()) or 1.0
    x = (x_raw - mu) / sd
    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    # Platt's targets keep the fit finite when the two sets are separable.
    y = np.where(y == 1, (len(pos) + 1) / (len(pos) + 2), 1 / (len(neg) + 2))

    def loss(a: float, b: float) -> float:
        z = np.clip(a * x + b, -50, 50)
        return float(np.sum(np.logaddexp(0, z) - y * z))

    a, b = 1.0, 0.0
    current = loss(a, b)
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(a * x + b, -50, 50)))
        g = np.array([np.sum((p - y) * x), np.sum(p - y)])
        w = p * (1 - p) + 1e-9
        hess = np.array([[np.sum(w * x * x), np.sum(w * x)], [np.sum(w * x), np.sum(w)]])
        step = np.linalg.solve(hess + 1e-6 * np.eye(2), g)
        scale = 1.0
        while scale > 1e-6 and loss(a - scale * step[0], b - scale * step[1]) > current:
            scale /= 2
        a, b = a - scale * step[0], b - scale * step[1]
        previous, current = current, loss(a, b)
        if np.abs(scale * step).max() < 1e-8 or previous - current < 1e-12:
            break
    return float(a / sd), float(b - a * mu / sd)


def _name_init(entity_ids: list[str], dim: int, seed: int) -> np.ndarray:
    """Entity vectors from their name embeddings, randomly projected to ``dim``."""
    aliases: dict[str, list[str]] = {}
    for entity_id, alias in Alias.objects.filter(entity_id__in=entity_ids).values_list(
        "entity_id", "alias"
    ):
        aliases.setdefault(entity_id, []).append(alias)
    rows = {
        pk: entity_text(name, etype, aliases.get(pk, ()), "")
        for pk, name, etype in Entity.objects.filter(pk__in=entity_ids).values_list(
            "pk", "canonical_name", "type"
        )
    }
    texts = [rows.get(e, e) for e in entity_ids]
    vectors = embed_texts(texts)
    rng = np.random.default_rng(seed)
    projection = rng.standard_normal((vectors.shape[1], dim)) / np.sqrt(dim)
    init = vectors @ projection
    return init / np.maximum(np.linalg.norm(init, axis=1, keepdims=True), 1e-9)


def kge_start(*, config: dict | None = None, scopes: ScopeFilter | None = None) -> KGEModel:
    """Record a training run about to start (the queued job takes its id), for the view
    ``scopes`` (default: global memory only). Runs whose worker died fail first."""
    settings = TransEConfig(**(config or {})).as_dict()
    kge_runs_recover()
    scope, all_scopes = kge.view_of(scopes)
    return KGEModel.objects.create(
        status=KGEModel.Status.TRAINING, settings=settings, scope=scope, all_scopes=all_scopes
    )


def kge_train(
    *,
    model: KGEModel | None = None,
    config: dict | None = None,
    init_names: bool = False,
    valid_fraction: float = 0.1,
    progress: Callable[[int, int, dict], None] | None = None,
    build_index: bool = True,
    scopes: ScopeFilter | None = None,
) -> KGEModel:
    """Train TransE on the current edges of one view (``scopes``; default: global memory
    only) and store it with metrics and thresholds.

    A run that fails is stored as failed with its error; the previous good model keeps
    answering."""
    row = model or kge_start(config=config, scopes=scopes)
    # Taken by a worker: the planned epochs mark the run started (a queued one reads
    # total 0), and from here its heartbeat says the worker lives.
    row.total = TransEConfig(**row.settings).epochs
    KGEModel.objects.filter(pk=row.pk).update(total=row.total, updated_at=timezone.now())
    try:
        with leases.Heartbeat(KGEModel, row.pk, KGEModel.Status.TRAINING):
            _train_into(row, init_names, valid_fraction, progress)
    except Exception as exc:
        logger.exception("TransE training %s failed", row.pk)  # the traceback goes to the log
        row.status = KGEModel.Status.FAILED
        row.error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:2000]
        row.save(update_fields=["status", "error", "updated_at"])
        raise
    if row.good and build_index:
        kge_index(model_id=row.pk)
    return row


def _train_into(row: KGEModel, init_names: bool, valid_fraction: float, progress) -> None:
    cfg = TransEConfig(**row.settings)
    graph = graph_triples(ScopeFilter(scope=row.scope, all_scopes=row.all_scopes))
    n_e, n_r = len(graph.entity_ids), len(graph.relation_names)
    row.entity_count, row.relation_count, row.triple_count = n_e, n_r, len(graph.triples)
    if len(graph.triples) < MIN_TRIPLES:
        row.status = KGEModel.Status.FAILED
        row.error = f"only {len(graph.triples)} triples; at least {MIN_TRIPLES} are needed"
        row.save()
        return
    train, valid = split_triples(graph.triples, valid_fraction, cfg.seed)
    known = triple_keys(graph.triples, n_e, n_r)
    init = _name_init(graph.entity_ids, cfg.dim, cfg.seed) if init_names else None
    row.total = cfg.epochs

    def report(epoch: int, total: int, record: dict) -> None:
        if progress is not None:
            progress(epoch, total, record)
        if epoch % 10 == 0 or epoch == total:
            KGEModel.objects.filter(pk=row.pk).update(done=epoch, total=total)

    result = train_transe(
        train, n_e, n_r, config=cfg, valid=valid, known=graph.triples, init=init, progress=report
    )
    ent, rel = result.entities, result.relations
    held = (valid if len(valid) >= 10 else graph.triples)[:CALIBRATION_MAX]
    neg = _corrupt(held, known, n_e, n_r, cfg.seed)
    if not len(neg):
        neg = _corrupt(graph.triples, known, n_e, n_r, cfg.seed)
    p = cfg.norm
    thresholds = calibrate(triple_scores(ent, rel, held, p), triple_scores(ent, rel, neg, p))
    sample = valid[:CALIBRATION_MAX]
    metrics = {
        "valid": rank_metrics(ent, rel, sample, known, n_r, p) if len(valid) else {},
        "train_sample": rank_metrics(ent, rel, train[:2000], known, n_r, p),
        "epochs": result.epochs,
        "seconds": round(result.seconds, 3),
        "calibrated_on": "valid" if held is valid else "all",
        "functional": graph.functional,
        "init": "names" if init_names else "random",
    }
    row.blob = kge.pack(graph.entity_ids, ent, graph.relation_names, rel)
    row.dim = cfg.dim
    row.metrics = metrics
    row.thresholds = thresholds
    row.status = KGEModel.Status.READY
    row.good = True
    # An early-stopped run has ended: it reads done, not stuck at done < total.
    row.done = row.total = result.epochs
    with transaction.atomic():
        row.save()


def kge_index(*, model_id: int) -> None:
    """Build the vector indexes of a model's entities and relations."""
    row = KGEModel.objects.filter(pk=model_id).only("scope", "all_scopes").first()
    if row is None:
        return
    current = kge.model_of_view(row.scope, row.all_scopes)
    if current is None or current.id != model_id:
        return
    if len(current.entity_ids) <= INDEX_INLINE:
        vector_rebuild(current.entity_kind)
        vector_rebuild(current.relation_kind)
    else:
        vector_rebuild_enqueue(current.entity_kind)
        vector_rebuild_enqueue(current.relation_kind)


def kge_train_task(model_id: int) -> int:
    """django-q2 job: train into the recorded run ``model_id`` (progress on the row)."""
    row = KGEModel.objects.get(pk=model_id)
    if row.status != KGEModel.Status.TRAINING:
        return row.pk
    kge_train(model=row)
    KGEModel.objects.filter(pk=row.pk).update(updated_at=timezone.now())
    return row.pk


def kge_train_enqueue(*, config: dict | None = None, scopes: ScopeFilter | None = None) -> KGEModel:
    """Queue a training run; the returned row shows its progress."""
    row = kge_start(config=config, scopes=scopes)
    async_task(kge_train_task, row.pk, group="kge")
    leases.schedule_every_minute("kgsite: recover TransE runs", KGE_RECOVER_TASK)
    return row


KGE_RECOVER_TASK = "entities.graph.services.kge_runs_recover"


def kge_runs_recover() -> list[int]:
    """Fail the started training runs whose worker died (no heartbeat for a lease; the
    same lease as ingest jobs): they would read "training" for ever. A run still queued
    (``total`` 0: no worker took it) is left to its turn. A run is not retried (a worker
    that died of training memory would die again): a new run can be asked for."""
    failed: list[int] = []
    started = KGEModel.objects.filter(total__gt=0).only("pk", "updated_at")
    for row in leases.stale(started, KGEModel.Status.TRAINING):
        seconds = int(leases.lease().total_seconds())
        reason = f"the worker died during training (no heartbeat for {seconds} s)"
        if KGEModel.objects.filter(
            pk=row.pk, status=KGEModel.Status.TRAINING, updated_at=row.updated_at
        ).update(status=KGEModel.Status.FAILED, error=reason, updated_at=timezone.now()):
            logger.warning("TransE run %s: %s", row.pk, reason)
            failed.append(row.pk)
    return failed
