"""Issue 28, round 15: a capitalised word opening a sentence ("Cleaning the site ...",
"Pagamos ...") is read as a weak name. The duplicate guard counts it only when the
other statement lacks a value too (one name put in place of another); the pair
model's value columns counted every one as a name the other side lacks, so a
restatement that opens with an ordinary word looked like new information.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.classifier import classify_pair
from integrity.detection.features import FEATURE_NAMES, pair_features

# Restatements whose new side opens with an ordinary capitalised word, not a name.
OPENING_WORD_PAIRS = [
    (
        "Harlow Services bills us £2,000 monthly for the depot.",
        "Cleaning the depot costs £24,000 yearly, billed by Harlow Services.",
    ),
    (
        "A licença do CRM custa R$ 1.000 mensais.",
        "Pagamos R$ 12.000 ao ano pela licença do CRM.",
    ),
]


def _column(row, name: str) -> float:
    return float(row[FEATURE_NAMES.index(name)])


@pytest.mark.parametrize(("stored", "new"), OPENING_WORD_PAIRS)
def test_an_ordinary_word_opening_a_sentence_is_no_new_name(stored, new):
    row = pair_features(stored, new)
    assert _column(row, "name_new") == 0.0
    assert _column(row, "blocked") == 0.0


def test_one_opening_name_put_in_place_of_another_still_counts():
    row = pair_features("Giorgio lives in Rome.", "Marcello lives in Rome.")
    assert _column(row, "name_new") > 0.0
    assert _column(row, "name_lost") > 0.0
    assert _column(row, "name_swap") == 1.0


@pytest.mark.parametrize(("stored", "new"), OPENING_WORD_PAIRS)
def test_the_committed_model_folds_a_restatement_opening_with_an_ordinary_word(stored, new):
    # Round 14's features and model answered both compatible.
    assert classify_pair(stored, new).label == "duplicate"
