"""Round 10 of issue 28: what lets a restatement through as a duplicate, and two more
things that keep a duplicate verdict away.

``value_converted``: every value of each statement is found on the other, and at least
one amount, date or time is written another way (the reader converted it to see it is
the same). A pair that merely shares its values as written, or adds or changes one,
does not have it. The duplicate guard now also refuses a word put against its
negative-prefixed form ("active" / "inactive") when neither side adds a negation, and
two clock times written alike but followed by different zone words.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.classifier import DUPLICATE, classify_pair
from integrity.detection.features import FEATURE_NAMES, pair_features
from integrity.detection.guard import duplicate_blockers

CONVERTED = FEATURE_NAMES.index("value_converted")


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("The footbridge is 1.2 km long.", "The footbridge is 1,200 metres long."),
        ("The ferry leaves at 17:45.", "The ferry leaves at 5:45 pm."),
        ("Noor's parrot is nine years old.", "Noor's parrot is 9 years old."),
        ("La cisterna contiene 2.000 litri.", "La cisterna contiene 2 m³."),
    ],
)
def test_a_value_written_another_way_is_a_converted_restatement(existing, new):
    assert pair_features(existing, new)[CONVERTED] == 1.0


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("The footbridge is 1.2 km long.", "The footbridge is 1.2 km long and 3 m wide."),
        ("The footbridge is 1.2 km long.", "The footbridge is 1,350 metres long."),
        ("The ferry leaves at 17:45.", "The ferry leaves at 17:45 from pier 4."),
        ("The ferry leaves at 17:45.", "The ferry always leaves at 17:45."),
        ("Noor has a parrot.", "Noor has a green parrot."),
    ],
)
def test_a_value_added_changed_or_written_alike_is_no_conversion(existing, new):
    assert pair_features(existing, new)[CONVERTED] == 0.0


def test_a_converted_restatement_is_a_duplicate():
    verdict = classify_pair("Ellie's kayak weighs 12.5 kg.", "Ellie's kayak weighs 12500 grams.")
    assert verdict.label == DUPLICATE


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("The guest account is active.", "The guest account is inactive."),
        ("Il backup notturno è attivato.", "Il backup notturno è disattivato."),
        ("The side gate is locked.", "The side gate is unlocked."),
    ],
)
def test_a_word_against_its_negative_prefix_form_is_never_a_duplicate(existing, new):
    assert duplicate_blockers(existing, new)
    assert classify_pair(existing, new).label != DUPLICATE


def test_a_negation_and_a_prefix_saying_the_same_is_left_to_the_negation_rule():
    blockers = duplicate_blockers("The side gate is not locked.", "The side gate is unlocked.")
    assert "a word and its opposite" not in blockers


def test_one_clock_time_in_two_zones_named_in_words_is_no_duplicate():
    assert duplicate_blockers(
        "The webinar starts at 16:00 heure de Lyon.", "The webinar starts at 16:00 heure de Dakar."
    )
    assert not duplicate_blockers(
        "The webinar starts at 16:00 heure de Lyon.", "Le webinar commence à 16:00 heure de Lyon."
    )
