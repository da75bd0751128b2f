"""Marks of terms that are not entities: stand-in names of examples, and words named
only among other words in capitals (column headers, shouted notices)."""

from __future__ import annotations

from books.chunking import ChunkDraft
from books.extraction.forms import is_placeholder
from books.extraction.termhood import doc_stats


def test_stand_in_names_of_examples_are_marked():
    for name in ("SomeWidget", "MyHandler", "libfoo.a", "foobar", "example.net", "baz_qux"):
        assert is_placeholder(name), name


def test_real_names_are_not_stand_ins():
    for name in ("MySQL", "Python", "food", "Someone", "zlib.h", "barrier", "My Way"):
        assert not is_placeholder(name), name


def test_a_word_between_capitals_is_told_from_the_same_word_in_prose():
    text = (
        "Run the tool to list them:\n\n"
        "    OWNER   PID   SIZE   PATH\n"
        "    root    12    4096   /tmp\n\n"
        "Each PID names a process, and the OWNER column is the user.\n"
    )
    chunk = ChunkDraft(0, ("Listing",), text, 0, len(text))
    stats = doc_stats([chunk], [text], {"pid", "size", "owner"})
    assert stats.counts["size"] == 1 and stats.shouted["size"] == 1
    assert stats.counts["pid"] == 2 and stats.shouted["pid"] == 1
    assert stats.shouted["owner"] == 0  # first of its row: capitals on one side only
