"""An approximate amount holds the values near it (issue 28, round 9): "about 120" and
"115" differ, but the second falls within a tenth of the first, so the pair model's
``amount_within`` column says so (it said so only for ranges and bounds). "Cerca de"
and "circa di" mark an approximation too: the approximation word stands before "de",
"di" or "of", not right before the number.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.classifier import classify_pair
from integrity.detection.features import FEATURE_NAMES, pair_features
from integrity.detection.structure import read

WITHIN = FEATURE_NAMES.index("amount_within")


@pytest.mark.parametrize(
    "text",
    [
        "O ginásio tem cerca de 300 sócios.",
        "El club tiene cerca de 300 socios.",
        "The orchard has about 120 trees.",
        "Il frutteto ha circa 120 alberi.",
    ],
)
def test_an_approximation_word_before_de_marks_the_amount(text) -> None:
    [value] = read(text).of("number")
    assert value.approx


@pytest.mark.parametrize(
    ("existing", "near", "far"),
    [
        (
            "The orchard has about 120 trees.",
            "The orchard has 115 trees.",
            "The orchard has 300 trees.",
        ),
        (
            "O ginásio tem cerca de 300 sócios.",
            "O ginásio tem 290 sócios.",
            "O ginásio tem 600 sócios.",
        ),
    ],
)
def test_an_approximate_amount_holds_the_values_within_a_tenth(existing, near, far) -> None:
    assert pair_features(existing, near)[WITHIN] == 1.0
    assert pair_features(existing, far)[WITHIN] == 0.0
    exact = existing.replace("about ", "").replace("cerca de ", "")
    assert pair_features(exact, near)[WITHIN] == 0.0


def test_a_near_value_against_an_approximation_is_a_weaker_conflict() -> None:
    near = classify_pair("The orchard has about 120 trees.", "The orchard has 115 trees.")
    exact = classify_pair("The orchard has 120 trees.", "The orchard has 115 trees.")
    assert near.confidence < exact.confidence
