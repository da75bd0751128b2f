"""The pair model's reading for recall's finding trigger (an ``entities.hooks.pair_judge``).

The finding trigger finds the stored memory a finding may restate by its own hybrid
retrieval, whatever the two texts' cosine; whether it is a restatement is then read by
the same pair model and duplicate guard as ``fact_store`` and the background check.
"""

from __future__ import annotations

import logging
import re

import numpy as np

from .detection import model as pair_model
from .detection.classifier import pair_reading
from .detection.guard import covered_flags
from .detection.structure import language, plain, read
from .signals import entity_mentions, pair_encoder

logger = logging.getLogger(__name__)


_DIGIT = re.compile(r"\d")


def weak_blocker(reason: str) -> bool:
    """A reason of the duplicate guard that a restatement in other words trips too: a
    name (a translation, a variant, a capitalised first word) or a number or time the
    guard read from words without a digit ("ten minutes" beside "10-minute"). The
    guard's reasons start with the kind of value: "name Foo", "number 3"."""
    kind, _, surface = reason.partition(" ")
    if kind == "name":
        return True
    return kind in ("number", "time") and bool(surface) and not _DIGIT.search(surface)


# Names that share their first letters are variants of one name ("Postgres").
VARIANT_PREFIX = 5


def names_swapped(existing: str, new: str) -> bool:
    """One name put in place of another, in the same language: a name of the stored
    text is missing from the new one, which brings a name of its own that is no variant
    of it. (Across languages, names are translated: not a swap.)"""
    try:
        a, b = read(existing), read(new)
        if language(a) != language(b):
            return False
        lost = [v for v, ok in covered_flags(b, a, entity_mentions) if not ok and v.kind == "name"]
        added = [v for v, ok in covered_flags(a, b, entity_mentions) if not ok and v.kind == "name"]
    except Exception:  # noqa: BLE001 - in doubt, a swap: the guard's veto stays
        return True
    stems = {v.key[0][:VARIANT_PREFIX] for v in added}
    return bool(added) and any(v.key[0][:VARIANT_PREFIX] not in stems for v in lost)


def pair_restates(existing: str, new: str) -> dict | None:
    """(stored, new): the three probabilities, the model's verdict, whether the
    duplicate guard forbids folding the new statement into the stored one (it says a
    value, name or negation the stored one does not), and whether only weak reasons
    stand in the way (``weak_only``, see ``weak_blocker``). None when it cannot be read."""
    if plain(existing).strip(" .!") == plain(new).strip(" .!"):
        return {"contradiction": 0.0, "duplicate": 1.0, "compatible": 0.0, "blocked": False,
                "weak_only": False, "label": "duplicate"}  # fmt: skip
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
        "weak_only": bool(r.blockers)
        and all(weak_blocker(b) for b in r.blockers)
        and not names_swapped(existing, new),
        "label": label,
    }
