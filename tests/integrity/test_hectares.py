"""Issue 28, round 15: hectares and acres are areas ("un ettaro", "3 hectares", "5
acres"). They were no unit: "one hectare" and "10,000 m²"
shared no value, so the duplicate guard held the restatement apart, and "2 hectares" /
"2,000 square metres" were two numbers never compared.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.classifier import classify_pair
from integrity.detection.features import FEATURE_NAMES, pair_features
from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read


@pytest.mark.parametrize(
    ("text", "square_metres"),
    [
        ("Il vigneto copre un ettaro.", 1e4),
        ("A fazenda tem 3 hectares de pasto.", 3e4),
        ("La finca tiene 2 hectáreas.", 2e4),
        ("The orchard covers 5 acres.", 5 * 4046.8564224),
    ],
)
def test_hectares_and_acres_are_areas(text, square_metres):
    [v] = [v for v in read(text).values if v.kind == "number"]
    assert v.dim == "area" and v.lo == pytest.approx(square_metres)


def test_one_hectare_restated_in_square_metres_may_be_folded():
    stored = "Il vigneto di Aldo copre un ettaro."
    new = "Il vigneto di Aldo copre 10.000 m²."
    assert duplicate_blockers(stored, new) == []
    assert pair_features(stored, new)[FEATURE_NAMES.index("value_converted")] == 1.0


def test_another_area_in_square_metres_is_a_changed_amount():
    row = pair_features(
        "The farm has 2 hectares of wheat.", "The farm has 2,000 square metres of wheat."
    )
    assert row[FEATURE_NAMES.index("amount_differs")] == 1.0


def test_the_committed_model_folds_one_hectare_restated_in_square_metres():
    # Round 14's reader and model sent this pair to a person (uncertain).
    verdict = classify_pair(
        "Il vigneto di Aldo copre un ettaro.",
        "Il vigneto di Aldo copre 10.000 m².",
    )
    assert verdict.label == "duplicate"
