"""A pair the duplicate guard refuses because one side says the opposite of the other (a
negation on one side only, a word against its negative-prefixed form) was answered
compatible when the model read it as the same statement: the duplicate was refused and
the contradiction probability stayed under its cut-off, so "accessible" / "inaccessible"
of the same dock raised nothing. It is a contradiction now (round 17)."""

from __future__ import annotations

import numpy as np
import pytest

from integrity.detection.classifier import classify_pair
from integrity.detection.guard import duplicate_blockers, opposed
from integrity.detection.model import CLASSES, decide
from integrity.detection.train import Choice, Fold, _decided, _fast_decided

CUTS = {"duplicate_min": 0.8, "uncertain_min": 0.2, "contradiction_min": 0.35}


@pytest.mark.parametrize(
    "p, is_opposed, expected",
    [
        ((0.19, 0.79, 0.02), True, "contradiction"),
        ((0.19, 0.79, 0.02), False, "compatible"),  # refused for a new value: no opposite
        ((0.10, 0.30, 0.60), True, "compatible"),  # not read as the same statement
        ((0.40, 0.55, 0.05), True, "contradiction"),
    ],
)
def test_a_refused_opposite_read_as_the_same_statement_is_a_contradiction(
    p, is_opposed, expected
) -> None:
    got = decide(np.array(p), blocked=True, opposed=is_opposed, **CUTS)
    assert got == expected


def test_the_training_folds_decide_opposites_as_the_product_does() -> None:
    probs = np.array([(0.19, 0.79, 0.02), (0.19, 0.79, 0.02), (0.1, 0.3, 0.6), (0.05, 0.9, 0.05)])
    fold = Fold(
        "f.jsonl",
        [],
        np.zeros((4, 1)),
        np.zeros(4, dtype=int),
        blocked=np.array([True, True, True, False]),
        opposed=np.array([True, False, True, False]),
    )
    choice = Choice(0.1, 0.8, 0.2, 1.01, 0.35)
    slow = _decided(probs, fold, choice)
    fast = [CLASSES[k] if k < 3 else "uncertain" for k in _fast_decided(probs, fold, choice)]
    assert slow == fast == ["contradiction", "compatible", "compatible", "duplicate"]


@pytest.mark.parametrize(
    "stored, new",
    [
        (
            "Since 2020 pier 7 of the Gdańsk depot is accessible to lorries over 30 tonnes.",
            "Since 2020 pier 7 of the Gdańsk depot is inaccessible to lorries over 30 tonnes.",
        ),
        (
            "Le casier 12 de Noé à Brest est verrouillé depuis le 4 juin.",
            "Le casier 12 de Noé à Brest est déverrouillé depuis le 4 juin.",
        ),
    ],
)
def test_a_statement_and_its_opposite_are_a_contradiction(stored: str, new: str) -> None:
    assert opposed(duplicate_blockers(stored, new))  # "dé-" is a negative prefix too
    verdict = classify_pair(stored, new)
    assert verdict.label == "contradiction", verdict
    assert verdict.kind == "negation"
