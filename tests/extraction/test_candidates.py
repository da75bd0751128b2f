"""Candidate names from more than NER: each source, on text written for the test."""

from __future__ import annotations

import pytest

from books.chunking import chunk_sections
from books.extraction.candidates import book_candidates
from books.extraction.types import type_from_noun, type_from_syntax
from books.parsing import parse_document

API_PAGE = """\
# Widgets

The `acme:widgets` module draws widgets on a canvas.

## Class: `widgets.Painter`

A painter keeps the brush state.

## `widgets.paint(shape[, colour], done)`

* `shape` {Object}
* `colour` {string}
* `done` {Function}

Paints the shape, formatted according to RFC 7231. See `widgets.erase()` and the
`--canvas-size` flag.

## `widgets.erase(shape)`

Erases a shape drawn by `widgets.paint()`.

### Supported paint modes

* `widgets.FILL`: fills the whole shape.
* `widgets.STROKE`: draws the outline only.
"""

PLAIN = """\
Kiln notes
==========

The Portable Glaze Format (PGF) records every firing. A bundle of firings,
called a Batch, travels with the pot. The firmware uses the tinyjson library
and the libkiln helpers; libkiln also logs.

Usage
-----

 * "kiln fire" starts a firing; "kiln cool" stops it.
 * "kiln log" prints the PGF journal and "kiln fire --slow" is gentler.
 * Set kiln.maxTemperature to cap the heat.

Licence
-------

"Covered Pottery" means any pot fired with this kiln. NAME and VALUE are
placeholders, and the Document says nothing more.
"""


def candidates(text: str, fmt: str) -> dict[str, object]:
    document = parse_document(text.encode(), fmt=fmt)
    chunks = chunk_sections(document.sections, max_chars=2000)
    found = book_candidates(chunks)
    return {c.name: (c, chunks) for c in found}


def defined_under(found, name: str) -> str | None:
    candidate, chunks = found[name]
    if candidate.define is None:
        return None
    return chunks[candidate.define[0]].heading_path[-1]


@pytest.fixture(scope="module")
def api():
    return candidates(API_PAGE, "markdown")


@pytest.fixture(scope="module")
def plain():
    return candidates(PLAIN, "text")


def test_code_headings_define_functions_and_classes(api):
    assert api["widgets.paint()"][0].type == "function"
    assert "widgets.paint" in api["widgets.paint()"][0].aliases
    assert defined_under(api, "widgets.paint()") == "`widgets.paint(shape[, colour], done)`"
    assert api["widgets.Painter"][0].type == "class"
    assert defined_under(api, "widgets.Painter") == "Class: `widgets.Painter`"


def test_parameters_of_a_signature_are_not_entities(api):
    assert not {"shape", "colour", "done"} & set(api)


def test_code_list_entries_define_constants(api):
    assert api["widgets.FILL"][0].type == "option"
    assert defined_under(api, "widgets.FILL") == "Supported paint modes"


def test_a_typed_opening_sentence_defines_the_module(api):
    assert api["acme:widgets"][0].type == "library"
    assert defined_under(api, "acme:widgets") == "Widgets"


def test_options_and_standards_from_their_syntax(api):
    assert api["--canvas-size"][0].type == "option"
    assert api["RFC 7231"][0].type == "standard"


def test_acronym_and_expansion_are_one_candidate(plain):
    pgf = plain["PGF"][0]
    assert "Portable Glaze Format" in pgf.aliases
    assert pgf.type == "format"
    assert defined_under(plain, "PGF") == "Kiln notes"


def test_introduced_and_quoted_defined_terms(plain):
    assert defined_under(plain, "Batch") == "Kiln notes"
    assert defined_under(plain, "Covered Pottery") == "Licence"


def test_commands_of_a_program_family(plain):
    assert plain["kiln fire"][0].type == "command"
    assert plain["kiln cool"][0].type == "command"


def test_typed_phrases_and_library_names(plain):
    assert plain["tinyjson"][0].type == "library"
    assert plain["libkiln"][0].type == "library"
    assert plain["kiln.maxTemperature"][0].type == "option"


def test_placeholders_and_common_words_are_never_candidates(plain):
    assert not {"NAME", "VALUE", "Document", "Usage", "Licence"} & set(plain)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("--dry-run", "option"),
        ("frob_open()", "function"),
        ("mmap(2)", "function"),
        ("BUF_SIZE", "option"),
        ("gfx.Surface", "class"),
        ("ISO 8601", "standard"),
        ("config.yaml", "format"),
        ("plainword", None),
    ],
)
def test_type_from_syntax(name, expected):
    assert type_from_syntax(name) == expected


@pytest.mark.parametrize(
    ("noun", "expected"),
    [("library", "library"), ("protocol", "protocol"), ("Foundation", "organization")],
)
def test_type_from_noun(noun, expected):
    assert type_from_noun(noun) == expected


def test_markdown_link_definitions_and_fenced_code_are_not_prose():
    page = (
        "# Pumps\n\nA pump moves water.\n\n```\nint pump_start(int speed);\n```\n\n"
        "[Fluid Transfer Protocol (FTP)]: https://pumps.test/ftp\n"
    )
    found = candidates(page, "markdown")
    assert "FTP" not in found and "pump_start()" not in found
