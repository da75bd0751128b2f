"""TransE in torch on the CPU: vectorised, filtered negatives, early stopping.

Score of a triple: ``-||h + r - t||_2`` with unit-length entity vectors (normalised in the
forward pass, stored normalised). With unit-length tails,
``||h + r - t||² = ||h + r||² + 1 - 2 (h + r)·t``, so for a fixed (h, r) ranking tails by
distance is ranking them by the dot product, which is ``||h + r||`` times the cosine:
the cosine index of the vectors room (hnswlib) ranks tails exactly as the distance does
(and ``t - r`` ranks heads the same way).

Training is sampled softmax over shared negatives: every batch scores each positive's
(h, r) against the true tail and ``negatives`` entities drawn once for the batch (all
entities when there are fewer), and likewise (t, r) against heads. Negatives that form a
known true triple are masked out (filtered negative sampling), and the loss is the cross
entropy of the true answer among them, scaled by ``temperature``. On graphs of a few
hundred entities this is full 1-N training; on large ones it costs
``batch × negatives × dim`` per step. Every ``eval_every`` epochs the filtered MRR on the
validation split decides whether to keep the vectors; training stops after ``patience``
evaluations without improvement.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812 - torch's own convention

Progress = Callable[[int, int, dict], None]


@dataclass
class TransEConfig:
    dim: int = 64
    epochs: int = 200
    batch_size: int = 512
    negatives: int = 512
    lr: float = 0.01
    temperature: float = 8.0
    weight_decay: float = 0.0
    eval_every: int = 2
    patience: int = 3
    seed: int = 0
    # Torch threads while training (restored after): one is fastest on a shared machine.
    threads: int | None = 1

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class TransEResult:
    entities: np.ndarray  # (n_entities, dim), unit rows
    relations: np.ndarray  # (n_relations, dim)
    epochs: int
    seconds: float
    best_valid_mrr: float | None
    history: list[dict] = field(default_factory=list)


def triple_keys(triples: np.ndarray, n_entities: int, n_relations: int) -> np.ndarray:
    """One int64 per (h, r, t), sorted: membership tests by ``np.isin``/``searchsorted``."""
    t = np.asarray(triples, dtype=np.int64)
    keys = (t[:, 0] * n_relations + t[:, 1]) * n_entities + t[:, 2]
    return np.unique(keys)


class TransE(torch.nn.Module):
    def __init__(self, n_entities: int, n_relations: int, dim: int, init: np.ndarray | None):
        super().__init__()
        if init is not None:
            weights = torch.as_tensor(np.asarray(init, dtype=np.float32))
        else:
            weights = torch.randn(n_entities, dim) / math.sqrt(dim)
        self.entity = torch.nn.Parameter(weights.clone())
        bound = 1.0 / math.sqrt(dim)
        self.relation = torch.nn.Parameter(torch.empty(n_relations, dim).uniform_(-bound, bound))

    def entity_vectors(self) -> torch.Tensor:
        return F.normalize(self.entity, dim=-1)


def _filter_mask(
    anchors: torch.Tensor,
    rel: torch.Tensor,
    candidates: torch.Tensor,
    known: torch.Tensor,
    n_entities: int,
    n_relations: int,
    tails: bool,
) -> torch.Tensor:
    """True where (anchor, rel, candidate) is a known triple (the candidate is a tail
    when ``tails``, else a head)."""
    a = anchors.unsqueeze(1)
    c = candidates.unsqueeze(0)
    r = rel.unsqueeze(1)
    keys = (
        (a * n_relations + r) * n_entities + c if tails else (c * n_relations + r) * n_entities + a
    )
    # ``known`` is sorted: a binary search is several times faster than torch.isin.
    at = torch.searchsorted(known, keys).clamp_max(len(known) - 1)
    return known[at] == keys


# Up to this many cells, the known answers of every (entity, relation) pair are kept as
# two dense boolean tables: filtering a batch is then one gather.
DENSE_FILTER_CELLS = 32_000_000


def _dense_tables(
    known: np.ndarray, n_entities: int, n_relations: int, negatives: int
) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(tails of (h, r), heads of (t, r)) as boolean rows, for a small graph whose every
    entity is a candidate; None otherwise."""
    if n_entities > negatives or n_entities * n_relations * n_entities > DENSE_FILTER_CELLS:
        return None
    k = torch.as_tensor(np.asarray(known, dtype=np.int64))
    tails = torch.zeros(n_entities * n_relations, n_entities, dtype=torch.bool)
    heads = torch.zeros(n_entities * n_relations, n_entities, dtype=torch.bool)
    tails[k[:, 0] * n_relations + k[:, 1], k[:, 2]] = True
    heads[k[:, 2] * n_relations + k[:, 1], k[:, 0]] = True
    return tails, heads


