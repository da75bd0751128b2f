"""A plain proper name the scorer rates low is not vetoed: NER judges it from its
sentence (a person thanked once, a town named twice), while other low-rated terms stay
rejected."""

from __future__ import annotations

import numpy as np

from books.chunking import chunk_sections
from books.extraction.candidates import book_term_rows
from books.extraction.decide import rows_rejected
from books.extraction.scoring import Linear, Scorer
from books.extraction.termhood import term_key
from books.parsing import parse_document

# Invented text: a tool's notes, thanking a person and naming a town.
NOTES = """\
Kettlewick notes
================

Kettlewick batches the upload queue. The upload queue holds files until it is flushed.

Thanks
------

Thanks to Orla Brennick, who lives in Dunmarrow, for the first port of the upload queue.

History
-------

The team met in Dunmarrow to plan the upload queue; Orla Brennick wrote the notes.
"""


def reject_everything(rows) -> Scorer:
    """A scorer that rates every term under its threshold."""
    width = len(rows[0].features)
    options = next((len(r.option_features[0]) for r in rows if r.option_features), 1)

    def linear(n: int, **kwargs) -> Linear:
        return Linear(np.zeros(n), np.ones(n), np.zeros((1, n)), np.zeros(1), **kwargs)

    return Scorer(
        entity=linear(width, threshold=0.9),
        type=linear(width, classes=("concept",)),
        define=linear(options, threshold=1.1),
        info={},
    )


def test_a_plain_name_rated_low_is_left_to_ner_and_other_terms_are_rejected():
    document = parse_document(NOTES.encode(), fmt="text")
    rows = book_term_rows(chunk_sections(document.sections, max_chars=2000))
    keys = {row.key for row in rows}
    assert {"orla brennick", "dunmarrow", "upload queue"} <= keys
    rejected = {term_key(name) for name in rows_rejected(rows, [], reject_everything(rows))}
    assert "upload queue" in rejected  # a lower-case phrase: the scorer's to judge
    assert not {"orla brennick", "dunmarrow"} & rejected  # names: NER's to judge
