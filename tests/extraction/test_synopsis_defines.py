"""A manual page's synopsis declares its functions; the section describing each one is
where it is defined. A special name opening on a dot (".NAME") is counted each time the
text uses it. All texts are written for these tests."""

from __future__ import annotations

from books.chunking import chunk_sections
from books.extraction.candidates import book_candidates
from books.extraction.termhood import doc_stats
from books.parsing import parse_document

PAGE = """\
kite(3)                  Library Functions Manual                  kite(3)

NAME
       kite_fly, kite_land - steer a paper kite

SYNOPSIS
       #include <kite.h>

       int kite_fly(int fd, const struct kite *k);
       int kite_land(int fd);

DESCRIPTION
   Flying
       kite_fly() lifts the kite attached to fd and keeps it in the air until
       the wind drops below the threshold set in the kite structure.

   Landing
       kite_land() winds the string back and lowers the kite to the ground
       without breaking its frame.
"""


def test_a_function_is_defined_where_it_is_described_not_in_the_synopsis():
    document = parse_document(PAGE.encode(), fmt="man")
    chunks = chunk_sections(document.sections, max_chars=2000)
    found = {c.name.removesuffix("()"): c for c in book_candidates(chunks)}
    for name in ("kite_fly", "kite_land"):
        assert found[name].type == "function"
        define = found[name].define
        assert define is None or chunks[define[0]].heading_path[-1] != "SYNOPSIS"


def test_a_special_name_opening_on_a_dot_is_counted_where_it_is_used():
    text = "Set .TIDYUP in the file.\n\nThe .TIDYUP target runs last; .TIDYUP may be empty."
    document = parse_document(text.encode(), fmt="markdown")
    chunks = chunk_sections(document.sections, max_chars=2000)
    stats = doc_stats(chunks, [c.text for c in chunks], {".tidyup"})
    assert stats.counts[".tidyup"] == 3
