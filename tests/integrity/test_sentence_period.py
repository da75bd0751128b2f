"""A sum of money whose period the sentence gives apart from it ("Across the whole year
the club costs 960 euros", "O plano mensal do ginásio custa 30 euros") is read per year, like
"2,000 zł a month": a restatement per month and per year is not held back from a
duplicate verdict, a changed sum still is. A period that is not the sum's ("a one-month
deposit"), two sums or two periods change nothing. More currencies are known by code,
sign and name; "due" is a number in Italian only.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read


def money(text: str) -> list[tuple[str, float]]:
    return [(v.dim, round(v.lo)) for v in read(text).of("number") if "currency" in v.dim]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Across the whole year the gym costs Ana 480 euros.", ("currency:EUR/year", 480)),
        ("Ogni anno Carla versa 4.800 euro al circolo.", ("currency:EUR/year", 4800)),
        ("Por ano, o Rui gasta R$ 5.400 com o estacionamento.", ("currency:BRL/year", 5400)),
        ("O plano mensal do ginásio custa 30 euros.", ("currency:EUR/year", 360)),
        ("Marek pays 2,000 zł a month.", ("currency:PLN/year", 24000)),
        ("The yearly licence costs ₩ 120000.", ("currency:KRW/year", 120000)),
    ],
)
def test_the_period_the_sentence_gives_is_the_sums(text, expected) -> None:
    assert money(text) == [expected]


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        (
            "Marek pays 2,000 zł a month in rent.",
            "Marek's rent totals 24,000 złoty across the whole year.",
        ),
        (
            "Carla paga 400 euro al mese al circolo.",
            "Ogni anno Carla versa 4.800 euro al circolo.",
        ),
    ],
)
def test_a_sum_per_month_restated_per_year_does_not_block_a_duplicate(existing, new) -> None:
    assert duplicate_blockers(existing, new) == []


def test_a_changed_sum_per_year_still_blocks_a_duplicate() -> None:
    assert duplicate_blockers(
        "Marek pays 2,000 zł a month in rent.",
        "Marek's rent totals 30,000 złoty across the whole year.",
    )


@pytest.mark.parametrize(
    "text",
    [
        "A one-month deposit of €1,000 is due on signing.",
        "The rent is €900 and the deposit €1,800 a year.",
        "Each month or each year, the fee is €50.",
    ],
)
def test_a_period_that_is_not_the_sums_changes_nothing(text) -> None:
    assert all("/year" not in dim for dim, _ in money(text)) or len(money(text)) > 1


def test_due_is_a_number_in_italian_only() -> None:
    assert read("The payment of €1,000 is due on Monday.").of("number")[0].lo == 1000
    assert len(read("The payment of €1,000 is due on Monday.").of("number")) == 1
    assert [v.lo for v in read("Paola ha due gatti.").of("number")] == [2.0]
