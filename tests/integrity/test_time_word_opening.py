"""A word of time opening a sentence ("Today ...", "Oggi ...", "Hoje ...") is capitalised,
so the reader takes it for a weak name, and ``time_apart`` (each side anchored at a time
the other does not name, and another difference) never saw it: a statement about 2018
against one about today scored as two states at the same time."""

from __future__ import annotations

import pytest

from integrity.detection.features import FEATURE_NAMES, pair_features

AT = FEATURE_NAMES.index("time_apart")


@pytest.mark.parametrize(
    "then, now",
    [
        ("In 2018 Ugo swam 3 km every morning.", "Today Ugo no longer swims."),
        ("Nel 2018 Ugo nuotava 3 km ogni mattina.", "Oggi Ugo non nuota più."),
        ("Em 2018 o Ugo nadava 3 km todas as manhãs.", "Hoje o Ugo já não nada."),
    ],
)
def test_a_time_word_opening_the_sentence_anchors_it_in_time(then: str, now: str) -> None:
    assert pair_features(then, now)[AT] == 1.0
    assert pair_features(now, then)[AT] == 1.0


def test_a_capitalised_time_word_alone_is_no_change_over_time() -> None:
    # Only the time differs: no other value or negation apart.
    assert pair_features("Ugo swims 3 km.", "Today Ugo swims 3 km.")[AT] == 0.0
