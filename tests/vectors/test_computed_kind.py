"""A kind whose vectors are computed elsewhere (a trained model's entity vectors): the
vectors room stores and searches them like embedded texts, and re-asks for a vector
whenever the row's version string or the model's signature changes."""

from __future__ import annotations

import numpy as np
import pytest

from kgsite.vectors import service
from kgsite.vectors.index import KINDS, register_kind
from tests.conftest import restart

DIM = 8
MODEL: dict[str, object] = {}


def _vector(key: int) -> np.ndarray:
    vec = np.asarray(MODEL["vectors"][key], dtype=np.float32)
    return vec / np.linalg.norm(vec)


def _rows(ids):
    keys = sorted(MODEL["vectors"]) if ids is None else [k for k in ids if k in MODEL["vectors"]]
    return [(k, f"{MODEL['version']}:{k}") for k in keys]


def _register(signature: str) -> None:
    register_kind(
        "points",
        _rows,
        vectors=lambda pairs: np.stack([_vector(k) for k, _version in pairs]),
        dim=DIM,
        signature=signature,
    )


@pytest.fixture
def points(vector_dir):
    rng = np.random.default_rng(7)
    MODEL.clear()
    MODEL.update(version="v1", vectors={k: rng.normal(size=DIM) for k in range(1, 41)})
    _register("model-1")
    yield MODEL
    KINDS.pop("points", None)


def test_vectors_from_the_kind_are_searched_by_cosine(points):
    query = _vector(17) + 0.01
    hits = service.search_vector("points", query, 3)
    assert hits[0][0] == 17
    exact = sorted(
        points["vectors"], key=lambda k: -float(_vector(k) @ (query / np.linalg.norm(query)))
    )
    assert [key for key, _score in hits] == exact[:3]


def test_a_new_version_string_makes_the_index_ask_again(points):
    service.search_vector("points", _vector(5), 1)  # built
    points["vectors"][5] = -points["vectors"][5]
    points["version"] = "v2"
    service.vector_upsert("points", [5])
    assert service.search_vector("points", _vector(5), 1)[0][0] == 5
    assert service.vector_index("points").hash_of(5) is not None


def test_an_index_built_by_another_model_is_rebuilt(points):
    service.search_vector("points", _vector(3), 1)
    rng = np.random.default_rng(99)
    points["vectors"] = {k: rng.normal(size=DIM) for k in points["vectors"]}
    _register("model-2")
    restart()  # a new process: only the files on disk, written by model-1
    assert service.search_vector("points", _vector(3), 1)[0][0] == 3


def test_a_computed_kind_needs_its_dimension_and_model(vector_dir):
    with pytest.raises(ValueError, match="dim and signature"):
        register_kind("broken", _rows, vectors=lambda pairs: np.zeros((len(pairs), DIM)))
    assert "broken" not in KINDS
