"""What a sure definition may vouch for: a term rated under the entity threshold is kept
when the define model is sure a chunk defines it, but only when the chunk's heading is
the term or the term opens one of its lines as a whole word and the line describes it,
and never for a phrase of the language's commonest words or words in capitals."""

from __future__ import annotations

from books.chunking import chunk_sections
from books.extraction.candidates import book_term_rows
from books.extraction.decide import rows_decide
from books.parsing import parse_document
from tests.extraction.test_defined_terms import scorer


def rows_and_kept(text: str, fmt: str = "text") -> tuple[set[str], set[str]]:
    """(the pool's term keys, the terms kept) with every term rated 0.5 against an
    entity threshold of 0.8, and every chunk sure to define (0.5 against 0.0)."""
    document = parse_document(text.encode(), fmt=fmt)
    rows = book_term_rows(chunk_sections(document.sections, max_chars=2000))
    chosen = rows_decide(rows, scorer(rows, entity_threshold=0.8, define_threshold=0.0))
    return {row.key for row in rows}, {d.display.casefold() for d in chosen}


# Invented text: the reference of a made-up call, whose options are listed in code.
PLURAL_IN_CODE = """\
# Reference

## `spin(target[, widgets])`

* `target` {string}
* `widgets` {Object}

Each widget may hold a colour. A widget is drawn once per frame, and a widget
left empty is skipped by the renderer.

## Drawing

The renderer draws every widget of the frame in the order the list gives.
"""


def test_a_longer_word_opening_a_line_does_not_vouch_for_the_term_it_begins_with():
    # "widgets` {Object}" opens a line with "widget" + "s": the letter after the name is
    # no lower-case word describing it (the `{` is what follows the word).
    terms, kept = rows_and_kept(PLURAL_IN_CODE, fmt="markdown")
    assert "widget" in terms
    assert "widget" not in kept


# Invented text: a header's declarations, each line a statement with a comment column.
DECLARATIONS = """\
Data layout
===========

The frame buffer is made of rows of cells, declared as follows:

    frob short CELL;            one cell of the frame, a signed value
    frob CELL *ROW;             a pointer to one row of cells
    frob ROW *FRAME;            a pointer to the rows of a frame

Every frame is cleared before it is drawn, and its rows are kept in one block.

Drawing
=======

The renderer reads each frame once and never writes to it while drawing rows: a
frame declared by a frob line is never copied.
"""


def test_a_statement_of_code_opening_a_line_does_not_vouch_for_its_first_word():
    terms, kept = rows_and_kept(DECLARATIONS)
    assert "frob" in terms
    assert "frob" not in kept


# Invented text: running prose whose lines happen to open on a phrase of common words.
PROSE = """\
Scheduling
==========

The daemon wakes every minute and checks the queue. When it finds the
next step is ready, it runs it and records the result in the journal; the
next step is then taken from the queue.

Journal
=======

The journal keeps the result of each
next step that the daemon ran, with its time and its exit status.
"""


def test_a_phrase_of_the_commonest_words_is_not_vouched_for_by_a_definition():
    terms, kept = rows_and_kept(PROSE)
    assert "next step" in terms
    assert "next step" not in kept


# Invented text: a glossary whose entry is written in the plural.
GLOSSARY = """\
Glossary
========

spool ledgers
    Records of every batch the daemon has written to disk. A spool ledger is
    kept until its batches are flushed.

Flushing
========

When the daemon flushes, the spool ledger is emptied and the batches are sent.
The spool ledger is read again at start-up.
"""


def test_an_entry_written_in_the_plural_still_vouches_for_the_term():
    _terms, kept = rows_and_kept(GLOSSARY)
    assert "spool ledger" in kept


# Invented text: a manual page's section in capitals and an example's stand-in name.
STAND_INS = """\
Setup
=====

SPOOLDIR
    The folder the daemon writes its batches to, created at start-up.

foo queue
    the queue of the examples below, standing for any queue of yours.

Running
=======

The daemon reads SPOOLDIR when it starts and empties the foo queue into the remote host.
"""


def test_words_in_capitals_and_stand_in_names_are_not_vouched_for():
    terms, kept = rows_and_kept(STAND_INS)
    assert {"spooldir", "foo queue"} <= terms
    assert not {"spooldir", "foo queue"} & kept
