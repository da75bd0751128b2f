"""TransE on a synthetic graph it has never seen whole: held-out triples must rank high."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from entities.graph.services import calibrate, split_triples
from entities.graph.transe import (
    TransEConfig,
    rank_metrics,
    train_transe,
    transe_scores_fn,
    triple_keys,
    triple_scores,
)

MEMBER_OF, WORKS_AT, LOCATED_IN = 0, 1, 2


def team_graph(seed: int = 7):
    """6 companies in 3 cities, 2 teams per company, 8 people per team. Everyone is a
    member of a team; most people's employer is stated; the rest are held out."""
    rng = np.random.default_rng(seed)
    companies = list(range(6))
    cities = [6, 7, 8]
    teams = list(range(9, 21))
    people = list(range(21, 21 + 96))
    triples, held = [], []
    for c in companies:
        triples.append((c, LOCATED_IN, cities[c % 3]))
    for i, team in enumerate(teams):
        triples.append((team, MEMBER_OF, companies[i // 2]))
    for j, person in enumerate(people):
        team = teams[j // 8]
        company = companies[(j // 8) // 2]
        triples.append((person, MEMBER_OF, team))
        (held if rng.random() < 0.15 else triples).append((person, WORKS_AT, company))
    return np.array(triples), np.array(held), 21 + 96, 3


def test_held_out_triples_rank_above_their_corruptions():
    train, held, n_e, n_r = team_graph()
    assert len(held) >= 8
    cfg = TransEConfig(dim=32, epochs=60, seed=1, eval_every=5, patience=3)
    fit, valid = split_triples(train, 0.1, seed=1)
    result = train_transe(fit, n_e, n_r, config=cfg, valid=valid, known=train)
    known = triple_keys(np.concatenate([train, held]), n_e, n_r)
    metrics = rank_metrics(result.entities, result.relations, held, known, n_r)
    # 117 entities: a model that learned nothing ranks the true company ~59th.
    assert metrics["mrr"] > 0.5, metrics
    assert metrics["hits_at_10"] > 0.9, metrics
    # Every held-out employer outranks every other company as the person's employer.
    scores = transe_scores_fn(result.entities, result.relations)(held, True)
    companies = scores[:, :6]
    assert (companies.argmax(1) == held[:, 2]).mean() >= 0.9


def test_training_stops_once_validation_stops_improving_and_keeps_the_best_check():
    train, _held, n_e, n_r = team_graph()
    fit, valid = split_triples(train, 0.1, seed=1)
    result = train_transe(
        fit, n_e, n_r, config=TransEConfig(dim=32, epochs=400, seed=1), valid=valid, known=train
    )
    checks = [h["valid_mrr"] for h in result.history if "valid_mrr" in h]
    assert result.epochs < 400  # converged long before the budget
    assert result.best_valid_mrr == max(checks)
    # Stopped after two checks in a row that did not beat the best by 2 %.
    n = len(checks)
    assert all(checks[i] <= max(checks[:i]) * 1.02 for i in (n - 2, n - 1)), checks
    # The kept vectors are the best check's: they rank the validation split as it scored.
    keys = triple_keys(train, n_e, n_r)
    kept = rank_metrics(result.entities, result.relations, valid, keys, n_r)["mrr"]
    assert kept == pytest.approx(result.best_valid_mrr, abs=1e-6)


def test_training_is_reproducible_with_a_seed():
    train, _held, n_e, n_r = team_graph()
    cfg = TransEConfig(dim=16, epochs=4, seed=3, eval_every=100)
    a = train_transe(train, n_e, n_r, config=cfg)
    b = train_transe(train, n_e, n_r, config=cfg)
    assert np.allclose(a.entities, b.entities)


def test_entity_vectors_are_unit_length_so_cosine_ranks_like_distance():
    train, _held, n_e, n_r = team_graph()
    result = train_transe(train, n_e, n_r, config=TransEConfig(dim=16, epochs=5, eval_every=100))
    ent, rel = result.entities, result.relations
    assert np.allclose(np.linalg.norm(ent, axis=1), 1.0, atol=1e-5)
    h, r = 30, WORKS_AT
    query = ent[h] + rel[r]
    by_distance = np.argsort(np.linalg.norm(ent - query, axis=1), kind="stable")
    by_cosine = np.argsort(-(ent @ query) / np.linalg.norm(query), kind="stable")
    assert list(by_distance[:20]) == list(by_cosine[:20])


def test_calibration_puts_true_triples_above_the_valid_threshold():
    train, held, n_e, n_r = team_graph()
    result = train_transe(train, n_e, n_r, config=TransEConfig(dim=32, epochs=40, seed=2))
    pos = triple_scores(result.entities, result.relations, held)
    corrupted = held.copy()
    corrupted[:, 2] = 6  # a city is nobody's employer
    neg = triple_scores(result.entities, result.relations, corrupted)
    cal = calibrate(pos, neg)
    assert cal["unlikely"] <= cal["valid"]
    assert np.mean(pos >= cal["valid"]) >= 0.8
    assert np.mean(neg < cal["valid"]) >= 0.8
    confidence = 1 / (1 + np.exp(-(cal["a"] * pos.mean() + cal["b"])))
    assert confidence > 0.5


def test_sampled_negatives_train_sparsely_as_well_as_densely():
    """With fewer negatives than entities a step updates only the rows it touched (the
    batch and its negatives; lazy Adam): held-out employers rank as high as with dense
    updates of every row."""
    train, held, n_e, n_r = team_graph()
    cfg = TransEConfig(dim=32, epochs=60, seed=1, negatives=64, eval_every=100)
    known = triple_keys(np.concatenate([train, held]), n_e, n_r)
    found = {}
    for mode in ("auto", "no"):
        result = train_transe(train, n_e, n_r, config=replace(cfg, sparse=mode))
        found[mode] = rank_metrics(result.entities, result.relations, held, known, n_r)
    assert found["auto"]["hits_at_10"] > 0.8, found
    assert found["auto"]["mrr"] > found["no"]["mrr"] - 0.1, found


def test_calibration_holds_wherever_the_scores_lie():
    """L1 distances of 64 dimensions are several units: the Platt fit must not diverge
    when the scores lie far from 0 (plain Newton from (1, 0) did)."""
    rng = np.random.default_rng(4)
    pos, neg = rng.normal(-1.0, 0.3, 40), rng.normal(-2.5, 0.4, 40)
    near = calibrate(pos, neg)
    for offset in (-8.0, -40.0):
        far = calibrate(pos + offset, neg + offset)
        assert far["valid"] == pytest.approx(near["valid"] + offset, abs=1e-3)
        assert far["a"] == pytest.approx(near["a"], rel=1e-3)
        assert np.mean(pos + offset >= far["valid"]) >= 0.9


def test_a_model_is_scored_with_the_distance_it_was_trained_with():
    train, held, n_e, n_r = team_graph()
    known = triple_keys(np.concatenate([train, held]), n_e, n_r)
    for norm in (1, 2):
        cfg = TransEConfig(dim=32, epochs=40, seed=2, norm=norm)
        result = train_transe(train, n_e, n_r, config=cfg)
        own = rank_metrics(result.entities, result.relations, held, known, n_r, norm)
        assert own["mrr"] > 0.5, (norm, own)
        h, r, t = held[0]
        diff = result.entities[h] + result.relations[r] - result.entities[t]
        manual = -np.abs(diff).sum() if norm == 1 else -np.linalg.norm(diff)
        assert triple_scores(result.entities, result.relations, held[:1], norm)[0] == (
            pytest.approx(manual, rel=1e-5)
        )
