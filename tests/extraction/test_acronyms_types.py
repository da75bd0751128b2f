"""Acronyms with their expansions and the types names get from their own syntax or a
head noun (``books.extraction.acronyms``, ``books.extraction.types``), plus properties
every definition reader keeps on any text: it never raises and its offsets point
inside the text at the name it reports."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from books.extraction.acronyms import acronyms_find
from books.extraction.forms import defined, described, marked
from books.extraction.types import is_code_name, type_from_noun, type_from_syntax


def pairs(text: str) -> list[tuple[str, str]]:
    return [(acr, exp) for acr, exp, _s, _e, _t in acronyms_find(text)]


def test_an_expansion_before_its_acronym_in_brackets():
    text = "Every crate speaks the Quiet Beacon Link (QBL) over the air."
    assert pairs(text) == [("QBL", "Quiet Beacon Link")]


def test_an_acronym_before_its_expansion_in_brackets():
    assert pairs("QBL (Quiet Beacon Link) is spoken by crates.") == [("QBL", "Quiet Beacon Link")]


def test_leading_words_outside_the_initials_are_dropped():
    # "Every" and "Our" do not belong to the expansion: its initials must spell it.
    found = pairs("Our Nimble Packet Protocol (NPP) is fast.")
    assert found == [("NPP", "Nimble Packet Protocol")]


def test_function_words_inside_an_expansion_do_not_count_as_initials():
    found = pairs("The Office for Tidal Records (OTR) keeps the logs.")
    assert found == [("OTR", "Office for Tidal Records")]


def test_a_bracketed_word_whose_initials_do_not_fit_is_no_acronym():
    assert pairs("We met Bright Orange Kettles (XYZ) yesterday.") == []
    assert pairs("Ask Mary Jones (Chair) first.") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sensors on the Web of Gadgets (WoG) talk.", ("WoG", "Web of Gadgets")),
        ("The Wobble File\n   System (WFS) is old.", ("WFS", "Wobble File System")),
        ("Quiet Beacon Link (QBL, since 2001) works.", ("QBL", "Quiet Beacon Link")),
        ("the Tidal Records Office (T.R.O.) opens", ("T.R.O.", "Tidal Records Office")),
        ("In Rapid Sand Transfer (RST) mode", ("RST", "Rapid Sand Transfer")),
    ],
)
def test_mixed_case_dotted_and_wrapped_acronyms(text, expected):
    assert pairs(text) == [expected]


def test_a_bracketed_acronym_without_an_expansion_is_not_linked():
    assert pairs("See (QBL) alone, or QBL (2001).") == []


def test_the_offsets_point_at_the_acronym():
    text = "Notes. The Sandy Loam Format (SLF) stores soil."
    ((acr, _exp, start, end, _type),) = acronyms_find(text)
    assert text[start:end] == acr == "SLF"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Sandy Loam Format (SLF) stores soil.", "format"),
        ("The Quiet Beacon Protocol (QBP) is old.", "protocol"),
        ("The Harbour Pilots Association (HPA) meets.", "organization"),
        ("Brisk Widget Library (BWL) draws.", "library"),
        ("The Purple Wombat (PW) sleeps.", "concept"),
    ],
)
def test_the_expansion_head_noun_types_the_acronym(text, expected):
    ((_acr, _exp, _s, _e, type_),) = acronyms_find(text)
    assert type_ == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("-L", "option"),
        ("--color=auto", "option"),
        ("Stream.readAll()", "function"),
        ("RFC 9999", "standard"),
        ("X.509", "standard"),
        ("settings.toml", "format"),
        ("wobble.h", "other"),
        ("pkg.MAX_DEPTH", "option"),
        ("pkg.member", None),
        ("WidgetFactory", "class"),
        ("snake_case_name", None),
        ("camelName", None),
        ("FILE", None),  # a placeholder in capitals is not typed by its shape
        ("PATH", None),
    ],
)
def test_type_from_syntax_more_shapes(name, expected):
    assert type_from_syntax(name) == expected


def test_capital_placeholders_are_not_code_names_but_identifiers_are():
    assert not is_code_name("FILE")
    assert not is_code_name("Hello")
    assert all(is_code_name(n) for n in ("-v", "read_all", "readAll", "a.b", "x.json", "MAX_X"))


@pytest.mark.parametrize(
    ("noun", "expected"),
    [
        ("Libraries,", "library"),
        ("daemon.", "software"),
        ("subcommand", "command"),
        ("Licence", "work"),
        ("specification;", "standard"),
        ("banana", None),
    ],
)
def test_type_from_noun_ignores_case_and_trailing_punctuation(noun, expected):
    assert type_from_noun(noun) == expected


# --- properties on any text -------------------------------------------------------

_ALPHABET = st.sampled_from(
    list('abcXYZ -_.$/*"“”()[]:;,\n\t') + ["è un ", " means ", " refers to ", "**", "To "]
)
_TEXT = st.lists(_ALPHABET, max_size=80).map("".join) | st.text(max_size=200)
_FAST = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@_FAST
@given(_TEXT)
def test_acronym_offsets_always_point_at_the_acronym(text):
    for acr, expansion, start, end, type_ in acronyms_find(text):
        assert 0 <= start < end <= len(text)
        assert text[start:end] == acr
        assert expansion and type_


@_FAST
@given(_TEXT)
@example("** means **")  # bold with blanks inside its marks: the offset was one short
def test_marked_and_defined_offsets_always_point_at_the_name(text):
    for name, _source, at in marked(text):
        assert text[at : at + len(name)] == name
    for term, at in defined(text):
        assert at >= 0 and text[at : at + len(term)] == term


@_FAST
@given(_TEXT, st.text(max_size=12))
def test_described_is_two_shares_between_zero_and_one(text, name):
    prose, subject = described(text, name)
    assert 0.0 <= prose <= 1.0 and subject in (0.0, 1.0)
