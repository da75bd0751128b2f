"""A concentration over litres ("1 mol/L", "250 mmol/L", "5 mg/dL") is an amount of
its own dimension. Before, a clock cue in front of it ("à", "a", "at") made the number
an hour, "à 1 mol/L" was one o'clock and "mol/L" an identifier: the same concentration
written in millimoles was never a duplicate (a time the other side lacks blocked it)."""

from __future__ import annotations

import pytest

from integrity.detection.classifier import classify_pair
from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read


@pytest.mark.parametrize(
    "text",
    ["Le tampon est à 2 mol/L.", "Il tampone è a 2 mol/l.", "The buffer is held at 2 mol/L."],
)
def test_a_concentration_after_a_clock_cue_is_no_clock_time(text: str) -> None:
    values = read(text).values
    assert [v.kind for v in values] == ["number"], values
    assert values[0].dim == "molar concentration"


@pytest.mark.parametrize(
    "stored, new",
    [
        ("Le tampon est à 2 mol/L.", "Le tampon titre 2000 mmol/L."),
        ("Il siero di Ugo è a 0,5 g/L di ferro.", "Il siero di Ugo è a 500 mg/L di ferro."),
    ],
)
def test_the_same_concentration_in_another_prefix_is_a_duplicate(stored: str, new: str) -> None:
    assert duplicate_blockers(stored, new) == []
    assert classify_pair(stored, new).label == "duplicate"


def test_another_concentration_is_still_a_changed_value() -> None:
    blockers = duplicate_blockers("Le tampon est à 2 mol/L.", "Le tampon est à 3 mol/L.")
    assert blockers and "mol/L" in blockers[0]
