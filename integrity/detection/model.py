"""The learned pair model: logistic regression over ``features.FEATURE_NAMES``, its
coefficients in ``pair_model.json`` beside this file (written by ``train``), loaded on
first use. A head may hold several regressions (members, one per regularisation
strength: round 5) whose probabilities are averaged.

It answers calibrated probabilities of contradiction, duplicate and compatible; the
decision turns them into a verdict with cut-offs learned inside the training folds for
what reaches the curator (``train.utility``), not for accuracy: a duplicate needs
``p(duplicate) >= duplicate_min`` (and the duplicate guard's consent), a contradiction
``p(contradiction) >= contradiction_min`` (when the head has one; else the likeliest
class), and a likely duplicate below its cut-off (from ``doubt_min``) or a pair with
``p(contradiction) >= uncertain_min`` goes to a person as ``uncertain``. The file
records the encoder each head's cosine feature came from; a caller whose encoder
differs gets the head trained without one (``none``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .features import EMBEDDING_NAMES, FEATURE_NAMES

MODEL_PATH = Path(__file__).with_name("pair_model.json")
CLASSES = ("contradiction", "duplicate", "compatible")


@dataclass(frozen=True)
class Head:
    """One fitted model: standardisation, coefficients and the decision cut-offs."""

    encoder: str
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray  # (members x classes, features): one block of three rows a member
    intercept: np.ndarray
    duplicate_min: float
    uncertain_min: float
    doubt_min: float = 1.01
    contradiction_min: float | None = None

    @property
    def reads_more_than_the_cosine(self) -> bool:
        """Whether any embedding column beyond the statements' cosine weighs anything
        (else the caller encodes the two statements only)."""
        at = [FEATURE_NAMES.index(name) for name in EMBEDDING_NAMES[3:]]
        return bool(np.any(self.coef[:, at]))

    def verdict(self, p: np.ndarray, *, blocked: bool, opposed: bool = False) -> str:
        """``decide`` with this head's cut-offs."""
        return decide(
            p,
            blocked=blocked,
            opposed=opposed,
            duplicate_min=self.duplicate_min,
            uncertain_min=self.uncertain_min,
            doubt_min=self.doubt_min,
            contradiction_min=self.contradiction_min,
        )

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """The classes' probabilities of each row: with several members (``coef`` rows
        in blocks of three, one block a member), the mean of their probabilities."""
        z = (np.atleast_2d(rows) - self.mean) / self.scale
        logits = z @ self.coef.T + self.intercept
        logits = logits.reshape(len(logits), -1, len(CLASSES))
        logits -= logits.max(axis=2, keepdims=True)
        e = np.exp(logits)
        return (e / e.sum(axis=2, keepdims=True)).mean(axis=1)

    def as_dict(self) -> dict:
        return {
            "encoder": self.encoder,
            "mean": self.mean.round(8).tolist(),
            "scale": self.scale.round(8).tolist(),
            "coef": self.coef.round(8).tolist(),
            "intercept": self.intercept.round(8).tolist(),
            "duplicate_min": self.duplicate_min,
            "uncertain_min": self.uncertain_min,
            "doubt_min": self.doubt_min,
            "contradiction_min": self.contradiction_min,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Head:
        return cls(
            encoder=data["encoder"],
            mean=np.asarray(data["mean"], dtype=np.float64),
            scale=np.asarray(data["scale"], dtype=np.float64),
            coef=np.asarray(data["coef"], dtype=np.float64),
            intercept=np.asarray(data["intercept"], dtype=np.float64),
            duplicate_min=float(data["duplicate_min"]),
            uncertain_min=float(data["uncertain_min"]),
            doubt_min=float(data.get("doubt_min", 1.01)),
            contradiction_min=(
                None if data.get("contradiction_min") is None else float(data["contradiction_min"])
            ),
        )


def decide(
    p: np.ndarray,
    *,
    blocked: bool,
    duplicate_min: float,
    uncertain_min: float,
    doubt_min: float = 1.01,
    contradiction_min: float | None = None,
    opposed: bool = False,
) -> str:
    """A verdict from the probabilities (contradiction, duplicate, compatible).

    A duplicate needs ``duplicate_min`` and the guard's consent; a likely duplicate
    below it (``doubt_min`` and up) or one the guard forbids goes to a person, like a
    compatible pair whose contradiction probability reaches ``uncertain_min``: a wrong
    duplicate loses a fact, a wrong ``uncertain`` costs a curator a glance. With
    ``contradiction_min`` a contradiction needs that probability instead of being the
    likeliest class. A pair the guard refuses as an opposite (``guard.opposed``: a
    negation or a negative-prefixed word on one side only) whose likeliest class is
    duplicate is the same statement said the other way: a contradiction (round 17;
    it was answered compatible when its contradiction probability stayed low)."""
    contradiction, duplicate, compatible = (float(x) for x in p)
    if opposed and duplicate >= max(contradiction, compatible):
        return "contradiction"
    if contradiction_min is not None:
        if duplicate >= duplicate_min and duplicate >= contradiction and not blocked:
            return "duplicate"
        if contradiction >= contradiction_min:
            return "contradiction"
        if contradiction >= uncertain_min or duplicate >= doubt_min:
            return "uncertain"
        return "compatible"
    if duplicate >= max(contradiction, compatible):
        if not blocked and duplicate >= duplicate_min:
            return "duplicate"
        if duplicate >= doubt_min:
            return "uncertain"
    elif contradiction >= compatible:
        return "contradiction"
    return "uncertain" if contradiction >= uncertain_min else "compatible"


@dataclass(frozen=True)
class PairModel:
    heads: dict[str, Head]  # by encoder signature ("none": no embedding feature)
    feature_names: tuple[str, ...]

    def head_for(self, encoder: str | None) -> Head:
        return self.heads.get(encoder or "none") or self.heads["none"]


class ModelFileError(RuntimeError):
    """The model file is missing or was written for other features."""


@lru_cache(maxsize=2)
def load(path: str = str(MODEL_PATH)) -> PairModel:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"{path}: cannot read the pair model ({exc})") from exc
    names = tuple(data.get("features", ()))
    if not names or any(name not in FEATURE_NAMES for name in names):
        raise ModelFileError(
            f"{path} was trained on other features; run manage.py train_pair_model"
        )
    heads = {key: _widened(Head.from_dict(head), names) for key, head in data["heads"].items()}
    if "none" not in heads:
        raise ModelFileError(f"{path} has no head without an encoder")
    return PairModel(heads=heads, feature_names=FEATURE_NAMES)


def _widened(head: Head, names: tuple[str, ...]) -> Head:
    """The head over every column of ``FEATURE_NAMES``: a file written before a feature
    was added still loads, the columns it lacks weighing nothing."""
    if names == FEATURE_NAMES:
        return head
    at = [FEATURE_NAMES.index(name) for name in names]
    mean, scale = np.zeros(len(FEATURE_NAMES)), np.ones(len(FEATURE_NAMES))
    coef = np.zeros((head.coef.shape[0], len(FEATURE_NAMES)))
    mean[at], scale[at], coef[:, at] = head.mean, head.scale, head.coef
    return Head(
        head.encoder,
        mean,
        scale,
        coef,
        head.intercept,
        head.duplicate_min,
        head.uncertain_min,
        head.doubt_min,
        head.contradiction_min,
    )


def save(path: Path, heads: dict[str, Head], meta: dict) -> None:
    data = {
        "features": list(FEATURE_NAMES),
        "classes": list(CLASSES),
        "heads": {key: head.as_dict() for key, head in heads.items()},
        **meta,
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    load.cache_clear()
