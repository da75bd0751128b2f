""" "half a kilo", "half an hour", "half a litre" are half the unit. Before, the article
alone was read as the number one ("a kilo"), so "half a kilo" against "500 g" was a
changed amount and "half an hour" against "30 minutes" a contradiction.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.classifier import CONTRADICTION, DUPLICATE, classify_pair
from integrity.detection.structure import read


@pytest.mark.parametrize(
    ("text", "dim", "amount"),
    [
        ("The parcel weighs half a kilo.", "mass", 0.5),
        ("The ferry crossing takes half an hour.", "duration", 1800.0),
        ("The jug holds half a litre.", "volume", 0.0005),
        ("The parcel weighs a kilo.", "mass", 1.0),
    ],
)
def test_half_a_unit_is_half_of_it(text: str, dim: str, amount: float) -> None:
    [value] = read(text).of("number")
    assert (value.dim, value.lo) == (dim, pytest.approx(amount))


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        ("The parcel weighs half a kilo.", "The parcel weighs 500 g.", DUPLICATE),
        (
            "The ferry crossing takes half an hour.",
            "The ferry crossing takes 30 minutes.",
            DUPLICATE,
        ),
        (
            "The ferry crossing takes half an hour.",
            "The ferry crossing takes an hour.",
            CONTRADICTION,
        ),
    ],
)
def test_half_a_unit_against_the_same_amount(existing: str, new: str, label: str) -> None:
    assert classify_pair(existing, new).label == label
