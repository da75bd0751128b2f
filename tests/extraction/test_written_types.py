"""A name whose writing says its kind keeps that kind whatever the type model guesses:
``grind()`` is a function, ``--coarse`` an option, ``quernrc(5)`` a file format."""

from __future__ import annotations

import numpy as np

from books.chunking import chunk_sections
from books.extraction.candidates import book_term_rows
from books.extraction.decide import TermRow, rows_decide
from books.extraction.scoring import Linear, Scorer
from books.extraction.types import type_written
from books.parsing import parse_document


def keep_all_call_concepts(width: int, define_width: int = 1) -> Scorer:
    """A scorer keeping every term and typing every one a concept (it marks no chunk as
    defining: the define model's weights are those of ``define_width`` features)."""

    def linear(classes=(), intercept=(5.0,), width=width) -> Linear:
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
        define=linear(intercept=(-5.0,), width=define_width),
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


NOTES = """\
Quern notes
===========

Call millgrind(batch, size) once per batch. When millgrind(batch, 0) returns early, the
batch is empty; millgrind never blocks. Then call grainsettle(batch): grainsettle keeps
the grain, and grainsettle logs it.

Errors
======

A failed millgrind(batch, size) leaves the batch as it was; grainsettle then keeps
nothing.
"""


def test_a_word_the_text_writes_as_a_call_is_named_and_typed_a_function():
    document = parse_document(NOTES.encode(), fmt="text")
    rows = book_term_rows(chunk_sections(document.sections, max_chars=2000))
    scorer = keep_all_call_concepts(len(rows[0].features), len(rows[0].option_features[0]))
    decided = {d.display: d.type for d in rows_decide(rows, scorer)}
    assert decided.get("millgrind()") == "function"  # three calls of four occurrences
    assert "millgrind" not in decided
    assert "grainsettle" in decided  # one call of four: not enough to say
