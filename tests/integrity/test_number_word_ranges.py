"""Issue 28, round 14: a range written in number words ("between seven and nine
weeks", "tra tre e cinque giorni") is an interval. The words were read as one number,
their sum ("seven and nine" as sixteen), because "and" joins the parts of a number
("trinta e cinco", "one hundred and five"); it joins only a smaller part to a round one.
A number inside the range then narrows it: no value put in place of another.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.features import FEATURE_NAMES, pair_features
from integrity.detection.structure import read

WEEK, DAY = 7 * 86400.0, 86400.0


def _numbers(text: str) -> list[tuple[float, float]]:
    return [(v.lo, v.hi) for v in read(text).values if v.kind == "number"]


@pytest.mark.parametrize(
    ("text", "lo", "hi"),
    [
        ("The trial ran between seven and nine weeks.", 7 * WEEK, 9 * WEEK),
        ("La consegna arriva tra tre e cinque giorni.", 3 * DAY, 5 * DAY),
        ("A obra demora entre dois e quatro dias.", 2 * DAY, 4 * DAY),
    ],
)
def test_a_range_in_number_words_is_an_interval(text, lo, hi):
    [(got_lo, got_hi)] = _numbers(text)
    assert (got_lo, got_hi) == (pytest.approx(lo), pytest.approx(hi))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The building has thirty-five tenants.", 35.0),
        ("O contrato tem trinta e cinco cláusulas.", 35.0),
        ("Il pacco pesa cento e venti grammi.", 0.12),
        ("The hall seats one hundred and five guests.", 105.0),
        ("A quinta tem seis mil e duzentos metros.", 6200.0),
    ],
)
def test_and_still_joins_the_parts_of_one_number(text, value):
    [(lo, hi)] = _numbers(text)
    assert lo == hi == pytest.approx(value)


def test_a_number_inside_a_range_in_words_is_not_a_changed_value():
    row = pair_features(
        "The coach advised resting between seven and nine hours a day.",
        "The player rests eight hours a day.",
    )
    assert row[FEATURE_NAMES.index("amount_within")] == 1.0
    assert row[FEATURE_NAMES.index("number_swap")] == 0.0
