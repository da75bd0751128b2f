"""An area written in words is an area ("square metres", "sq ft", "metri quadrati",
"metros quadrados", "mètres carrés"), and a sum of money with a glued "m" or "bn"
("$1.5m", "2.3M euros", "€3bn") is millions or billions of that currency. Before, the
first read as a length (or a bare number) and the second as metres, so the same area or
the same sum written another way was answered a contradiction.

Every statement is invented for the test; Hypothesis runs with fixed seeds.
"""

from __future__ import annotations

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from integrity.detection.classifier import CONTRADICTION, DUPLICATE, classify_pair
from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read

RULES = settings(max_examples=40, deadline=None, derandomize=True)
AREA_FORMS = (
    "{n} square metres",
    "{n} sq m",
    "{n} m²",
    "{n} metri quadrati",
    "{n} metros quadrados",
    "{n} mètres carrés",
)


@seed(5101)
@RULES
@given(n=st.integers(min_value=2, max_value=9000), form=st.sampled_from(AREA_FORMS))
def test_an_area_in_words_is_an_area_in_square_metres(n, form) -> None:
    [value] = read("The allotment covers " + form.format(n=n) + ".").of("number")
    assert (value.dim, value.lo) == ("area", pytest.approx(n))


@seed(5102)
@RULES
@given(
    whole=st.integers(min_value=1, max_value=900),
    tenth=st.integers(min_value=0, max_value=9),
    written=st.sampled_from(["${x}m", "{x}M dollars", "US${x}m", "${x}bn"]),
)
def test_a_glued_m_or_bn_after_money_is_millions_or_billions(whole, tenth, written) -> None:
    text = "The foundation pledged " + written.format(x=f"{whole}.{tenth}") + " in total."
    [value] = read(text).of("number")
    scale = 1e9 if "bn" in written else 1e6
    assert (value.dim, value.lo) == ("currency:USD", pytest.approx((whole + tenth / 10) * scale))


def test_a_glued_m_without_money_stays_metres() -> None:
    [value] = read("The tow rope is 12m long.").of("number")
    assert (value.dim, value.lo) == ("length", 12.0)


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        ("The atelier measures 30 square metres.", "The atelier measures 30 m².", DUPLICATE),
        ("L'atelier misura 30 m².", "L'atelier misura 30 metri quadrati.", DUPLICATE),
        ("The atelier measures 30 m².", "The atelier measures 323 sq ft.", DUPLICATE),
        (
            "The lottery fund gave the choir $1.5m.",
            "The lottery fund gave the choir $1,500,000.",
            DUPLICATE,
        ),
        (
            "The lottery fund gave the choir €1.5m.",
            "The lottery fund gave the choir €2.5m.",
            CONTRADICTION,
        ),
    ],
)
def test_the_same_area_or_sum_written_another_way(existing, new, label) -> None:
    assert classify_pair(existing, new).label == label
    if label == DUPLICATE:
        assert not duplicate_blockers(existing, new)
