""" "a" and "as" are clock words in Portuguese, Spanish and Italian ("a uma", "as sete"), and
an article and a conjunction in English: in an English statement the number after them is
a count, not an hour. Before, "a dozen" read as noon and "as two" as 02:00, so "a dozen"
against "12" was answered a contradiction.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.classifier import CONTRADICTION, DUPLICATE, classify_pair
from integrity.detection.structure import read


@pytest.mark.parametrize(
    "text",
    [
        "The bakery sold a dozen loaves.",
        "The choir sings as two groups.",
        "The club trains as 3 squads.",
    ],
)
def test_an_english_article_or_conjunction_is_no_clock_word(text: str) -> None:
    reading = read(text)
    assert not reading.of("time") and reading.of("number")


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("O ônibus sai às sete.", 420),
        ("O ônibus sai as 7.", 420),
        ("El autobús sale a las siete.", 420),
        ("The bus leaves at seven.", 420),
    ],
)
def test_the_clock_words_still_read_an_hour(text: str, minutes: int) -> None:
    [time] = read(text).of("time")
    assert time.key[0] == minutes


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        ("The bakery sold a dozen loaves.", "The bakery sold 12 loaves.", DUPLICATE),
        ("The bakery sold a dozen loaves.", "The bakery sold 20 loaves.", CONTRADICTION),
    ],
)
def test_a_dozen_is_twelve(existing: str, new: str, label: str) -> None:
    assert classify_pair(existing, new).label == label
