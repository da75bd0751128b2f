"""Issue 28, round 13: a range whose ends carry a currency or an article ("between £40
and £60", "tra i 12 e i 15"), a bound written after the number ("8 or later", "5 o
più", "4 et les versions suivantes" is not one: "suivantes" is no comparative here, but
"ou supérieure" is), and Spanish "unos" / "unas" before a number make an interval or an
approximation; a number inside the other side's interval is then no value put in place
of another (``number_swap``), and the pair is less of a contradiction.

Every statement is invented for the test.
"""

from __future__ import annotations

import math

import pytest

from integrity.detection.features import FEATURE_NAMES, pair_features
from integrity.detection.structure import read


def _interval(text: str) -> list[tuple[float, float, bool]]:
    return [(v.lo, v.hi, v.approx) for v in read(text).values if v.kind == "number"]


@pytest.mark.parametrize(
    ("text", "lo", "hi"),
    [
        ("The stall charges between £40 and £60 a week.", 40 * 365.25 / 7, 60 * 365.25 / 7),
        ("Il mutuo costa tra i 600 e i 700 euro.", 600.0, 700.0),
        ("El tren tarda entre 3 y 4 horas.", 3 * 3600.0, 4 * 3600.0),
        ("The plugin needs Ruby 3 or later.", 3.0, math.inf),
        ("Il corso accetta 5 o più iscritti.", 5.0, math.inf),
        ("O aplicativo roda no Android 11 ou superior.", 11.0, math.inf),
        ("The kettle holds 2 litres or less.", -math.inf, 0.002),
    ],
)
def test_ranges_and_bounds_after_are_intervals(text, lo, hi):
    [(got_lo, got_hi, _approx)] = _interval(text)
    assert got_lo == pytest.approx(lo) and got_hi == pytest.approx(hi)


def test_a_number_after_or_and_a_noun_is_no_bound():
    [(lo, hi, _a), (lo2, hi2, _b)] = _interval("The shop sells 3 pens or 2 more expensive ones.")
    assert (lo, hi) == (3.0, 3.0) and (lo2, hi2) == (2.0, 2.0)


def test_unos_makes_a_spanish_amount_approximate():
    [(_lo, _hi, approx)] = _interval("El huerto da unos 400 kilos de tomates al año.")
    assert approx


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Marta pays between 900 and 1,100 euros in rent.", "Marta pays 1,000 euros in rent."),
        ("The tool runs on Go 1.20 or newer.", "The team builds the tool with Go 1.22."),
    ],
)
def test_a_number_inside_the_other_sides_interval_is_not_swapped(existing, new):
    row = pair_features(existing, new)
    assert row[FEATURE_NAMES.index("amount_within")] == 1.0
    assert row[FEATURE_NAMES.index("number_swap")] == 0.0


def test_a_number_outside_the_interval_stays_swapped():
    row = pair_features(
        "Marta pays between 900 and 1,100 euros in rent.", "Marta pays 1,500 euros in rent."
    )
    assert row[FEATURE_NAMES.index("amount_within")] == 0.0
    assert row[FEATURE_NAMES.index("number_swap")] == 1.0
