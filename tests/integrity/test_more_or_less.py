"""Issue 28, round 15: "more or less 40", "più o meno 40", "mais ou menos 40", "plus ou
moins 40", "más o menos 40" are approximations. Each comparative alone bounds a number
("40 or more", "pelo menos 40"), so the pair was read as a bound: an interval
open at one end, which held other values of the dimension ("mais ou menos
3 horas" holding "10 horas"), and an exact amount beside a stored approximation was
never folded into it.

Every statement is invented for the test.
"""

from __future__ import annotations

import math

import pytest

from integrity.detection.classifier import classify_pair
from integrity.detection.features import FEATURE_NAMES, pair_features
from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read

HOUR = 3600.0


@pytest.mark.parametrize(
    "text",
    [
        "The drive takes more or less 3 hours.",
        "Il viaggio dura più o meno 3 ore.",
        "A viagem demora mais ou menos 3 horas.",
        "Le trajet dure plus ou moins 3 heures.",
        "El viaje dura más o menos 3 horas.",
    ],
)
def test_more_or_less_is_an_approximation_not_a_bound(text):
    [v] = [v for v in read(text).values if v.kind == "number"]
    assert v.approx
    assert (v.lo, v.hi) == (pytest.approx(3 * HOUR), pytest.approx(3 * HOUR))


def test_a_bound_in_one_direction_is_still_a_bound():
    [v] = [v for v in read("The drive takes 3 hours or more.").values if v.kind == "number"]
    assert not v.approx and v.lo == pytest.approx(3 * HOUR) and math.isinf(v.hi)


def test_two_approximations_of_one_duration_may_be_folded():
    stored = "The ferry to the island takes about three hours."
    new = "The ferry to the island takes more or less 180 minutes."
    assert duplicate_blockers(stored, new) == []


def test_another_duration_is_a_changed_value_not_one_inside_an_interval():
    row = pair_features(
        "A travessia até à ilha demora mais ou menos 3 horas.",
        "A travessia até à ilha demora 10 horas.",
    )
    assert row[FEATURE_NAMES.index("amount_within")] == 0.0
    assert row[FEATURE_NAMES.index("number_swap")] == 1.0


def test_the_committed_model_folds_the_restatement_and_flags_the_changed_duration():
    # Round 14's reader and model answered both pairs compatible.
    stored = "The ferry to the island takes about three hours."
    assert classify_pair(
        stored, "The ferry to the island takes more or less 180 minutes."
    ).label == ("duplicate")
    stored = "A travessia até à ilha demora mais ou menos 3 horas."
    assert classify_pair(stored, "A travessia até à ilha demora 10 horas.").label == (
        "contradiction"
    )
