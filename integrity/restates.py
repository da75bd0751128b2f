"""The pair model's reading for recall's finding trigger (an ``entities.hooks.pair_judge``).

The finding trigger finds the stored memory a finding may restate by its own hybrid
retrieval, whatever the two texts' cosine; whether it is a restatement is then read by
the same pair model and duplicate guard as ``fact_store`` and the background check.
"""

from __future__ import annotations

import logging

import numpy as np

from .detection import model as pair_model
from .detection.classifier import pair_reading
from .detection.structure import plain
from .signals import entity_mentions, pair_encoder

logger = logging.getLogger(__name__)


def pair_restates(existing: str, new: str) -> dict | None:
    """(stored, new): the three probabilities, the model's verdict, whether the
    duplicate guard forbids folding the new statement into the stored one (it says a
    value, name or negation the stored one does not), and whether names alone stand in
    the way (``names_only``: a translation or a variant of a name says no other value).
    None when it cannot be read."""
    if plain(existing).strip(" .!") == plain(new).strip(" .!"):
        return {"contradiction": 0.0, "duplicate": 1.0, "compatible": 0.0, "blocked": False,
                "names_only": False, "label": "duplicate"}  # fmt: skip
    try:
        r = pair_reading(existing, new, mentions=entity_mentions, encoder=pair_encoder())
        label = pair_model.decide(
            np.array([r.contradiction, r.duplicate, r.compatible]),
            blocked=bool(r.blockers),
            duplicate_min=r.head.duplicate_min,
            uncertain_min=r.head.uncertain_min,
        )
    except Exception:  # noqa: BLE001 - doubt means "store it", never an error
        logger.exception("pair reading failed: %.80r / %.80r", existing, new)
        return None
    return {
        "contradiction": r.contradiction,
        "duplicate": r.duplicate,
        "compatible": r.compatible,
        "blocked": bool(r.blockers),
        # The guard's reasons start with the kind of value ("name Foo", "number 3").
        "names_only": bool(r.blockers) and all(b.startswith("name ") for b in r.blockers),
        "label": label,
    }
