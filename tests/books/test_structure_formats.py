"""Sections of the layouts technical documents use, on documents written for the test."""

from __future__ import annotations

import pytest

from books.parsing import detect_format, parse_document
from kgsite.errors import InvalidInput


def headings(text: str, fmt: str = "text") -> list[tuple[str, ...]]:
    document = parse_document(text.encode(), fmt=fmt)
    return [s.heading_path for s in document.sections if s.heading_path]


LICENCE = """\
TINKER PUBLIC LICENCE

0. Definitions.

"The Gadget" refers to any tinkerable work licensed under this Licence.

1. Source Code.

The source of a gadget is the form preferred for changing it.

2. Basic Permissions.

1. Every right granted here is granted for the term of the copyright on the
gadget, and is irrevocable provided the stated conditions are met.

3. Protecting Users.

Nothing here limits the rights of users.
"""

HOWTO = """\
Sprocket handbook

1 - Overview

Sprockets turn.

2 - Usage

2.1 - How it works

The rotor spins.

2.2 - Stopping

Pull the lever.
"""


def test_numbered_sections_in_their_common_forms():
    assert [path[-1] for path in headings(LICENCE)] == [
        "TINKER PUBLIC LICENCE",
        "0. Definitions.",
        "1. Source Code.",
        "2. Basic Permissions.",
        "3. Protecting Users.",
    ]  # the numbered paragraph running onto its next line is body text
    assert headings(HOWTO)[-2:] == [
        ("2 - Usage", "2.1 - How it works"),
        ("2 - Usage", "2.2 - Stopping"),
    ]


MAN_PAGE = """\
GIZMO(1)                  General Commands Manual                  GIZMO(1)

NAME
       gizmo - spin a rotor

SYNOPSIS
       gizmo [-v] [-s speed] rotor

DESCRIPTION
       gizmo spins the rotor at the given speed until it is stopped by
       gizmoctl(8).

   Speed control
       The speed is read from the dial.

OPTIONS
       -s speed
              Spin at speed turns a second.

       -v     Print each turn.

SEE ALSO
       gizmoctl(8)

Gizmo 1.0                         2024-01-01                       GIZMO(1)
"""


def test_a_rendered_manual_page_has_its_sections_and_subsections():
    assert headings(MAN_PAGE, "man") == [
        ("NAME",),
        ("SYNOPSIS",),
        ("DESCRIPTION",),
        ("DESCRIPTION", "Speed control"),
        ("OPTIONS",),
        ("SEE ALSO",),
    ]


ROFF = """\
.\\" a comment
.TH GIZMO 1 "2024-01-01"
.SH NAME
gizmo \\- spin a rotor
.SH OPTIONS
.TP
.B \\-s \\fIspeed\\fR
Spin at \\fBspeed\\fP turns a second.
.SS Limits
The speed is capped.
"""


def test_a_roff_manual_page_source():
    assert detect_format("gizmo.1") == detect_format("gizmo.man") == "man"
    document = parse_document(ROFF.encode(), fmt="man")
    paths = [s.heading_path for s in document.sections if s.heading_path]
    assert paths == [
        ("GIZMO(1)",),
        ("GIZMO(1)", "NAME"),
        ("GIZMO(1)", "OPTIONS"),
        ("GIZMO(1)", "OPTIONS", "Limits"),
    ]
    assert "gizmo - spin a rotor" in document.text
    assert "Spin at speed turns a second." in document.text
    assert "comment" not in document.text and "\\f" not in document.text


RST = """\
==================
The Widget Toolkit
==================

Widgets follow :pep:`8` and :rfc:`7231`; see :func:`~widgets.core.paint` and
:ref:`the guide <guide-label>`.

.. _guide-label:

--------
Overview
--------

A ``Painter`` keeps the brush state. Example::

    painter = Painter()
    painter.paint()

Painting
========

.. rubric:: Colours

Colours are named.

.. note::
   Paint dries slowly.

Brushes
-------

Brushes wear out.
"""


def test_restructuredtext_titles_rubrics_roles_and_literal_blocks():
    assert detect_format("guide.rst") == "rst"
    document = parse_document(RST.encode(), fmt="rst")
    paths = [s.heading_path for s in document.sections if s.heading_path]
    assert paths == [
        ("The Widget Toolkit",),
        ("The Widget Toolkit", "Overview"),
        ("The Widget Toolkit", "Overview", "Painting"),
        ("The Widget Toolkit", "Overview", "Painting", "Colours"),
        ("The Widget Toolkit", "Overview", "Painting", "Brushes"),
    ]
    text = document.text
    assert "PEP 8" in text and "RFC 7231" in text and ":pep:" not in text
    assert "`paint`" in text and "the guide" in text and "guide-label" not in text
    assert "`Painter`" in text and "```\npainter = Painter()" in text
    assert "Paint dries slowly." in text and ".. note" not in text


RELEASES = """\
Gizmo news

Version 2.1 (3 May 2024)

* Faster spinning.

Version 2.0 (1 Jan 2024)

* New rotor.

Version 1.0 (9 Sep 2023)

* First release.

*** Known problems ***

The dial sticks.

*** Credits ***

Many people.
"""


def test_release_headings_of_one_shape_and_decorated_titles():
    paths = headings(RELEASES)
    assert ("Version 2.1 (3 May 2024)",) in paths
    assert ("Version 1.0 (9 Sep 2023)",) in paths
    assert paths[-1][-1] == "Credits" and paths[-2][-1] == "Known problems"


def test_words_broken_at_line_ends_are_rejoined():
    text = (
        "Gizmo news\n==========\n\nThe rotor is dy-\nnamic and well-\nknown; it is "
        "config\u2010\n   urable.\n\nUsage\n=====\n\nSpin.\n"
    )
    document = parse_document(text.encode(), fmt="text")
    assert "dynamic" in document.text and "well-\nknown" in document.text
    assert "configurable" in document.text
    assert [s.heading_path[-1] for s in document.sections] == ["Gizmo news", "Usage"]


def test_unknown_extensions_name_the_accepted_ones():
    with pytest.raises(InvalidInput) as caught:
        detect_format("notes.docx")
    assert ".rst" in caught.value.message and caught.value.field == "format"
