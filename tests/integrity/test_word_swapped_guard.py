"""Issue 28, round 15: two statements equal but for one word put in place of another
("the staging cluster" / "the production cluster") are never folded into one: the slot
holds another thing. The pair model gave such a pair a duplicate probability of 0.83,
under the committed cut-off of 0.85 only by a margin; a fold that chose 0.8 folded it.
A word in another form ("miopia" / "míope") or a value written another way is not
such a swap.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.guard import duplicate_blockers


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        (
            "The staging cluster's autoscaler allows at most 40 nodes.",
            "The production cluster's autoscaler allows at most 40 nodes.",
        ),
        ("Il bollettino di marzo è stato approvato.", "Il bollettino di marzo è stato respinto."),
        ("A bicicleta do Tiago é vermelha.", "A bicicleta do Tiago é azul."),
    ],
)
def test_one_word_put_in_place_of_another_is_never_a_duplicate(stored, new):
    assert "a word put in place of another" in duplicate_blockers(stored, new)


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("O Tiago tem miopia.", "O Tiago é míope."),
        ("The night nurse checks every chart.", "The night nurse checked every chart."),
        ("The ferry takes 3 hours.", "The ferry takes three hours."),
    ],
)
def test_another_form_of_the_same_word_may_still_be_folded(stored, new):
    assert duplicate_blockers(stored, new) == []
