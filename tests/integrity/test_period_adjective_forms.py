"""Issue 28, round 14: the period adjectives' other genders and plurals after an amount
("300 € mensuales", "900 € mensuels", "1.200 € annui", "R$ 500 mensais") make it an
amount per period, read per year like "€300 a month": only "monthly", "mensile",
"mensal" were read, so a monthly sum and its yearly total were two unrelated numbers.
An exact amount is no longer the same as an approximation near it: "about $6,000 a
month" stored, "$5,980 monthly" says more and is never folded into it.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.features import FEATURE_NAMES, pair_features
from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read


def _amounts(text: str) -> list[tuple[float, str]]:
    return [(v.lo, v.dim) for v in read(text).values if v.kind == "number"]


@pytest.mark.parametrize(
    ("text", "per_year", "dim"),
    [
        ("El gimnasio cobra 40 € mensuales.", 480.0, "currency:EUR/year"),
        ("Le parking coûte 90 € mensuels.", 1080.0, "currency:EUR/year"),
        ("La palestra costa 600 € annui.", 600.0, "currency:EUR/year"),
        ("O ginásio custa R$ 120 mensais.", 1440.0, "currency:BRL/year"),
        ("La cuota son 300 € anuales.", 300.0, "currency:EUR/year"),
        ("Le service facture 50 € trimestriels.", 200.0, "currency:EUR/year"),
    ],
)
def test_inflected_period_adjectives_make_an_amount_per_year(text, per_year, dim):
    [(lo, got_dim)] = _amounts(text)
    assert (lo, got_dim) == (pytest.approx(per_year), dim)


def test_a_monthly_sum_and_its_yearly_total_are_one_value():
    stored, new = (
        "Il noleggio del furgone costa 250 € al mese.",
        "Il noleggio del furgone costa 3.000 € annui.",
    )
    row = pair_features(stored, new)
    assert row[FEATURE_NAMES.index("value_converted")] == 1.0
    assert duplicate_blockers(stored, new) == []


def test_an_exact_amount_is_not_folded_into_an_approximation_near_it():
    about, exact = "Marta earns about $6,000 a month.", "Marta earns $5,980 monthly."
    assert duplicate_blockers(about, exact)  # the new statement says more
    assert duplicate_blockers(exact, about) == []  # it says less: may be the same
    assert duplicate_blockers(about, "Marta earns $6,000 monthly.") == []
