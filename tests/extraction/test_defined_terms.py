"""A term rated a little under the entity threshold is kept when the define model is
sure a chunk of prose defines it (a glossary's entry), and only then."""

from __future__ import annotations

import numpy as np

from books.chunking import chunk_sections
from books.extraction.candidates import book_term_rows
from books.extraction.decide import rows_decide
from books.extraction.scoring import Linear, Scorer
from books.parsing import parse_document

# Invented text: a glossary of a made-up tool.
GLOSSARY = """\
Glossary
========

spool ledger
    A record of every batch the daemon has written to disk, kept until the
    batches are flushed. The spool ledger is read again at start-up.

Flushing
========

When the daemon flushes, the spool ledger is emptied and the batches are sent.
"""


def scorer(rows, *, entity_threshold: float, define_threshold: float) -> Scorer:
    """Every term rated 0.5 by the entity model, every chunk 0.5 by the define model."""
    width = len(rows[0].features)
    options = next(len(r.option_features[0]) for r in rows if r.option_features)

    def linear(n: int, **kwargs) -> Linear:
        return Linear(np.zeros(n), np.ones(n), np.zeros((1, n)), np.zeros(1), **kwargs)

    return Scorer(
        entity=linear(width, threshold=entity_threshold),
        type=linear(width, classes=("concept",)),
        define=linear(options, threshold=define_threshold),
        info={},
    )


def kept(entity_threshold: float, define_threshold: float) -> set[str]:
    document = parse_document(GLOSSARY.encode(), fmt="text")
    rows = book_term_rows(chunk_sections(document.sections, max_chars=2000))
    chosen = rows_decide(
        rows,
        scorer(rows, entity_threshold=entity_threshold, define_threshold=define_threshold),
    )
    return {d.display.casefold() for d in chosen}


def test_a_term_a_chunk_surely_defines_needs_less_entity_evidence():
    # Rated 0.5 against a threshold of 0.8: kept, as the define model is sure (0.5
    # against a threshold of 0.0).
    assert "spool ledger" in kept(entity_threshold=0.8, define_threshold=0.0)


def test_a_term_no_chunk_surely_defines_stays_under_the_threshold():
    # The same rating, the define model unsure (0.5 against a threshold of 0.4).
    assert "spool ledger" not in kept(entity_threshold=0.8, define_threshold=0.4)
    # Far under the threshold: no definition lifts it.
    assert "spool ledger" not in kept(entity_threshold=2.0, define_threshold=0.0)


# Invented text: a story's chapters, each heading only naming its chapter.
STORY = """\
CHAPTER XIX
===========

The rain had not stopped for three days, and the ferry waited at the pier while
the town argued about the bridge.

CHAPTER XX
===========

By morning the river had risen over the road, and nobody spoke of the bridge again.
"""


def test_a_heading_that_only_names_its_chapter_is_not_a_defined_term():
    document = parse_document(STORY.encode(), fmt="text")
    rows = book_term_rows(chunk_sections(document.sections, max_chars=2000))
    assert "chapter xix" in {row.key for row in rows}
    chosen = rows_decide(rows, scorer(rows, entity_threshold=0.8, define_threshold=0.0))
    assert "chapter xix" not in {d.display.casefold() for d in chosen}
