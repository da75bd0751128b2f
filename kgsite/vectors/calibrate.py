"""ef_search from the index's own data: the smallest value that reaches a recall target.

HNSW's recall at a given ``ef_search`` falls as the index grows (at 1M facts, 256 gave
0.79 recall@10 with hnswlib and 0.92 with pgvector), so one number cannot fit a store of
a thousand facts and one of a million. ``manage.py calibrate_vectors`` measures it on the
live index, for either backend: queries near stored vectors (a stored vector mixed with
another and a little noise, as a paraphrase sits near its original), their exact
nearest neighbours by brute force over every stored vector, then recall@k of the index
at growing ``ef_search`` until the target is reached. The choice is kept beside the
index (``KGSITE_VECTOR_DIR/<kind>/calibration.json``) with the size it was measured
at; a process reads it when it opens the index, while the live count is within a factor
``VALID_GROWTH`` of that size (after that the setting applies again, until the next
calibration).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings

from .kinds import _write_atomic

if TYPE_CHECKING:
    from .backend import VectorBackend

EF_STEPS = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1000)
VALID_GROWTH = 2.0
# How far a query sits from the stored vector it comes from (a paraphrase, not a copy).
MIX, NOISE = 0.35, 0.025


@dataclass
class Calibration:
    kind: str
    backend: str
    live: int
    k: int
    target: float
    ef_search: int
    reached: bool
    signature: str
    # ef_search -> (recall@k, p50 search ms), every step tried.
    steps: dict[int, tuple[float, float]] = field(default_factory=dict)
    seconds: float = 0.0


def _path(kind: str) -> Path:
    return Path(settings.KGSITE_VECTOR_DIR) / kind / "calibration.json"


def _queries(matrix: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    base = matrix[rng.choice(len(matrix), size=count, replace=len(matrix) < count)]
    other = matrix[rng.integers(0, len(matrix), size=count)]
    noise = rng.normal(0.0, NOISE, size=base.shape).astype(np.float32)
    mixed = base + MIX * other + noise
    return mixed / np.linalg.norm(mixed, axis=1, keepdims=True)


def calibrate(
    index: VectorBackend, *, target: float = 0.95, k: int = 10, queries: int = 200, seed: int = 0
) -> Calibration:
    """Measure recall@k of ``index`` at growing ef_search; the first to reach ``target``
    wins (the largest tried when none does: ``reached`` is then false)."""
    started = time.perf_counter()
    keys, matrix = index.vectors()
    if len(keys) == 0:
        raise ValueError(f"the {index.kind.name} index is empty: nothing to calibrate on")
    k = min(k, len(keys))
    rng = np.random.default_rng(seed)
    probes = _queries(matrix.astype(np.float32), queries, rng)
    scores = probes @ matrix.T
    exact = [set(np.asarray(keys)[np.argpartition(-row, k - 1)[:k]].tolist()) for row in scores]
    configured = index.ef_search
    steps: dict[int, tuple[float, float]] = {}
    chosen, reached = EF_STEPS[-1], False
    try:
        for ef in EF_STEPS:
            index.ef_search = ef
            found, times = 0, []
            for probe, truth in zip(probes, exact, strict=True):
                t0 = time.perf_counter()
                hits = index.search(probe, k)
                times.append((time.perf_counter() - t0) * 1000)
                found += len(truth & {key for key, _score in hits})
            recall = found / (k * len(probes))
            steps[ef] = (round(recall, 4), round(float(np.median(times)), 3))
            if recall >= target:
                chosen, reached = ef, True
                break
    finally:
        index.ef_search = configured
    return Calibration(
        kind=index.kind.name,
        backend=type(index).__name__,
        live=len(keys),
        k=k,
        target=target,
        ef_search=chosen,
        reached=reached,
        signature=str(getattr(index, "signature", "")),
        steps=steps,
        seconds=round(time.perf_counter() - started, 2),
    )


def calibration_save(result: Calibration) -> Path:
    path = _path(result.kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, json.dumps(asdict(result), indent=1).encode())
    return path


def calibrated_ef(kind: str, *, live: int | None, signature: str, default: int) -> int:
    """The calibrated ef_search of ``kind`` if one fits this index (same embedder, size
    within ``VALID_GROWTH``), else ``default`` (the setting)."""
    if not getattr(settings, "KGSITE_HNSW_CALIBRATED", True):
        return default
    try:
        saved = json.loads(_path(kind).read_text())
    except (OSError, ValueError):
        return default
    # A file of another shape (edited by hand, another version) is no calibration: every
    # search of the kind failed on it.
    if not isinstance(saved, dict) or not all(
        isinstance(saved.get(name), int) and not isinstance(saved.get(name), bool)
        for name in ("ef_search", "live")
    ):
        return default
    if saved.get("signature") != signature:
        return default
    if live is not None and not (
        saved["live"] / VALID_GROWTH <= max(live, 1) <= saved["live"] * VALID_GROWTH
    ):
        return default
    return saved["ef_search"]


class CalibratedEf:
    """``ef_search`` of a backend: the calibrated value when one fits, else the setting;
    read on first use (the live count is known then). Assigning it (benchmarks, the
    calibration itself) sets it for this process."""

    kind: object
    signature: str
    _ef_setting: int
    _ef: int | None = None

    @property
    def ef_search(self) -> int:
        if self._ef is None:
            live = self.live_count
            if not live:  # not loaded yet (or empty): decide once there is something
                return self._ef_setting
            self._ef = calibrated_ef(
                self.kind.name,
                live=live,
                signature=str(getattr(self, "signature", "")),
                default=self._ef_setting,
            )
        return self._ef

    @ef_search.setter
    def ef_search(self, value: int) -> None:
        self._ef = int(value)
