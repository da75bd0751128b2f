"""A decimal written with a point ("12.45", "1.25", "0.04") is an amount when a unit, a
currency or a percent sign goes with it, and a clock time only after a clock word
("at 12.45", "alle 9.30") or before am/pm, an evening word or a time zone. Before, every
such decimal whose whole part could be an hour was read as a time: a price, a length or
a rate changed was never compared as an amount, and "1.25 m" against "125 cm" was
answered a contradiction.

Every statement is invented for the test; Hypothesis runs with fixed seeds.
"""

from __future__ import annotations

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from integrity.detection.classifier import CONTRADICTION, DUPLICATE, classify_pair
from integrity.detection.structure import read

RULES = settings(max_examples=40, deadline=None, derandomize=True)
HOURS = st.integers(min_value=0, max_value=23)
MINUTES = st.integers(min_value=0, max_value=59)
AFTER = ("m", "kg", "mg", "%", "euros", "EUR", "km", "litres")


@seed(3187)
@RULES
@given(whole=HOURS, part=MINUTES, unit=st.sampled_from(AFTER))
def test_a_decimal_with_a_unit_is_an_amount_not_a_time(whole, part, unit) -> None:
    reading = read(f"The crate measures {whole}.{part:02d} {unit} today.")
    assert not reading.of("time")
    [amount] = reading.of("number")
    assert amount.dim and float(amount.key[0]) == pytest.approx(float(f"{whole}.{part:02d}"))


@seed(3188)
@RULES
@given(whole=HOURS, part=MINUTES, sign=st.sampled_from(["$", "€", "£"]))
def test_a_decimal_after_a_currency_sign_is_a_price(whole, part, sign) -> None:
    reading = read(f"A jar of honey costs {sign}{whole}.{part:02d} at the stall.")
    assert not reading.of("time")
    [price] = reading.of("number")
    assert price.dim.startswith("currency:")


@seed(3189)
@RULES
@given(hour=HOURS, minute=MINUTES)
def test_a_dotted_time_after_a_clock_word_is_still_a_time(hour, minute) -> None:
    for text in (
        f"The ferry to the island leaves at {hour}.{minute:02d}.",
        f"Il traghetto parte alle {hour}.{minute:02d}.",
        f"The webinar opens {hour}.{minute:02d} UTC.",
    ):
        [time] = read(text).of("time")
        assert time.key[0] == hour * 60 + minute


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        ("The garden hose is 1.25 m long.", "The garden hose is 125 cm long.", DUPLICATE),
        ("The municipal tax rate is 7.25 %.", "The municipal tax rate is 7.75 %.", CONTRADICTION),
        ("A jar of honey costs $12.45.", "A jar of honey costs $19.45.", CONTRADICTION),
    ],
)
def test_a_decimal_amount_is_compared_as_an_amount(existing, new, label) -> None:
    assert classify_pair(existing, new).label == label
