"""Round 9 of issue 21: definitions written in general forms that the term pool missed,
the manual's section numbers as types, a define threshold that does not follow one
fold's spike, and a book naming an entity another book stored does not make a second one
of a guessed type. All texts are written for these tests."""

from __future__ import annotations

import numpy as np
import pytest

from books.chunking import chunk_sections
from books.extraction.forms import described
from books.extraction.termhood import gather
from books.extraction.training import _define_threshold
from books.extraction.types import man_section_type, type_from_syntax
from books.parsing import parse_document

GUIDE = """\
Kettle API
==========

The kettle module boils water for the rest of the package and keeps
its state between calls.

Calls
-----

`kettle_fill(volume, source=None)`
    Fill the kettle with the given volume of water from the named source,
    or from the tap when no source is given.

`KettleEmpty`
    Raised when a call needs water and the kettle holds none.

Terms
-----

Each brew runs in one pot. A "steep" (short timed soak) is a pause of the
brew in which the leaves stay in the water.
"""


def chunks_of(text: str, fmt: str = "markdown"):
    return chunk_sections(parse_document(text.encode(), fmt=fmt).sections, max_chars=2000)


@pytest.fixture(scope="module")
def guide():
    chunks = chunks_of(GUIDE)
    return chunks, gather(chunks, [c.text for c in chunks])


def defined_under(chunks, pool, key: str) -> list[str]:
    return [chunks[i].heading_path[-1] for i in pool.terms[key].defined_in]


def test_a_definition_list_entry_in_code_font_defines_its_term(guide):
    chunks, pool = guide
    assert defined_under(chunks, pool, "kettle_fill") == ["Calls"]
    assert defined_under(chunks, pool, "kettleempty") == ["Calls"]
    for key in ("kettle_fill", "kettleempty"):
        for index, at in pool.terms[key].defined_in.items():
            assert chunks[index].text[at:].casefold().startswith(key)


def test_an_entry_whose_description_opens_in_capitals_on_the_next_line_describes_it():
    entry = "`kettle_fill(volume)`\n    Fill the kettle with water from the tap.\n"
    assert described(entry, "kettle_fill()")[1] == 1.0
    # A name over a line indented no deeper is a list of names, not a description.
    listing = "kettle_fill\nKettle pour\n"
    assert described(listing, "kettle_fill()")[1] == 0.0


def test_a_gloss_in_brackets_between_the_term_and_is_a(guide):
    chunks, pool = guide
    assert defined_under(chunks, pool, "steep") == ["Terms"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("brewctl(1)", "command"),
        ("brewd(8)", "command"),
        ("brew_open(3)", "function"),
        ("brewread(2)", "function"),
        ("brew.conf(5)", "format"),
        ("brewing(7)", None),  # an overview names no single kind
    ],
)
def test_a_manual_reference_is_typed_by_its_section(name, expected):
    assert type_from_syntax(name) == expected
    assert man_section_type(name[-2]) == expected


def test_the_define_threshold_follows_a_good_range_not_one_spike():
    # One right pick at 0.10, five wrong ones at 0.50 and one right pick at 0.51: the
    # gain is highest at 0.51 alone (one grid step), good over the whole low range.
    p = np.asarray([0.10, 0.50, 0.50, 0.50, 0.50, 0.50, 0.51])
    labels = np.asarray([1, 0, 0, 0, 0, 0, 1])
    groups = np.arange(len(p))
    assert _define_threshold(p, labels, groups) <= 0.10


PAGE = """\
brewd(8)                  System Manager's Manual                  brewd(8)

NAME
       brewd - keep the brewing schedule

DESCRIPTION
       brewd reads its schedule from brew.conf(5) and starts each step on time.
       Use brewctl(1) to ask it what runs now; brewctl(1) prints the step and
       the time left. The schedule format is described in brew.conf(5).

SEE ALSO
       brewctl(1), brew.conf(5), brew_open(3)
"""


def test_the_references_of_a_manual_page_are_typed_by_their_sections():
    from books.extraction.candidates import book_candidates

    chunks = chunk_sections(parse_document(PAGE.encode(), fmt="man").sections, max_chars=2000)
    found = {c.name: c.type for c in book_candidates(chunks)}
    assert found["brewctl"] == "command"
    assert found["brew.conf"] == "format"
    assert found["brew_open"] == "function"


def test_a_name_the_model_types_takes_the_type_of_the_entity_already_stored():
    from books.extraction.candidates import book_candidates
    from books.extraction.structure import KnownName

    text = "# Other\n\nA QRZ file, unlike a qrz_file variable, is plain text.\n"
    chunks = chunk_sections(parse_document(text.encode(), fmt="markdown").sections, max_chars=2000)
    alone = {c.name: c.type for c in book_candidates(chunks)}
    assert alone.get("QRZ") not in (None, "concept")  # the model's own guess

    def known(name: str):
        return [KnownName("concept", False)] if name.casefold() == "qrz" else []

    found = {c.name: c.type for c in book_candidates(chunks, known=known)}
    assert found["QRZ"] == "concept"
    assert found["qrz_file"] == alone["qrz_file"]  # a name the rules type keeps it
