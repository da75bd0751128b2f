"""How a kept term is named, and the units of quantities that are never entities
whatever the learned models say: a leading article, a heading's capitals."""

from __future__ import annotations

from collections import Counter

import numpy as np

from books.chunking import ChunkDraft, chunk_sections
from books.extraction.candidates import book_term_rows
from books.extraction.decide import rows_decide
from books.extraction.scoring import Linear, Scorer
from books.extraction.termhood import doc_stats, term_key
from books.extraction.writing import canonical_display
from books.parsing import parse_document

# Invented text: a storage tool, its page sizes and a defined term.
STORE = """\
Shelfdb notes
=============

Shelfdb writes pages of 4 KiB by default; a page may grow to 64 KiB, and the
journal keeps 512 KiB before it rolls over. Run shelfdb compact to merge pages, then
shelfdb check. A store of 2 GiB compacts in about a minute.

Records
-------

"The Ledger" means the list of every page Shelfdb has written. Shelfdb reads the
Ledger at start and rewrites the Ledger after each compaction.

Limits
------

Shelfdb refuses a page over 64 KiB. Keep shelfdb itself on a disk with 1 GiB free.
"""


def chunks_of(text: str):
    document = parse_document(text.encode(), fmt="text")
    return chunk_sections(document.sections, max_chars=2000)


def linear(width: int, **kwargs) -> Linear:
    return Linear(np.zeros(width), np.ones(width), np.zeros((1, width)), np.zeros(1), **kwargs)


def keep_everything(rows) -> Scorer:
    """A scorer that keeps every term of the pool as a concept and defines nothing."""
    width = len(rows[0].features)
    options = next(len(r.option_features[0]) for r in rows if r.option_features)
    return Scorer(
        entity=linear(width, threshold=0.0),
        type=linear(width, classes=("concept",)),
        define=linear(options, threshold=1.1),
        info={},
    )


def decided(text: str) -> dict[str, object]:
    rows = book_term_rows(chunks_of(text))
    return {term_key(d.display): d for d in rows_decide(rows, keep_everything(rows))}


def test_a_unit_written_after_numbers_is_never_an_entity():
    found = decided(STORE)
    assert "kib" not in found and "gib" not in found
    assert "ledger" in found  # the scorer's word on the rest stands


def test_a_leading_article_is_dropped_from_the_name_and_kept_as_an_alias():
    ledger = decided(STORE)["ledger"]
    assert ledger.display == "Ledger"
    assert "The Ledger" in ledger.aliases


def test_a_heading_in_capitals_does_not_set_the_case_of_the_name():
    text = (
        "CONTENT-RANGE\n"
        "    A server sends Content-Range with a partial answer, and a client\n"
        "    reads Content-Range to place the bytes it got.\n"
    )
    chunk = ChunkDraft(0, ("CONTENT-RANGE",), text, 0, len(text))
    rows = {row.key: row for row in book_term_rows([chunk])}
    assert rows["content-range"].display == "Content-Range"


def test_capitals_the_sentences_also_use_are_kept():
    assert canonical_display("JSON", Counter({"JSON": 4, "json": 2})) == "JSON"
    assert canonical_display("RAW MODE", Counter({"raw mode": 3, "RAW MODE": 1})) == "raw mode"
    assert canonical_display("NOTICE", Counter({"notice": 3})) == "notice"
    assert canonical_display("The Shelf", None) == "Shelf"
    assert canonical_display("Then", None) == "Then"
    assert canonical_display("frob()", Counter()) == "frob()"


def test_a_sections_number_is_not_a_quantity():
    text = "3 Widgets\n\nA page holds 4 KiB, and two pages hold 8KiB.\n"
    chunk = ChunkDraft(0, (), text, 0, len(text))
    stats = doc_stats([chunk], [text], {"kib", "widgets"})
    assert stats.after_number["kib"] == 2
    assert stats.after_number["widgets"] == 0


def test_common_words_in_capitals_are_never_entities_but_acronyms_are_scored():
    text = """\
Shelfdb manual
==============

Shelfdb keeps pages. The DER encoding of a page is checked by shelfdb verify.

TROUBLESHOOTING
---------------

When shelfdb verify fails, Shelfdb prints the DER offset of the bad page.

SECURITY
--------

Shelfdb never sends a page to another host. Shelfdb signs every DER page.
"""
    found = decided(text)
    assert "security" not in found
    assert "der" in found


def test_one_word_repeated_is_never_an_entity():
    found = decided(STORE + "\nLog\n---\n\n" + "tick " * 3000 + "\n")
    assert not [key for key in found if key.startswith("tick")]
    assert "ledger" in found  # the scorer's word on the rest stands
