"""Round 9 of issue 28: closed classes of values the reader did not read at all. Areas
with a superscript ("km²", "cm2"), vulgar fractions ("1½", "¾", any Unicode fraction),
general period words ("a fortnight", "a decade", "un semestre"), electrical units with
their prefixes ("kV", "mA", "kWh", "MWh"), US liquid measures ("gallons", "fl oz"),
crowns ("kr") and ISO 4217 codes missing from the currency table ("ISK", "EGP").

Before, each was a bare number (or nothing), so a value written two ways was answered a
contradiction and a changed value was compared as a number without its unit. Now a
value written two ways is one value (a duplicate the guard lets through) and a changed
value is a change (the guard blocks the duplicate).

Every statement is invented for the test; Hypothesis runs with fixed seeds.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from integrity.detection.classifier import DUPLICATE, classify_pair
from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read

RULES = settings(max_examples=40, deadline=None, derandomize=True)

# Every character Unicode gives a numeric value below one (vulgar fractions), found
# through unicodedata: no list of fractions in the reader or here.
FRACTIONS = [
    c
    for c in map(chr, range(0xA0, 0x2200))
    if unicodedata.category(c) == "No" and 0 < unicodedata.numeric(c, 0) < 1
]


def _amount(text: str) -> tuple[str, float]:
    [value] = read(text).of("number")
    return value.dim, value.lo


SAME_VALUE = [
    ("The home battery stores 2 kWh.", "The home battery stores 2000 Wh."),
    ("The rehearsal lasts 1½ hours.", "The rehearsal lasts 90 minutes."),
    ("The library loan lasts a fortnight.", "The library loan lasts 14 days."),
    ("The nature reserve covers 30 km².", "The nature reserve covers 30 square kilometres."),
    ("La riserva copre 30 km².", "La riserva copre 30 chilometri quadrati."),
    ("A reserva cobre 30 km2.", "A reserva cobre 30 quilômetros quadrados."),
    ("The substation steps down 11 kV.", "The substation steps down 11000 V."),
    ("The sensor draws 500 mA.", "The sensor draws 0.5 A."),
    ("The wind farm produces 5 MWh a day.", "The wind farm produces 5000 kWh a day."),
    ("The water butt holds 50 gallons.", "The water butt holds 189.3 litres."),
    ("Il corso dura un semestre.", "Il corso dura sei mesi."),
    ("El préstamo dura una quincena.", "El préstamo dura 14 días."),
    ("Le bail court une décennie.", "Le bail court dix ans."),
    ("Die Burg ist zwei Jahrhunderte alt.", "Die Burg ist 200 Jahre alt."),
]


@pytest.mark.parametrize(("existing", "new"), SAME_VALUE)
def test_a_value_written_two_ways_is_one_value(existing, new) -> None:
    (dim_a, a), (dim_b, b) = _amount(existing), _amount(new)
    assert dim_a == dim_b and dim_a
    assert a == pytest.approx(b, rel=2e-3)
    assert not duplicate_blockers(existing, new)
    assert classify_pair(existing, new).label == DUPLICATE


CHANGED = [
    ("The home battery stores 2 kWh.", "The home battery stores 3000 Wh."),
    ("The rehearsal lasts 1½ hours.", "The rehearsal lasts 2 hours."),
    ("The library loan lasts a fortnight.", "The library loan lasts 10 days."),
    ("The nature reserve covers 30 km².", "The nature reserve covers 40 square kilometres."),
    ("The substation steps down 11 kV.", "The substation steps down 33 kV."),
    ("The water butt holds 50 gallons.", "The water butt holds 50 litres."),
    ("The ferry ticket costs 300 kr.", "The ferry ticket costs 450 kr."),
    ("The visa fee is 2500 ISK.", "The visa fee is 2600 ISK."),
    ("Il corso dura un semestre.", "Il corso dura un anno."),
]


@pytest.mark.parametrize(("existing", "new"), CHANGED)
def test_a_changed_value_is_a_change(existing, new) -> None:
    (dim_a, a), (dim_b, b) = _amount(existing), _amount(new)
    assert dim_a == dim_b and dim_a
    assert a != pytest.approx(b, rel=1e-2)
    assert duplicate_blockers(existing, new)
    assert classify_pair(existing, new).label != DUPLICATE


@seed(9101)
@RULES
@given(whole=st.integers(min_value=0, max_value=900), part=st.sampled_from(FRACTIONS))
def test_any_vulgar_fraction_adds_to_its_number(whole, part) -> None:
    glued = f"{whole or ''}{part}"
    expected = whole + unicodedata.numeric(part)
    assert _amount(f"The plank is {glued} m long.") == ("length", pytest.approx(expected))
    if whole:  # "1 ½ m": a space between the number and its fraction
        spaced = f"The plank is {whole} {part} m long."
        assert _amount(spaced) == ("length", pytest.approx(expected))


def test_superscripts_are_powers_not_fractions() -> None:
    assert _amount("The tile is 400 cm².") == ("area", pytest.approx(0.04))
    assert _amount("The tank is 2 m³.") == ("volume", pytest.approx(2.0))
    assert _amount("The tank is 2000 litres.") == ("volume", pytest.approx(2.0))


@pytest.mark.parametrize(
    ("text", "dim", "value"),
    [
        ("The laser emits 5 mW.", "power", 0.005),
        ("The turbine delivers 5 MW.", "power", 5e6),
        ("The turbine delivers 5MW.", "power", 5e6),
        ("The phone battery holds 4000 mAh.", "charge", 14400.0),
        ("The cable carries 16 A.", "current", 16.0),
        ("The mains supply is 230 V.", "voltage", 230.0),
    ],
)
def test_the_case_of_a_prefix_decides_milli_or_mega(text, dim, value) -> None:
    assert _amount(text) == (dim, pytest.approx(value))


def test_one_letter_articles_and_versus_are_not_amperes_or_volts() -> None:
    dims = {
        v.dim
        for text in ("The team won 2 v 1.", "Take 5 a week.", "Buy 3 a.")
        for v in read(text).of("number")
    }
    assert not dims & {"voltage", "current"}
    assert _amount("The fuse is 3 A.")[0] == "current"


def test_a_fluid_ounce_is_a_volume_and_an_ounce_a_mass() -> None:
    assert _amount("Mix 8 fl oz of stock.") == ("volume", pytest.approx(236.6e-6, rel=1e-3))
    assert _amount("Mix 8 fluid ounces of stock.")[0] == "volume"
    assert _amount("Weigh 8 oz of flour.")[0] == "mass"


def test_money_per_fortnight_is_read_per_year() -> None:
    assert _amount("Pocket money is €140 a fortnight.") == (
        "currency:EUR/year",
        pytest.approx(_amount("Pocket money is €10 a day.")[1]),
    )


def test_crowns_are_not_taken_for_one_of_the_four_crowns() -> None:
    assert _amount("The ferry ticket costs 300 kr.")[0] == "currency:crown"
    assert _amount("The ferry ticket costs 300 SEK.")[0] == "currency:SEK"
    assert _amount("The ferry ticket costs EGP 300.")[0] == "currency:EGP"
