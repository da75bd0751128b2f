"""Issue 28, round 15: a boolean literal both statements say is no value put in place of
another. "starts on 3 June" / "kicks off on 2026-06-03": both say "on", and the second's
"off" (of "kicks off") made `boolean_swap` fire, so a date restated in another format
was answered a contradiction. Only the literals one side has alone are compared now.

Every statement is invented for the test.
"""

from __future__ import annotations

from integrity.detection.classifier import classify_pair
from integrity.detection.features import FEATURE_NAMES, pair_features

SWAP = FEATURE_NAMES.index("boolean_swap")


def test_a_literal_both_sides_say_is_no_swap():
    row = pair_features(
        "The Harbour Fair starts on 3 June 2026.", "The Harbour Fair kicks off on 2026-06-03."
    )
    assert row[SWAP] == 0.0


def test_one_literal_put_in_place_of_another_still_is():
    row = pair_features(
        "The debug flag of the worker is on.", "The debug flag of the worker is off."
    )
    assert row[SWAP] == 1.0


def test_the_committed_model_folds_the_date_restated_in_another_format():
    verdict = classify_pair(
        "The Harbour Fair starts on 3 June 2026.", "The Harbour Fair kicks off on 2026-06-03."
    )
    assert verdict.label == "duplicate"
