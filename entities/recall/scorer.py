"""Is this memory relevant to what the agent is doing? A logistic regression per
trigger over the general features of ``recall.retrieval``, and the probability at
which a trigger shows a memory, both learned by ``manage.py train_recall`` on the
recall development sets and stored in ``recall_model.json``.

The weights belong to the embedding model they were trained with (cosine scales differ
between models): with another embedder the triggers fall back to the cosine
thresholds of the settings, and say so in their options (``scorer: null``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings

from kgsite.vectors.embedder import get_embedder

from .kinds import crosslingual_encoder, crosslingual_path
from .retrieval import Candidate

MODEL_PATH = Path(__file__).with_name("recall_model.json")
TRIGGERS = ("pre_check", "unknown", "finding", "domain", "query")


@dataclass(frozen=True)
class Head:
    trigger: str
    features: tuple[str, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    # The head for a pair in two languages (``cross_pair``), on the same probability
    # scale (its threshold mapped onto this one's), or None: this head judges every pair.
    cross: Head | None = None

    def probability(self, features: dict[str, float]) -> float:
        if self.cross is not None and cross_pair(features):
            return self.cross.probability(features)
        z = self.intercept + sum(
            w * features.get(name, 0.0) for name, w in zip(self.features, self.coef, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def cross_pair(features: dict[str, float]) -> bool:
    """The query and the memory are not known to share a language: the shared words,
    full-text rank and main embedder's list a head learns on one language say little
    of such a pair, so a head that has a ``cross`` one asks it instead."""
    return features.get("same_language", 1.0) == 0.0


@lru_cache(maxsize=4)
def _load(path: str) -> dict[str, Any]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def model_clear() -> None:
    _load.cache_clear()


def model_signature() -> str:
    """The encoders the features come from: the embedder, and the multilingual one."""
    signature = get_embedder().signature
    if crosslingual_path():
        signature += "+" + crosslingual_encoder().signature
    return signature


def head_for(trigger: str) -> Head | None:
    """The trained head of ``trigger`` for the encoders in use, or None."""
    path = str(getattr(settings, "KGSITE_RECALL_MODEL", "") or MODEL_PATH)
    model = _load(path)
    if not model or model.get("embedder") != model_signature():
        return None
    raw = model.get("heads", {}).get(trigger)
    if not raw:
        return None
    return _head(trigger, raw)


def _head(trigger: str, raw: dict[str, Any]) -> Head:
    return Head(
        trigger=trigger,
        features=tuple(raw["features"]),
        coef=tuple(raw["coef"]),
        intercept=float(raw["intercept"]),
        threshold=float(raw["threshold"]),
        cross=_head(trigger, raw["cross"]) if raw.get("cross") else None,
    )


def scored(head: Head, found: list[Candidate]) -> list[tuple[Candidate, float]]:
    """Candidates with their probability of being relevant, most probable first."""
    pairs = [(c, head.probability(c.features)) for c in found]
    return sorted(pairs, key=lambda cp: (-cp[1], -cp[0].cosine, cp[0].fact.pk))


@dataclass
class Ranked:
    """The memories a trigger shows, and whether the trained scorer chose them."""

    facts: list[tuple[Any, float, str]]
    scorer: bool
    candidates: list[Candidate] = field(default_factory=list)


def ranked(
    trigger: str,
    found: list[Candidate],
    *,
    k: int,
    floor: float,
    strict: bool,
    keep: Callable[[Candidate], bool] | None = None,
    at_least: int = 0,
    kept_as: str = "the closest in meaning",
) -> Ranked:
    """What ``trigger`` shows of ``found``: with a trained head, the candidates it
    finds relevant (a cosine ``floor`` applies too when the request set one: ``strict``),
    those ``keep`` asks for (said to be shown as ``kept_as``) and at least the
    ``at_least`` most probable; without one,
    the candidates at or above the cosine ``floor`` (the settings)."""
    head = head_for(trigger)
    if head is None:
        near = sorted((c for c in found if c.cosine >= floor), key=lambda c: (-c.cosine, c.fact.pk))
        return Ranked(
            [(c.fact, c.cosine, f"similarity {c.cosine:.2f} ≥ {floor:.2f}") for c in near[:k]],
            scorer=False,
            candidates=near[:k],
        )
    ordered = [(c, p) for c, p in scored(head, found) if not strict or c.cosine >= floor]
    kept = [
        (c, p, _kept_because(p, n, head.threshold, at_least, kept_as))
        for n, (c, p) in enumerate(ordered)
        if p >= head.threshold or n < at_least or (keep is not None and keep(c))
    ][:k]
    shown = [(c.fact, p, f"{because}: {c.why()}") for c, p, because in kept]
    return Ranked(shown, scorer=True, candidates=[c for c, _p, _b in kept])


def _kept_because(p: float, n: int, threshold: float, at_least: int, kept_as: str) -> str:
    """Why a candidate is shown, in words that hold: its relevance clears the threshold,
    or it is shown anyway (among the most probable, or the pair space's first)."""
    if p >= threshold:
        return f"relevance {p:.2f} ≥ {threshold:.2f}"
    if n < at_least:
        return f"relevance {p:.2f}, among the {at_least} most probable"
    return f"relevance {p:.2f}, {kept_as}"


# --- Finding: is the retrieved memory restated? --------------------------------------------

# What the second stage of the finding trigger reads: the first stage's relevance, the
# pair model's three probabilities, whether the duplicate guard's only objections are
# weak ones (``integrity.restates.weak_blocker``), and the pair's similarity and shared
# words.
PAIR_FEATURES = (
    "guard_weak",
    "relevance",
    "duplicate",
    "contradiction",
    "compatible",
    "cosine",
    "cosine_xl",
    "lexical",
    "rare_terms",
)


def pair_features(relevance: float, judged: dict[str, Any], c: Candidate) -> dict[str, float]:
    return {
        "guard_weak": 1.0 if judged.get("weak_only") else 0.0,
        "relevance": relevance,
        "duplicate": float(judged["duplicate"]),
        "contradiction": float(judged["contradiction"]),
        "compatible": float(judged["compatible"]),
        "cosine": c.features.get("cosine", 0.0),
        "cosine_xl": c.features.get("cosine_xl", 0.0),
        "lexical": c.features.get("lexical", 0.0),
        "rare_terms": c.features.get("rare_terms", 0.0),
    }


def restates(relevance: float, judged: dict[str, Any] | None, c: Candidate) -> bool:
    """Does the finding restate this memory? The pair model's duplicate verdict, or the
    trained second stage reading the pair model's probabilities beside retrieval's
    evidence, where the duplicate guard allows folding or objects for weak reasons only
    (a name: a translation, a variant; a number written in words). A value written in
    digits, an identifier, a date or a negation the memory lacks stays a veto."""
    if judged is None:
        return False
    if judged["label"] == "duplicate":
        return True
    if judged["blocked"] and not judged.get("weak_only"):
        return False
    head = head_for("finding_pair")
    return head is not None and head.probability(pair_features(relevance, judged, c)) >= (
        head.threshold
    )
