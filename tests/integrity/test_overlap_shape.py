"""Issue 28, round 12: the word overlap enters the pair model squared too, and once more
for a pair with a negation on one side only: a negation put into an otherwise equal
statement is another thing than one in a statement about something else.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.features import FEATURE_NAMES, pair_features

JACCARD = FEATURE_NAMES.index("jaccard")
SQUARE = FEATURE_NAMES.index("jaccard_sq")
NEGATED = FEATURE_NAMES.index("negation_x_jaccard")


def test_a_negation_put_into_the_same_statement_weighs_its_overlap():
    row = pair_features("The shed by the pond is locked.", "The shed by the pond is not locked.")
    assert row[NEGATED] == pytest.approx(row[JACCARD])
    assert row[NEGATED] > 0.7


def test_a_negation_in_a_statement_about_something_else_weighs_little():
    row = pair_features("The shed by the pond is locked.", "Marta does not swim in winter.")
    assert row[NEGATED] < 0.2


def test_no_negation_on_one_side_only_is_zero():
    for existing, new in [
        ("The shed by the pond is locked.", "The shed by the pond is locked at night."),
        ("The shed is not locked.", "The shed is not locked at night."),
    ]:
        assert pair_features(existing, new)[NEGATED] == 0.0


def test_the_overlap_is_squared():
    row = pair_features("Marta swims in the lake.", "Marta swims in the sea every morning.")
    assert row[SQUARE] == pytest.approx(row[JACCARD] ** 2)
