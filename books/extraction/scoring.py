"""Learned decisions over a document's terms: is it an entity, of which type, which
chunk defines it.

Three logistic regressions over the features of ``books.extraction.termhood``, trained
by ``manage.py train_extraction`` on annotated documents and stored as JSON beside this
module (a few kilobytes). Prediction needs only numpy; scikit-learn trains.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).with_name("extraction_weights.json")
# Bump when the features change: weights of another version are not used.
FEATURES_VERSION = 14


@dataclass
class Linear:
    """A standardised linear model: one row of weights per class (one for a yes/no)."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    classes: tuple[str, ...] = ()
    threshold: float = 0.5

    def _z(self, rows: Sequence[Sequence[float]]) -> np.ndarray:
        x = (np.asarray(rows, dtype=float) - self.mean) / self.scale
        return x @ self.coef.T + self.intercept

    def proba(self, rows: Sequence[Sequence[float]]) -> np.ndarray:
        """P(yes) per row for a binary model; class probabilities per row otherwise."""
        if not len(rows):
            return np.zeros((0,) if not self.classes else (0, len(self.classes)))
        z = self._z(rows)
        if not self.classes:
            return 1.0 / (1.0 + np.exp(-z[:, 0]))
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def to_json(self) -> dict:
        return {
            "mean": self.mean.round(6).tolist(),
            "scale": self.scale.round(6).tolist(),
            "coef": self.coef.round(6).tolist(),
            "intercept": self.intercept.round(6).tolist(),
            "classes": list(self.classes),
            "threshold": round(float(self.threshold), 4),
        }

    @classmethod
    def from_json(cls, data: dict) -> Linear:
        return cls(
            mean=np.asarray(data["mean"], dtype=float),
            scale=np.asarray(data["scale"], dtype=float),
            coef=np.asarray(data["coef"], dtype=float),
            intercept=np.asarray(data["intercept"], dtype=float),
            classes=tuple(data.get("classes", ())),
            threshold=float(data.get("threshold", 0.5)),
        )


@dataclass
class Scorer:
    entity: Linear
    type: Linear
    define: Linear
    info: dict

    def to_json(self) -> dict:
        return {
            "version": FEATURES_VERSION,
            "entity": self.entity.to_json(),
            "type": self.type.to_json(),
            "define": self.define.to_json(),
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict) -> Scorer | None:
        if data.get("version") != FEATURES_VERSION:
            return None
        return cls(
            entity=Linear.from_json(data["entity"]),
            type=Linear.from_json(data["type"]),
            define=Linear.from_json(data["define"]),
            info=data.get("info", {}),
        )


_OVERRIDE: list[Scorer | None] = []


@lru_cache(maxsize=1)
def _stored() -> Scorer | None:
    if not WEIGHTS.is_file():
        return None
    return Scorer.from_json(json.loads(WEIGHTS.read_text(encoding="utf-8")))


def scorer_get() -> Scorer | None:
    """The scorer in use: an override (training folds) or the stored weights."""
    return _OVERRIDE[-1] if _OVERRIDE else _stored()


@contextmanager
def scorer_override(scorer: Scorer | None) -> Iterator[None]:
    """Use ``scorer`` (None: the hand rules) for extraction inside the block."""
    _OVERRIDE.append(scorer)
    try:
        yield
    finally:
        _OVERRIDE.pop()


def scorer_save(scorer: Scorer, path: Path = WEIGHTS) -> None:
    path.write_text(json.dumps(scorer.to_json(), indent=0) + "\n", encoding="utf-8")
    _stored.cache_clear()
