"""Issue 27 item 2: the pair judgement takes linear time on any text.

The check endpoint is open to readers and took 24.5 s for "1" x 10,000 (a temperature
rewrite in the old normaliser). No timing is asserted here (speed figures live in
``python -m benchmarks integrity``); what a user would notice is that such input is
answered at all, and that the work done grows with the text, not its square: counted
as the number of tokens the structure reader looks at.
"""

from __future__ import annotations

import pytest

from integrity.detection import tokens
from integrity.detection.classifier import VERDICT_LABELS, classify_pair
from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read

SHAPES = {
    "digits": lambda n: "1" * n,
    "digit groups": lambda n: "1," * (n // 2),
    "spaced digits": lambda n: "1 " * (n // 2),
    "spaces": lambda n: "a" + " " * n + "b",
    "degrees": lambda n: "5°F " * (n // 4),
    "money rates": lambda n: "€5 a month " * (n // 11),
    "thousands": lambda n: "1" + " 000" * (n // 4),
    "apostrophes": lambda n: "l'" * (n // 2),
    "multipliers": lambda n: "2 milioni " * (n // 10),
    "clock cues": lambda n: "at 5 " * (n // 5),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_pathological_text_of_20000_characters_answers_a_verdict(shape: str) -> None:
    text = SHAPES[shape](20_000)
    verdict = classify_pair(text, text[::-1])
    assert verdict.label in VERDICT_LABELS
    assert duplicate_blockers(text, text + "1")  # far too long to fold into another


def test_ten_thousand_ones_no_longer_hang_the_check():
    # The case of the issue: "1" x 10,000 against a fact.
    verdict = classify_pair("The oven is at 180 °C.", "1" * 10_000)
    assert verdict.label in VERDICT_LABELS


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reading_work_grows_linearly(shape: str, monkeypatch) -> None:
    calls = {"n": 0}
    free = tokens.free

    def counted(r, i):
        calls["n"] += 1
        return free(r, i)

    for module in ("amounts", "dates"):
        monkeypatch.setattr(f"integrity.detection.{module}.free", counted)
    work = []
    for n in (5_000, 10_000, 20_000):
        calls["n"] = 0
        reading = read(SHAPES[shape](n))
        work.append(calls["n"] + len(reading.tokens))
    assert work[2] <= 2.5 * work[1] and work[1] <= 2.5 * work[0], work
