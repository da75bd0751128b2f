"""Issue 28, round 11: values the reader did not read. A fraction named by a noun is a
share of a whole ("half of the members" = "50 % of the members") or a part of a unit
("three quarters of an hour" = "45 minutes"); French data sizes in octets ("To", "Go");
data sizes written out ("gibibyte"); Portuguese "dos" ("of the") is no number two;
"Marco", a first name, is no month.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read


def _numbers(text: str) -> list[tuple[str, float]]:
    return [(v.dim, round(v.lo, 6)) for v in read(text).values if v.kind == "number"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Half of the members voted.", [("percent", 50.0)]),
        ("Three quarters of the members voted.", [("percent", 75.0)]),
        ("Un quarto dei soci ha votato.", [("percent", 25.0)]),
        ("A metade dos sócios votou.", [("percent", 50.0)]),
        ("The walk takes three quarters of an hour.", [("duration", 2700.0)]),
        ("The walk takes a quarter of an hour.", [("duration", 900.0)]),
        ("La passeggiata dura due quarti d'ora.", [("duration", 1800.0)]),
        ("O cartão tem meio gigabyte.", [("data", 5e8)]),
        ("Le disque fait 3 To.", [("data", 3e12)]),
        ("Le disque fait 3000 Go.", [("data", 3e12)]),
        ("The card holds half a gibibyte.", [("data", 0.5 * 1024**3)]),
    ],
)
def test_fractions_and_data_sizes_are_read(text, expected):
    assert _numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    ["She ran a half marathon.", "Ela correu uma meia maratona.", "We go to 3 shops."],
)
def test_a_fraction_without_a_whole_or_a_unit_is_no_amount(text):
    assert not [v for v in read(text).values if v.kind == "number" and v.dim]


def test_portuguese_dos_is_no_number_two():
    assert _numbers("40% dos sócios votaram.") == [("percent", 40.0)]
    assert _numbers("Tengo dos gatos.") == [("", 2.0)]


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Half of the members voted for the plan.", "50% of the members voted for the plan."),
        ("La sauvegarde de la base occupe 3 To.", "La base sauvegardée occupe 3000 Go."),
        ("The walk takes three quarters of an hour.", "The walk takes 45 minutes."),
    ],
)
def test_a_fraction_written_as_a_number_is_no_new_value(existing, new):
    assert duplicate_blockers(existing, new) == []


def test_a_fraction_against_another_share_blocks_a_duplicate():
    assert duplicate_blockers("Half of the members voted.", "30% of the members voted.")


def test_marco_is_a_month_only_next_to_a_number():
    assert not [v for v in read("Marco vive a Torino.").values if v.kind == "date"]
    assert [v.key for v in read("Em marco de 2020 ele mudou.").values if v.kind == "date"] == [
        (2020, 3, None)
    ]
