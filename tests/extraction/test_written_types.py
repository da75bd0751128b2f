"""A name whose writing says its kind keeps that kind whatever the type model guesses:
``grind()`` is a function, ``--coarse`` an option, ``quernrc(5)`` a file format."""

from __future__ import annotations

import numpy as np

from books.extraction.decide import TermRow, rows_decide
from books.extraction.scoring import Linear, Scorer
from books.extraction.types import type_written


def keep_all_call_concepts(width: int) -> Scorer:
    """A scorer keeping every term and typing every one a concept."""

    def linear(classes=(), intercept=(5.0,)) -> Linear:
        rows = max(len(classes), 1)
        return Linear(
            np.zeros(width),
            np.ones(width),
            np.zeros((rows, width)),
            np.asarray(intercept),
            tuple(classes),
            0.5,
        )

    return Scorer(
        entity=linear(),
        type=linear(("concept", "function", "option"), (3.0, 0.0, 0.0)),
        define=linear(),
        info={},
    )


def test_the_writing_of_a_call_an_option_or_a_manual_page_decides_its_type():
    names = ["grind()", "--coarse", "quernrc(5)", "grind", "Quern.Settings"]
    rows = [TermRow(key=n.casefold(), display=n, aliases=(), features=[0.0] * 4) for n in names]
    decided = {d.display: d.type for d in rows_decide(rows, keep_all_call_concepts(4))}
    assert decided == {
        "grind()": "function",
        "--coarse": "option",
        "quernrc(5)": "format",
        "grind": "concept",  # a bare word: the model's to type
        "Quern.Settings": "concept",  # a dotted name may be of several kinds
    }


def test_only_unambiguous_writing_counts():
    assert type_written("ls(1)") == "command"
    assert type_written("sortkey") is None
    assert type_written("SORT_KEY") is None  # a constant, an option or an error code