def _side_loss(
    query: torch.Tensor,
    cand_vecs: torch.Tensor,
    pos_vecs: torch.Tensor,
    false_neg: torch.Tensor,
    temperature: float,
) -> torch.Tensor:
    pos_d = ((query - pos_vecs) ** 2).sum(-1, keepdim=True).clamp_min(1e-9).sqrt()
    # Unit-length candidates: ||q - c||² = ||q||² + 1 - 2 q·c (one matmul; cdist's
    # backward is several times slower on the CPU).
    sq = (query**2).sum(-1, keepdim=True) + 1.0 - 2.0 * query @ cand_vecs.T
    neg_d = sq.clamp_min(1e-9).sqrt()
    neg_d = neg_d.masked_fill(false_neg, float("inf"))
    logits = -temperature * torch.cat([pos_d, neg_d], dim=1)
    return F.cross_entropy(logits, torch.zeros(len(query), dtype=torch.long))


def train_transe(
    train: np.ndarray,
    n_entities: int,
    n_relations: int,
    *,
    config: TransEConfig | None = None,
    valid: np.ndarray | None = None,
    known: np.ndarray | None = None,
    init: np.ndarray | None = None,
    progress: Progress | None = None,
) -> TransEResult:
    """Train on ``train`` (int triples h, r, t); ``known`` (default: train + valid) are
    the triples never used as negatives and filtered out when ranking."""
    cfg = config or TransEConfig()
    previous_threads = torch.get_num_threads()
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    try:
        return _train(train, n_entities, n_relations, cfg, valid, known, init, progress)
    finally:
        torch.set_num_threads(previous_threads)


def _train(train, n_entities, n_relations, cfg, valid, known, init, progress) -> TransEResult:
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    train = np.asarray(train, dtype=np.int64)
    if known is None:
        known = train if valid is None or not len(valid) else np.concatenate([train, valid])
    known_keys = torch.as_tensor(triple_keys(known, n_entities, n_relations))
    model = TransE(n_entities, n_relations, cfg.dim, init)
    optimiser = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    data = torch.as_tensor(train)
    all_entities = torch.arange(n_entities)
    tables = _dense_tables(known, n_entities, n_relations, cfg.negatives)
    # Timed from here, like PyKEEN's train_seconds: building the model and optimiser (the
    # first Adam in a process imports torch._dynamo, seconds on a busy machine) is not.
    started = time.perf_counter()
    best = (-1.0, None, None)
    history: list[dict] = []
    stale = 0
    epoch = 0
    for epoch in range(1, cfg.epochs + 1):
        order = torch.as_tensor(rng.permutation(len(train)))
        total = 0.0
        for start in range(0, len(train), cfg.batch_size):
            batch = data[order[start : start + cfg.batch_size]]
            h, r, t = batch[:, 0], batch[:, 1], batch[:, 2]
            if tables is not None:
                cand = all_entities
                tail_fn, head_fn = tables[0][h * n_relations + r], tables[1][t * n_relations + r]
            else:
                if n_entities <= cfg.negatives:
                    cand = all_entities
                else:
                    cand = torch.as_tensor(rng.choice(n_entities, cfg.negatives, replace=False))
                tail_fn = _filter_mask(h, r, cand, known_keys, n_entities, n_relations, True)
                head_fn = _filter_mask(t, r, cand, known_keys, n_entities, n_relations, False)
            ent = model.entity_vectors()
            hv, rv, tv, cv = ent[h], model.relation[r], ent[t], ent[cand]
            loss = _side_loss(hv + rv, cv, tv, tail_fn, cfg.temperature) + _side_loss(
                tv - rv, cv, hv, head_fn, cfg.temperature
            )
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        record = {"epoch": epoch, "loss": total / max(1, len(train))}
        if valid is not None and len(valid) and epoch % cfg.eval_every == 0:
            with torch.no_grad():
                ent = model.entity_vectors().numpy()
                rel = model.relation.detach().numpy()
            mrr = rank_metrics(ent, rel, valid, known_keys.numpy(), n_relations)["mrr"]
            record["valid_mrr"] = mrr
            if mrr > best[0]:
                best, stale = (mrr, ent.copy(), rel.copy()), 0
            else:
                stale += 1
        history.append(record)
        if progress is not None:
            progress(epoch, cfg.epochs, record)
        if stale >= cfg.patience:
            break
    if best[1] is None:
        with torch.no_grad():
            best = (None, model.entity_vectors().numpy().copy(), model.relation.detach().numpy())
    return TransEResult(
        entities=np.ascontiguousarray(best[1], dtype=np.float32),
        relations=np.ascontiguousarray(best[2], dtype=np.float32),
        epochs=epoch,
        seconds=time.perf_counter() - started,
        best_valid_mrr=best[0],
        history=history,
    )


