"""The value readers end to end, on forms the other reader tests leave out: an amount
grouped in thousands with a space (plain, no-break or narrow) and a currency sign is one
amount; a US slashed date and a named-month date of the same day are one date for the
duplicate guard; a reading never raises and every value stays inside the text.

Every statement is invented for the test; Hypothesis runs with fixed seeds.
"""

from __future__ import annotations

import calendar
import datetime

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read

RULES = settings(max_examples=40, deadline=None, derandomize=True)
SPACES = (" ", "\u00a0", "\u202f")
MONTHS = tuple(calendar.month_name)[1:]  # English: the C locale of the tests


def numbers(text: str) -> list:
    return read(text).of("number")


@seed(2441)
@RULES
@given(
    amount=st.integers(min_value=1000, max_value=999_999_999),
    space=st.sampled_from(SPACES),
    sign=st.sampled_from(["€", "EUR"]),
)
def test_an_amount_grouped_with_spaces_is_one_amount(amount, space, sign) -> None:
    text = f"Le billet coûte {amount:,} {sign}.".replace(",", space)
    [value] = numbers(text)
    assert value.dim == "currency:EUR"
    assert (value.lo, value.hi) == (float(amount), float(amount))


@pytest.mark.parametrize(
    ("text", "base"),
    [
        ("Il biglietto costa 1.200 €.", 1200.0),
        ("O bilhete custa 1.200,50 €.", 1200.5),
        ("The ticket costs €1,200.50.", 1200.5),
        ("The ticket costs 1 200 €.", 1200.0),
    ],
)
def test_thousands_separators_of_each_language_give_one_amount(text: str, base: float) -> None:
    [value] = numbers(text)
    assert value.dim == "currency:EUR" and value.lo == pytest.approx(base)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("The ticket costs 1 200 €.", "The ticket costs 1200 €."),
        ("The ticket costs 1 200 €.", "The ticket costs 1\u202f200 €."),
        ("The ticket costs 1.200 €.", "The ticket costs 1 200 €."),
    ],
)
def test_the_same_amount_grouped_otherwise_does_not_block(existing: str, new: str) -> None:
    assert duplicate_blockers(existing, new) == []


def test_a_different_grouped_amount_blocks() -> None:
    assert duplicate_blockers("The ticket costs 1 200 €.", "The ticket costs 1 300 €.")


def test_two_separate_amounts_are_not_glued_across_a_word() -> None:
    found = numbers("It took 12 days and 300 people.")
    assert sorted(v.lo for v in found) == [300.0, 12 * 86400.0]


@pytest.mark.parametrize(
    ("text", "dim", "per_year"),
    [
        ("The plan costs 10 € per week.", "currency:EUR/year", 10 * 365.25 / 7),
        ("The plan costs 100 €/month.", "currency:EUR/year", 1200.0),
        ("The plan costs 1 200 € per year.", "currency:EUR/year", 1200.0),
    ],
)
def test_an_amount_per_period_reads_per_year(text: str, dim: str, per_year: float) -> None:
    [value] = numbers(text)
    assert value.dim == dim and value.lo == pytest.approx(per_year, rel=1e-3)


def test_a_monthly_amount_and_its_yearly_total_do_not_block() -> None:
    assert (
        duplicate_blockers("The plan costs 100 € a month.", "The plan costs 1200 € a year.") == []
    )


# --- dates ---------------------------------------------------------------------------


dates = st.dates(min_value=datetime.date(1950, 1, 1), max_value=datetime.date(2099, 12, 31))


@seed(2442)
@RULES
@given(day=dates)
def test_a_us_slashed_date_equals_the_named_month_date(day) -> None:
    named = f"The report is due on {day.day} {MONTHS[day.month - 1]} {day.year}."
    slashed = f"The report is due on {day.month:02d}/{day.day:02d}/{day.year}."
    assert duplicate_blockers(named, slashed) == []
    assert duplicate_blockers(slashed, named) == []


@seed(2443)
@RULES
@given(day=dates, shift=st.integers(min_value=1, max_value=40))
def test_a_slashed_date_of_another_day_blocks(day, shift) -> None:
    other = day + datetime.timedelta(days=shift)
    named = f"The report is due on {day.day} {MONTHS[day.month - 1]} {day.year}."
    slashed = f"The report is due on {other.month:02d}/{other.day:02d}/{other.year}."
    readings = {(other.year, other.month, other.day), (other.year, other.day, other.month)}
    if (day.year, day.month, day.day) not in readings:
        assert duplicate_blockers(named, slashed)


