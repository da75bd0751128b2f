"""The structure reader: the values a statement states, in the forms people write them.

Hand-written code for structure (numbers, units, dates, times, names); the learned pair
model decides what a difference means. Every example here is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import parse_number, read


def values(text: str, kind: str) -> list:
    return read(text).of(kind)


def amount(text: str) -> tuple[str, float]:
    [v] = values(text, "number")
    return v.dim, round(v.lo, 6)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1.72", 1.72),
        ("1,72", 1.72),
        ("1,000", 1000.0),
        ("1.000", 1000.0),
        ("1.200,50", 1200.5),
        ("1,200.50", 1200.5),
        ("1.2.3", None),
    ],
)
def test_numbers_as_each_language_groups_them(raw: str, expected: float | None) -> None:
    assert parse_number(raw) == expected


@pytest.mark.parametrize(
    ("text", "dim", "base"),
    [
        ("The crate weighs 2.5 kg.", "mass", 2.5),
        ("La cassa pesa 2500 g.", "mass", 2.5),
        ("It measures 5 ft 8 in.", "length", 1.7272),
        ("She is 5'8\" tall.", "length", 1.7272),
        ("Il volo dura un'ora e dieci minuti.", "duration", 4200.0),
        ("It lasts an hour and a half.", "duration", 5400.0),
        ("Keep it at 77 °F.", "temperature", 25.0),
        ("Keep it at 298.15 K.", "temperature", 25.0),
        ("Store it at −18 °C.", "temperature", -18.0),
        ("Il corso costa duemila euro.", "currency:EUR", 2000.0),
        ("O carro custou quatro mil e quinhentos reais.", "currency:BRL", 4500.0),
        ("The round raised $2.5 million.", "currency:USD", 2_500_000.0),
        ("La obra costó 4,5 millones de euros.", "currency:EUR", 4_500_000.0),
        ("Il serbatoio contiene 3 milioni di litri.", "volume", 3000.0),
        ("Le chantier a coûté 3 millions d'euros.", "currency:EUR", 3_000_000.0),
        ("Le loyer est de 1 200 € par mois.", "currency:EUR/year", 14400.0),
        ("The plan costs 12 USD a month.", "currency:USD/year", 144.0),
    ],
)
def test_amounts_are_read_in_a_base_unit(text: str, dim: str, base: float) -> None:
    assert amount(text) == (dim, pytest.approx(base, rel=1e-3))


def test_ranges_and_bounds_are_intervals() -> None:
    [between] = values("We need between 4 and 9 volunteers.", "number")
    assert (between.lo, between.hi) == (4.0, 9.0)
    [dash] = values("Shifts last 6-8 hours.", "number")
    assert (dash.lo, dash.hi) == (6 * 3600.0, 8 * 3600.0)
    [most] = values("At most 12 guests are allowed.", "number")
    assert most.lo == float("-inf") and most.hi == 12.0


@pytest.mark.parametrize(
    "text",
    [
        "Due on 14 March 2031.",
        "Scadenza il 14 marzo 2031.",
        "Vence em 14 de março de 2031.",
        "Due on March 14, 2031.",
        "Due on 2031-03-14.",
        "Due on 14/03/2031.",
        "Due on 03/14/2031.",
    ],
)
def test_dates_in_many_forms_are_one_date(text: str) -> None:
    [date] = values(text, "date")
    assert date.key[:3] == (2031, 3, 14) or date.key[3] == (2031, 3, 14)


@pytest.mark.parametrize(
    ("text", "minutes", "utc"),
    [
        ("The call is at 14:30.", 870, None),
        ("The call is at 2:30 pm.", 870, None),
        ("La chiamata è alle sei e mezza di sera.", 1110, None),
        ("A reunião é às 19h.", 1140, None),
        ("The sync runs at 02:00 UTC.", 120, 120),
        ("The sync runs at 03:00 CET.", 180, 120),
        ("The sync runs at 9am GMT+2.", 540, 420),
        ("Lunch is at noon.", 720, None),
    ],
)
def test_clock_times_with_their_zone(text: str, minutes: int, utc: int | None) -> None:
    [time] = values(text, "time")
    assert time.key == (minutes, utc)


def test_identifiers_names_and_negation() -> None:
    r = read("Yusuf Adeyemi closed ticket OPS-4471 on release v3.2.1, not the backlog.")
    assert {v.key[0] for v in r.of("ident")} == {"ops-4471", "v3.2.1"}
    assert {v.key[0] for v in r.of("name")} == {"yusuf", "adeyemi"}
    assert r.negations == 1
    assert read("The pump isn't running.").negations == 1
    assert read("A pousada fica no centro.").negations == 0  # Portuguese "no" = "in the"


@pytest.mark.parametrize(
    "text",
    [
        "El taller nos cobró 80 euros por la revisión.",  # Spanish "nos" = us
        "Le syndic a envoyé nos relevés de charges en mars.",  # French "nos" = our
        "Os vasos ficam nos armários de cima.",  # Portuguese "nos" = in the
    ],
)
def test_nos_is_no_negation(text: str) -> None:
    assert read(text).negations == 0


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Ravi owes 40 EUR.", "Ravi owes 41 EUR."),
        ("The vault code is ZX-8812.", "The vault code is ZX-8821."),
        ("Deploy on 3 May 2030.", "Deploy on 4 May 2030."),
        ("The shuttle leaves at 07:15.", "The shuttle leaves at 07:45."),
        ("Greta Holm approved it.", "Greta Holst approved it."),
        ("Mila approved it.", "Nina approved it."),
        ("The tank holds 40 l.", "The tank holds 40 kg."),
        ("The gate is open.", "The gate is not open."),
    ],
)
def test_any_changed_value_blocks_a_duplicate(existing: str, new: str) -> None:
    assert duplicate_blockers(existing, new)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("The tank holds 40 l.", "The tank holds 40,000 ml."),
        ("The server has 16 GB of memory.", "The server has 16384 MB of memory."),
        ("Maintenance starts at 22:00 UTC.", "Maintenance starts at 23:00 CET."),
        ("Orders ship on 2030-05-03.", "Orders ship on 3 May 2030."),
        ("Tomás is thirty-four.", "Tomás is 34."),
        ("The FDA approved the drug.", "The Food and Drug Administration approved the drug."),
        ("It runs on Kubernetes.", "It runs on k8s."),
        ("Meet on Friday at 9:00 in room B.", "Meet on Friday."),
    ],
)
def test_the_same_value_written_otherwise_does_not_block(existing: str, new: str) -> None:
    assert not duplicate_blockers(existing, new)


def test_names_known_to_the_entity_table_align() -> None:
    def mentions(text: str):
        found = []
        for name in ("HDFS", "Hadoop"):
            start = text.find(name)
            if start >= 0 and not any(s <= start < e for s, e, _k in found):
                found.append((start, start + len(name), "db-1"))
        return found

    # "HDFS" is no shortening of "Hadoop" (a name clipped or contracted to its own
    # letters is aligned without the table, round 11): only the entity table joins them
    existing, new = "Billing stores invoices in Hadoop.", "Billing stores invoices in HDFS."
    assert duplicate_blockers(existing, new)
    assert not duplicate_blockers(existing, new, mentions=mentions)
