"""Round 10 of issue 28: two readings that turned ordinary words into values.

A short weekday form ("Sun", "Sat", "Mon") was a weekday wherever it was capitalised, so
"the Sun" and "Sun Records" gave a statement a weekday the other side lacked: a value
the pair model reads as a change and the duplicate guard as new information. Now a short
form after an article, or opening a name of several capitalised words, is a word.

A capital letter written after a number was a unit symbol ("13 A" amperes, "4 B"
bytes), also when the number names something: "Flat 12 A" was twelve amperes. Now a
number right after a capitalised word that is no function word, with one capital letter
after it, is one label ("12 a"): two flats differ as labels, and neither is an amount.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read


def _kinds(text: str) -> list[tuple[str, tuple]]:
    return [(v.kind, v.key) for v in read(text).values if v.kind != "name"]


@pytest.mark.parametrize(
    "text",
    [
        "Venus is the brightest object in the sky after the Sun and the Moon.",
        "Sun Records released her first single in 1954.",
        "The probe took photos of the Sun.",
        "La Sun è una piccola casa discografica.",
    ],
)
def test_a_short_weekday_form_used_as_a_word_is_no_weekday(text):
    assert not read(text).of("weekday")


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("The bakery is closed on Sun.", [6]),
        ("Yoga classes run Mon, Wed and Fri.", [0, 2, 4]),
        ("Open Mon Tue and Sat from nine.", [0, 1, 5]),
        ("The market opens on Sat at 08:00.", [5]),
    ],
)
def test_a_short_weekday_form_in_a_schedule_is_still_a_weekday(text, days):
    assert [v.key[0] for v in read(text).of("weekday")] == days


def test_the_sun_gives_the_guard_no_weekday_to_block_on():
    blockers = duplicate_blockers(
        "Mercury is the planet nearest to the star.",
        "Mercury is the planet nearest to the Sun.",
    )
    assert not any(b.startswith("weekday") for b in blockers)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Priya rents Flat 7 B near the station.", "7 b"),
        ("Flat 12 A is on the second floor.", "12 a"),
        ("Boarding for the Oslo flight is at Gate 22 C.", "22 c"),
    ],
)
def test_a_letter_after_a_labelled_number_is_part_of_the_label(text, label):
    reading = read(text)
    assert [v.key[0] for v in reading.of("ident")] == [label]
    assert not reading.of("number")


@pytest.mark.parametrize(
    ("text", "dim"),
    [
        ("A 13 A fuse protects the kettle.", "current"),
        ("The heater draws 9 A at full power.", "current"),
        ("The charger gives 5 V.", "voltage"),
        ("The kettle fuse is rated 13A.", "current"),
    ],
)
def test_a_unit_letter_after_a_plain_number_is_still_a_unit(text, dim):
    assert [v.dim for v in read(text).of("number")] == [dim]


def test_two_flats_are_two_labels_for_the_guard():
    assert duplicate_blockers("Priya rents Flat 7 A.", "Priya rents Flat 7 B.")
    assert not duplicate_blockers("Priya rents Flat 7 B.", "Priya rents Flat 7 B, furnished.")
