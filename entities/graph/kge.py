"""The stored TransE model as the APIs use it: unpacked once per process, calibrated, and
its entity and relation vectors served by the vectors room as computed-vector kinds.

The kinds ("kge_entities", "kge_relations") are registered when a process first loads
a model, with the model's id as signature: a newer model re-registers them and the
index built for the old one is rebuilt (training rebuilds them on the spot).

A model is trained for one view of the memory (``KGEModel.scope``/``all_scopes``): global
memory only, one project plus global memory, or every project. A reader is answered by
the model of its own view, or else by the global-only one (whose triples every reader
may see), never by a model that learned from facts the reader cannot see. Views other
than global memory have kinds of their own (a suffix from the view).
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from kgsite.vectors.index import Key, register_kind

from ..scopes import ScopeFilter
from .models import KGEModel
from .transe import distance

ENTITY_KIND = "kge_entities"
RELATION_KIND = "kge_relations"


def pack(entity_ids: Sequence[str], ent: np.ndarray, relations: Sequence[str], rel: np.ndarray):
    buffer = io.BytesIO()
    np.savez(
        buffer,
        entity_ids=np.asarray(list(entity_ids), dtype=str),
        entities=np.asarray(ent, dtype=np.float32),
        relations=np.asarray(list(relations), dtype=str),
        relation_vectors=np.asarray(rel, dtype=np.float32),
    )
    return buffer.getvalue()


@dataclass
class Calibration:
    """Platt scaling of TransE scores, and the two label thresholds (scores)."""

    a: float
    b: float
    valid: float
    unlikely: float

    @classmethod
    def from_dict(cls, data: dict) -> Calibration:
        return cls(
            a=float(data["a"]),
            b=float(data["b"]),
            valid=float(data["valid"]),
            unlikely=float(data["unlikely"]),
        )

    def confidence(self, score: float | np.ndarray) -> np.ndarray:
        z = np.clip(self.a * np.asarray(score, dtype=np.float64) + self.b, -50, 50)
        return 1.0 / (1.0 + np.exp(-z))

    def label(self, score: float) -> str:
        if score >= self.valid:
            return "valid"
        if score < self.unlikely:
            return "unlikely"
        return "uncertain"


class LoadedModel:
    """One model's vectors and vocabulary in memory."""

    def __init__(self, row: KGEModel) -> None:
        data = np.load(io.BytesIO(bytes(row.blob)), allow_pickle=False)
        self.id = row.pk
        self.signature = f"transe-{row.pk}"
        self.view = (row.scope, row.all_scopes)
        self.entity_kind, self.relation_kind = view_kinds(row.scope, row.all_scopes)
        self.entity_ids: list[str] = [str(e) for e in data["entity_ids"]]
        self.entities: np.ndarray = data["entities"]
        self.relation_names: list[str] = [str(r) for r in data["relations"]]
        self.relations: np.ndarray = data["relation_vectors"]
        self.entity_index = {e: i for i, e in enumerate(self.entity_ids)}
        self.relation_index = {r: i for i, r in enumerate(self.relation_names)}
        self.calibration = Calibration.from_dict(row.thresholds)
        self.functional: dict[str, bool] = dict(row.metrics.get("functional", {}))
        self.dim = int(self.entities.shape[1]) if self.entities.size else int(row.dim)
        # Models stored before the setting existed were trained with L2.
        self.norm = int(row.settings.get("norm", 2))

    def score(self, head: str, relation: str, tail: str) -> float:
        h = self.entities[self.entity_index[head]]
        r = self.relations[self.relation_index[relation]]
        t = self.entities[self.entity_index[tail]]
        return -float(distance(h + r - t, self.norm))

    def relation_scores(self, head: str, tail: str) -> np.ndarray:
        """Score of (head, r, tail) for every relation r, in ``relation_names`` order."""
        diff = self.entities[self.entity_index[tail]] - self.entities[self.entity_index[head]]
        return -distance(self.relations - diff[None, :], self.norm)

    def query(self, entity: str, relation: str, outgoing: bool) -> np.ndarray:
        """Where the answers should lie: h + r for tails, t - r for heads."""
        e = self.entities[self.entity_index[entity]]
        r = self.relations[self.relation_index[relation]]
        return e + r if outgoing else e - r

    def distances(self, query: np.ndarray, ids: Iterable[str]) -> dict[str, float]:
        ids = [i for i in ids if i in self.entity_index]
        if not ids:
            return {}
        rows = self.entities[[self.entity_index[i] for i in ids]]
        scores = -distance(rows - query[None, :], self.norm)
        return dict(zip(ids, scores.tolist(), strict=True))

    # --- vectors-room kinds ---------------------------------------------------------------

    def _entity_rows(self, ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:
        wanted = self.entity_ids if ids is None else [i for i in ids if i in self.entity_index]
        return ((i, self.signature) for i in wanted)

    def _entity_vectors(self, pairs: Sequence[tuple[Key, str]]) -> np.ndarray:
        return self.entities[[self.entity_index[k] for k, _ in pairs]]

    def _relation_rows(self, ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:
        wanted = (
            self.relation_names if ids is None else [i for i in ids if i in self.relation_index]
        )
        return ((i, self.signature) for i in wanted)

    def _relation_vectors(self, pairs: Sequence[tuple[Key, str]]) -> np.ndarray:
        return self.relations[[self.relation_index[k] for k, _ in pairs]]

    def register_kinds(self) -> None:
        register_kind(
            self.entity_kind,
            self._entity_rows,
            keys=lambda: self.entity_ids,
            count=lambda: len(self.entity_ids),
            key_type=str,
            vectors=self._entity_vectors,
            dim=self.dim,
            signature=self.signature,
        )
        register_kind(
            self.relation_kind,
            self._relation_rows,
            keys=lambda: self.relation_names,
            count=lambda: len(self.relation_names),
            key_type=str,
            vectors=self._relation_vectors,
            dim=self.dim,
            signature=self.signature,
        )


def view_kinds(scope: str, all_scopes: bool) -> tuple[str, str]:
    """The vector kinds of a view's model: the plain names for global memory."""
    if not scope and not all_scopes:
        return ENTITY_KIND, RELATION_KIND
    digest = hashlib.sha1(f"{int(all_scopes)}:{scope}".encode()).hexdigest()[:12]
    return f"{ENTITY_KIND}-{digest}", f"{RELATION_KIND}-{digest}"


def view_of(scopes: ScopeFilter | None) -> tuple[str, bool]:
    """The (scope, all_scopes) view a reader's model is trained on."""
    scopes = scopes or ScopeFilter()
    return ("", True) if scopes.all_scopes else (scopes.scope, False)


_lock = threading.Lock()
_loaded: dict[tuple[str, bool], LoadedModel] = {}


def latest_good_id(scope: str = "", all_scopes: bool = False) -> int | None:
    return (
        KGEModel.objects.filter(
            status=KGEModel.Status.READY, good=True, scope=scope, all_scopes=all_scopes
        )
        .order_by("-created_at", "-id")
        .values_list("pk", flat=True)
        .first()
    )


def model_current(scopes: ScopeFilter | None = None) -> LoadedModel | None:
    """The latest good model a reader may be answered by, loaded once per process (one
    indexed query per view to see whether a newer one was trained meanwhile): the one of
    the reader's own view, else the global-memory one."""
    scope, all_scopes = view_of(scopes)
    model = model_of_view(scope, all_scopes)
    if model is None and (scope or all_scopes):
        model = model_of_view("", False)
    return model


def model_of_view(scope: str, all_scopes: bool) -> LoadedModel | None:
    model_id = latest_good_id(scope, all_scopes)
    if model_id is None:
        return None
    key = (scope, all_scopes)
    loaded = _loaded.get(key)
    if loaded is not None and loaded.id == model_id:
        return loaded
    with _lock:
        loaded = _loaded.get(key)
        if loaded is None or loaded.id != model_id:
            loaded = LoadedModel(KGEModel.objects.get(pk=model_id))
            loaded.register_kinds()
            _loaded[key] = loaded
    return loaded


def model_forget() -> None:
    """Drop the loaded models (tests)."""
    with _lock:
        _loaded.clear()