def test_the_thirty_first_of_january_in_both_orders() -> None:
    assert duplicate_blockers("Due on 31 January 2027.", "Due on 01/31/2027.") == []
    assert duplicate_blockers("Due on 31 January 2027.", "Due on 31/01/2027.") == []
    assert duplicate_blockers("Due on 31 January 2027.", "Due on 01/30/2027.")


# --- any text ------------------------------------------------------------------------


@seed(2444)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=120))
def test_reading_any_text_never_raises_and_values_stay_in_the_text(text) -> None:
    reading = read(text)
    for value in reading.values:
        assert 0 <= value.first <= value.last < len(reading.tokens)
        if value.kind == "number":
            assert value.lo <= value.hi


@seed(2445)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    text=st.lists(
        st.sampled_from(
            [
                "1",
                "200",
                "000",
                " ",
                "\u00a0",
                "€",
                "$",
                "-",
                "/",
                ".",
                ",",
                "per",
                "month",
                "km",
                "'",
                '"',
                "°",
                "between",
                "and",
                "12/31/2027",
                "31",
                "January",
                "h",
                "am",
            ]
        ),
        max_size=25,
    ).map("".join)
)
def test_value_like_fragments_never_raise(text) -> None:
    reading = read(text)
    duplicate_blockers(text, text + " not")
    for value in reading.values:
        if value.kind == "number":
            assert value.lo <= value.hi


# --- forms once misread (each fixed with its test) -------------------------------------


@seed(2446)
@RULES
@given(
    whole=st.integers(min_value=1000, max_value=999_999),
    cents=st.integers(min_value=10, max_value=99),
    space=st.sampled_from(SPACES),
    comma=st.booleans(),
)
def test_a_space_grouped_amount_with_decimals_is_one_amount(whole, cents, space, comma) -> None:
    grouped = f"{whole:,}".replace(",", space)
    text = f"Le billet coûte {grouped}{',' if comma else '.'}{cents} €."
    [value] = numbers(text)
    assert value.dim == "currency:EUR"
    assert value.lo == pytest.approx(whole + cents / 100)


@pytest.mark.parametrize(
    ("text", "dim", "lo", "hi"),
    [
        ("It costs between 5 and 10 euros.", "currency:EUR", 5.0, 10.0),
        ("The trail is between 2 and 3 km long.", "length", 2000.0, 3000.0),
        ("Keep it between 41 and 50 °F.", "temperature", 5.0, 10.0),
        ("We need between 4 and 9 volunteers.", "", 4.0, 9.0),
    ],
)
def test_the_unit_closing_a_range_is_the_ranges_unit(text, dim, lo, hi) -> None:
    [value] = numbers(text)
    assert value.dim == dim
    assert (value.lo, value.hi) == (pytest.approx(lo), pytest.approx(hi))


def test_a_range_in_another_currency_blocks() -> None:
    assert duplicate_blockers(
        "It costs between 5 and 10 euros.", "It costs between 5 and 10 dollars."
    )
    assert (
        duplicate_blockers(
            "The trail is between 2 and 3 km long.", "The trail is between 2000 and 3000 m long."
        )
        == []
    )


@seed(2447)
@RULES
@given(day=dates)
def test_a_year_first_slashed_date_is_the_iso_date(day) -> None:
    slashed = f"The report is due on {day.year}/{day.month:02d}/{day.day:02d}."
    [date] = read(slashed).of("date")
    assert date.key == (day.year, day.month, day.day)
    assert duplicate_blockers(f"The report is due on {day.isoformat()}.", slashed) == []


def test_a_year_first_slashed_date_that_is_no_date_is_not_read_as_one() -> None:
    assert read("The code is 2027/13/31.").of("date") == []


@seed(2448)
@RULES
@given(
    amount=st.integers(min_value=1000, max_value=999_999_999),
    mark=st.sampled_from(["'", "’"]),
)
def test_an_amount_grouped_with_apostrophes_is_one_amount(amount, mark) -> None:
    text = f"Das Ticket kostet {amount:,} CHF.".replace(",", mark)
    [value] = numbers(text)
    assert (value.dim, value.lo) == ("currency:CHF", float(amount))


def test_feet_and_inches_are_not_a_thousands_group() -> None:
    [value] = numbers("She is 5'8\" tall.")
    assert value.dim == "length" and value.lo == pytest.approx(1.7272)
