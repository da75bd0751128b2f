"""A sum of money whose period the sentence gives apart from it ("Over a full year the
rent comes to 42,000 złoty", "O passe mensal custa 40 euros") is read per year, like
"3,500 zł a month": a restatement per month and per year is not held back from a
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
        ("Over a full year the gym costs Ana 480 euros.", ("currency:EUR/year", 480)),
        ("In un anno Carla spende 7.800 euro di affitto.", ("currency:EUR/year", 7800)),
        ("Por ano, o Rui gasta R$ 7.200 com gasolina.", ("currency:BRL/year", 7200)),
        ("O passe mensal do Rui custa 40 euros.", ("currency:EUR/year", 480)),
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
            "Over a full year Marek's rent comes to 24,000 złoty.",
        ),
        (
            "Carla paga 650 euro al mese di affitto.",
            "In un anno Carla spende 7.800 euro di affitto.",
        ),
    ],
)
def test_a_sum_per_month_restated_per_year_does_not_block_a_duplicate(existing, new) -> None:
    assert duplicate_blockers(existing, new) == []


def test_a_changed_sum_per_year_still_blocks_a_duplicate() -> None:
    assert duplicate_blockers(
        "Marek pays 2,000 zł a month in rent.",
        "Over a full year Marek's rent comes to 30,000 złoty.",
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