# --- Scoring and evaluation -----------------------------------------------------------------


def triple_scores(ent: np.ndarray, rel: np.ndarray, triples: np.ndarray) -> np.ndarray:
    """TransE scores ``-||h + r - t||`` (higher is more plausible)."""
    t = np.asarray(triples, dtype=np.int64)
    return -np.linalg.norm(ent[t[:, 0]] + rel[t[:, 1]] - ent[t[:, 2]], axis=1)


def _distances(queries: np.ndarray, ent: np.ndarray) -> np.ndarray:
    sq = (queries**2).sum(1, keepdims=True) + (ent**2).sum(1)[None, :] - 2 * queries @ ent.T
    return np.sqrt(np.maximum(sq, 0.0))


def filtered_ranks(
    scores_fn: Callable[[np.ndarray, bool], np.ndarray],
    triples: np.ndarray,
    known_keys: np.ndarray,
    n_entities: int,
    n_relations: int,
    chunk: int = 256,
) -> np.ndarray:
    """Realistic filtered ranks of the true tail and the true head of every triple.

    ``scores_fn(batch, tails)`` scores every entity as the tail (or head) of each triple
    of ``batch`` (higher is better). Other known true answers are removed; ties count
    half (the "realistic" rank), so a model scoring everything alike gets no free rank 1.
    Returns an array of 2 × len(triples) ranks (tails then heads, per chunk).
    """
    triples = np.asarray(triples, dtype=np.int64)
    ranks: list[np.ndarray] = []
    everyone = np.arange(n_entities, dtype=np.int64)
    for start in range(0, len(triples), chunk):
        batch = triples[start : start + chunk]
        for tails in (True, False):
            scores = np.asarray(scores_fn(batch, tails), dtype=np.float64)
            answer = batch[:, 2] if tails else batch[:, 0]
            anchor = batch[:, 0] if tails else batch[:, 2]
            if tails:
                keys = (anchor[:, None] * n_relations + batch[:, 1:2]) * n_entities + everyone
            else:
                keys = (everyone[None, :] * n_relations + batch[:, 1:2]) * n_entities + anchor[
                    :, None
                ]
            other_true = np.isin(keys, known_keys)
            other_true[np.arange(len(batch)), answer] = False
            true_score = scores[np.arange(len(batch)), answer][:, None]
            scores = np.where(other_true, -np.inf, scores)
            better = (scores > true_score).sum(1)
            equal = (scores == true_score).sum(1) - 1
            ranks.append(1.0 + better + 0.5 * equal)
    return np.concatenate(ranks) if ranks else np.zeros(0)


def rank_summary(ranks: np.ndarray) -> dict[str, float]:
    if not len(ranks):
        return {"mrr": 0.0, "hits_at_1": 0.0, "hits_at_3": 0.0, "hits_at_10": 0.0, "n": 0}
    return {
        "mrr": float(np.mean(1.0 / ranks)),
        "hits_at_1": float(np.mean(ranks <= 1)),
        "hits_at_3": float(np.mean(ranks <= 3)),
        "hits_at_10": float(np.mean(ranks <= 10)),
        "n": int(len(ranks)),
    }


def transe_scores_fn(ent: np.ndarray, rel: np.ndarray) -> Callable[[np.ndarray, bool], np.ndarray]:
    def scores(batch: np.ndarray, tails: bool) -> np.ndarray:
        if tails:
            return -_distances(ent[batch[:, 0]] + rel[batch[:, 1]], ent)
        return -_distances(ent[batch[:, 2]] - rel[batch[:, 1]], ent)

    return scores


def rank_metrics(
    ent: np.ndarray,
    rel: np.ndarray,
    triples: np.ndarray,
    known_keys: np.ndarray,
    n_relations: int,
) -> dict[str, float]:
    """Filtered both-sides MRR and Hits@k of a TransE model on ``triples``."""
    ranks = filtered_ranks(transe_scores_fn(ent, rel), triples, known_keys, len(ent), n_relations)
    return rank_summary(ranks)
