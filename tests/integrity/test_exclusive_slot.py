"""A single-valued slot changed: two statements equal but for one short span, the
object of the same predicate of the same subject ("X lives in A" / "X lives in B", "the
door is open" / "is closed"), is a conflict to resolve in any language; the same span
near the start names another subject. ``features.span_late`` says where the one changed
span sits; the `none` head of round 8 weighs it (docs/curators/pair-model.md).

Before, without a sentence encoder, a person's move in Italian was answered `uncertain`
and an opposite state (open / closed) `compatible`. Every statement is invented.
"""

from __future__ import annotations

import pytest

from integrity.detection.classifier import CONTRADICTION, DUPLICATE, classify_pair
from integrity.detection.features import FEATURE_NAMES, pair_features, span_late
from integrity.detection.structure import read

SPAN = FEATURE_NAMES.index("span_late")

MOVES = [
    ("Omar lives in Leeds.", "Omar lives in Bristol."),
    ("Marco vive a Torino.", "Marco vive a Genova."),
    ("O Rui mora em Braga.", "O Rui mora em Faro."),
    ("Lucía vive en Bilbao.", "Lucía vive en Cádiz."),
    ("Chloé habite à Lille.", "Chloé habite à Nice."),
]
OPPOSITE_STATES = [
    ("The freezer door is open.", "The freezer door is closed."),
    ("La porta del magazzino è aperta.", "La porta del magazzino è chiusa."),
    ("A janela da cozinha está aberta.", "A janela da cozinha está fechada."),
    ("Le guichet de la gare est ouvert.", "Le guichet de la gare est fermé."),
    ("The pump pressure runs high.", "The pump pressure runs low."),
]


@pytest.mark.parametrize(("old", "new"), MOVES + OPPOSITE_STATES)
def test_the_last_span_changed_is_late(old: str, new: str) -> None:
    assert span_late(read(old), read(new)) == pytest.approx(1.0)
    assert pair_features(old, new)[SPAN] == pytest.approx(1.0)


def test_a_subject_changed_is_early_and_other_differences_are_not_a_slot() -> None:
    early = span_late(
        read("The Oslo branch of Brightwell opens at nine every day."),
        read("The Bergen branch of Brightwell opens at nine every day."),
    )
    assert 0 < early < 0.3
    # an added detail, two separate changes, a long rewrite: no single slot
    assert span_late(read("Omar lives in Leeds."), read("Omar lives in Leeds with a dog.")) == 0
    assert span_late(read("Omar lives in Leeds."), read("Ines works in Bristol.")) == 0
    assert (
        span_late(read("Omar lives in Leeds."), read("Omar has moved to a flat near Bristol.")) == 0
    )
    assert span_late(read(""), read("Omar lives in Leeds.")) == 0


def test_the_same_value_written_another_way_is_not_a_slot_changed() -> None:
    old, new = "The kettle holds 2 litres.", "The kettle holds 2000 ml."
    assert pair_features(old, new)[SPAN] == 0
    assert classify_pair(old, new).label == DUPLICATE
    # another value in the same place is
    assert pair_features(old, "The kettle holds 1500 ml.")[SPAN] > 0.5


@pytest.mark.parametrize(("old", "new"), MOVES)
def test_a_person_moving_is_a_contradiction_in_every_language(old: str, new: str) -> None:
    assert classify_pair(old, new).label == CONTRADICTION


@pytest.mark.parametrize(("old", "new"), OPPOSITE_STATES)
def test_an_opposite_state_is_a_contradiction(old: str, new: str) -> None:
    assert classify_pair(old, new).label == CONTRADICTION
