"""The duplicate scorer: general features of a pair of entities, weighed by a logistic
model whose weights ``manage.py train_duplicates`` fits (``duplicate_weights.json``).

A pair is described by each side's *profile*: its names (canonical name and aliases),
its type, the facts it is linked to, its neighbours (the other entities on those facts)
and the mean embedding of its facts' texts and description. The same feature function
serves training (profiles built from the development files) and the scan (profiles
built from the database), so what was measured is what runs.

Pure Python and numpy: no Django, so training and tests can call it directly.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz

WEIGHTS_FILE = Path(__file__).with_name("duplicate_weights.json")
# What the queue keeps: below the model's best-F0.5 cut-off, so that a duplicate only its
# facts reveal (names in common: none) still reaches a curator, ranked under the pairs
# whose names agree. ``train_duplicates`` prints its held-out precision and recall.
QUEUE_FLOOR = 0.15

FEATURES = (
    "name_similarity",  # best WRatio between any name of one side and any of the other
    "content_similarity",  # token-set ratio of the names without abbreviations
    "name_shared",  # a name or alias of one side is a name or alias of the other
    "same_type",
    "numbered_names",  # the names differ only by their numbers ("file1.txt"/"file2.txt")
    "shared_facts",  # overlap coefficient of the facts they are linked to
    "shared_neighbours",  # overlap coefficient of their neighbours
    "fact_similarity",  # cosine of the mean embeddings of their facts and descriptions
    "both_described",  # both sides have facts or a description (the two above mean something)
)

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


@dataclass
class Profile:
    """What the scorer knows of one entity."""

    names: list[str]  # canonical name first, then aliases; normalised and folded
    type: str = ""
    facts: set = field(default_factory=set)
    neighbours: set = field(default_factory=set)
    vector: np.ndarray | None = None  # unit mean embedding of fact texts and description


def content_words(name: str) -> str:
    """A name without its abbreviations (titles, initials): "mr. a. pemberton" ->
    "pemberton". A name of abbreviations only stays whole."""
    words = [w for w in name.split() if not w.endswith(".") and len(w.strip(".,'")) > 2]
    return " ".join(words) if words else name


def _overlap(a: set, b: set) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def _numbered(a: str, b: str) -> bool:
    digits_a, digits_b = _DIGITS.findall(a), _DIGITS.findall(b)
    if not (digits_a or digits_b) or digits_a == digits_b:
        return False
    strip = lambda s: _SPACES.sub(" ", _DIGITS.sub("#", s)).strip()  # noqa: E731
    return strip(a) == strip(b)


def pair_features(a: Profile, b: Profile) -> dict[str, float]:
    """The features of a pair, each in [0, 1]."""
    names_a, names_b = a.names[:8], b.names[:8]
    name = max((fuzz.WRatio(x, y) for x in names_a for y in names_b), default=0.0) / 100
    content = (
        max(
            (
                fuzz.token_set_ratio(content_words(x), content_words(y))
                for x in names_a
                for y in names_b
            ),
            default=0.0,
        )
        / 100
    )
    cosine = 0.0
    if a.vector is not None and b.vector is not None:
        cosine = max(0.0, float(np.dot(a.vector, b.vector)))
    return {
        "name_similarity": name,
        "content_similarity": content,
        "name_shared": float(bool(set(names_a) & set(names_b))),
        "same_type": float(a.type == b.type),
        "numbered_names": float(bool(names_a and names_b) and _numbered(names_a[0], names_b[0])),
        "shared_facts": _overlap(a.facts, b.facts),
        "shared_neighbours": _overlap(a.neighbours, b.neighbours),
        "fact_similarity": cosine,
        "both_described": float(a.vector is not None and b.vector is not None),
    }


@dataclass(frozen=True)
class Model:
    weights: dict[str, float]
    bias: float
    threshold: float

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias + sum(self.weights.get(k, 0.0) * v for k, v in features.items())
        return 1 / (1 + math.exp(-z))


@lru_cache(maxsize=1)
def model() -> Model:
    """The fitted weights shipped with the code."""
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    return Model(weights=data["weights"], bias=data["bias"], threshold=data["threshold"])


def mean_vector(vectors: np.ndarray) -> np.ndarray | None:
    if not len(vectors):
        return None
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm else None
