"""What a reader of a manual page or a small handbook expects extraction to propose:
the options of an option list, defined in the section that lists them; the page's own
section names and its placeholders never; words broken at a line's end read whole;
definition sentences ("X is a program", '"X" means', "X refers to") marking where the
term is defined. All texts are written for these tests."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from books.chunking import chunk_sections
from books.extraction.candidates import book_candidates
from books.extraction.termhood import gather
from books.parsing import parse_document

MAN = """\
TROWEL(1)                     General Commands                    TROWEL(1)

NAME
       trowel - dig tunnels between hosts

SYNOPSIS
       trowel [-q] [-L port] [-o FILE] host

DESCRIPTION
       trowel opens a tunnel to host and keeps it open. The tunnel is dyna\u2010
       mic and follows the host when it moves.

OPTIONS
       -L port
              Listens on the given local port and forwards it to the host.

       -q     Quiet mode: prints nothing but errors.

       -o FILE
              Writes the transcript to FILE instead of the terminal.

SEE ALSO
       shovel(1)

Trowel 2.0                        2026-01-01                      TROWEL(1)
"""

HANDBOOK = """\
# Orchard handbook

Graftwood is a program that schedules pruning for small orchards.

## Terms

The word "budline" means the seam where a bud was set. A pomewheel refers to the
rotating rack that dries apples.

## Flags

`--dry-soil`
: Assume the ground is parched and water twice.
"""


def read(text: str, fmt: str):
    document = parse_document(text.encode(), fmt=fmt)
    chunks = chunk_sections(document.sections, max_chars=2000)
    return document, chunks


@pytest.fixture(scope="module")
def man():
    document, chunks = read(MAN, "man")
    return document, chunks, {c.name: c for c in book_candidates(chunks)}


def section_of(chunks, candidate) -> str | None:
    if candidate.define is None:
        return None
    return chunks[candidate.define[0]].heading_path[-1]


def test_each_option_of_the_list_is_an_option_defined_in_its_section(man):
    _document, chunks, found = man
    for flag in ("-L", "-q", "-o"):
        assert found[flag].type == "option"
        assert section_of(chunks, found[flag]) == "OPTIONS"


def test_the_option_offsets_point_at_the_flag_in_its_entry(man):
    _document, chunks, found = man
    index, start, end = found["-L"].define
    assert chunks[index].text[start:end] == "-L"
    assert chunks[index].text[end:].startswith(" port\n")


def test_the_sections_of_the_page_are_its_structure(man):
    _document, chunks, _found = man
    assert [c.heading_path[-1] for c in chunks if c.heading_path] == [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "SEE ALSO",
    ]


def test_section_names_are_never_entities(man):
    _document, _chunks, found = man
    sections = {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "SEE ALSO"}
    assert not {name.upper() for name in found} & sections


def test_placeholders_and_arguments_are_never_entities(man):
    _document, _chunks, found = man
    assert not {"FILE", "port", "host"} & set(found)
    assert all(
        c.type != "software" for c in found.values() if c.name.isupper() and len(c.name) <= 4
    )


def test_a_word_groff_broke_at_the_line_end_is_read_whole(man):
    document, chunks, found = man
    assert "dynamic" in document.text
    assert not {"mic", "namic", "dyna"} & {name.casefold() for name in found}
    pool = gather(chunks, [c.text for c in chunks])
    assert "namic" not in pool.terms and "mic" not in pool.terms


@pytest.fixture(scope="module")
def handbook():
    _document, chunks = read(HANDBOOK, "markdown")
    return chunks, gather(chunks, [c.text for c in chunks])


def defined_under(chunks, pool, key: str) -> list[str]:
    return [chunks[i].heading_path[-1] for i in pool.terms[key].defined_in]


def test_a_copular_sentence_defines_its_subject(handbook):
    chunks, pool = handbook
    assert defined_under(chunks, pool, "graftwood") == ["Orchard handbook"]


def test_a_quoted_word_that_means_and_a_term_that_refers_to_are_defined(handbook):
    chunks, pool = handbook
    assert defined_under(chunks, pool, "budline") == ["Terms"]
    assert defined_under(chunks, pool, "pomewheel") == ["Terms"]


def test_definition_offsets_point_at_the_term(handbook):
    chunks, pool = handbook
    for key in ("graftwood", "budline", "pomewheel"):
        for index, at in pool.terms[key].defined_in.items():
            assert chunks[index].text[at : at + len(key)].casefold() == key


def test_a_markdown_definition_list_entry_is_an_option(handbook):
    chunks, _pool = handbook
    found = {c.name: c for c in book_candidates(chunks)}
    assert found["--dry-soil"].type == "option"
    assert section_of(chunks, found["--dry-soil"]) == "Flags"


NOTES = """\
Rotor notes
===========

The rotor of the Gizmo is dyna-
mic and spins; the cable is well-
known to fray and co-
operate with the spool.

Glossary
--------

scionbank
    A store of cuttings kept cold until grafting.

Flags
-----

  -w days   waits the given number of days between waterings.
  -n        never prunes, only reports.
"""


@pytest.fixture(scope="module")
def notes():
    document, chunks = read(NOTES, "text")
    return document, chunks, gather(chunks, [c.text for c in chunks])


def test_an_ascii_hyphen_after_a_piece_that_is_no_word_is_rejoined(notes):
    document, _chunks, pool = notes
    assert "dynamic\n" in document.text
    assert "mic" not in pool.terms and "dyna" not in pool.terms


def test_a_hyphen_between_two_words_stays(notes):
    document, _chunks, _pool = notes
    assert "well-\nknown" in document.text and "co-\noperate" in document.text


def test_a_plain_text_option_list_defines_each_option_in_its_section(notes):
    _document, chunks, pool = notes
    for flag in ("-w", "-n"):
        assert pool.terms[flag].sources["option_list"] == 1
        assert defined_under(chunks, pool, flag) == ["Flags"]
    assert "days" not in pool.terms  # the option's argument


def test_a_glossary_entry_is_defined_where_it_is_described(notes):
    _document, chunks, pool = notes
    assert defined_under(chunks, pool, "scionbank") == ["Glossary"]


_LINES = st.sampled_from(
    [
        "OPTIONS\n",
        "SYNOPSIS\n",
        "       -x name\n",
        "              Does a thing to the name.\n",
        "       -y     Quiet.\n",
        "The Brisk Lantern Format (BLF) is a format.\n",
        '"glowcap" means a cap that glows.\n',
        "broken word pie-\n",
        "ce of text\n",
        "\n",
    ]
)
_PAGE = st.lists(_LINES | st.text(max_size=20), min_size=1, max_size=16).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PAGE, st.sampled_from(["man", "text", "markdown"]))
def test_every_candidate_points_inside_the_chunk_that_defines_it(text, fmt):
    if not text.strip():
        return
    try:
        _document, chunks = read(text, fmt)
    except Exception as exc:  # noqa: BLE001 - only a refusal of empty text is allowed
        assert type(exc).__name__ == "InvalidInput"
        return
    for candidate in book_candidates(chunks):
        assert candidate.name.strip() == candidate.name and candidate.name
        if candidate.define is not None:
            index, start, end = candidate.define
            assert 0 <= start <= end <= len(chunks[index].text)
