"""Structure from every format: technical text, PDF outlines, HTML, EPUB; binary refused.

Every document here is written for the test (no shared or evaluation file).
"""

from __future__ import annotations

import io

import pytest

from books.parsing import detect_format, parse_document
from kgsite.errors import InvalidInput

RELEASE_NOTES = """\
Quill 7.2 Release Notes
=======================

Incompatible changes
--------------------

 * "quill stamp" now refuses unsigned input.

Improvements
------------

 * "quill fold" learned "--depth".
"""

NUMBERED = """\
Sprocket handbook

1 Getting started

Install it first.

1.1 Building from source

Run the build.

2 Operating the sprocket

Turn it on.

2.1 Stopping

Turn it off.
"""

HTML = b"""<!DOCTYPE html><html><head><title>Gizmo</title><style>p {}</style>
<script>var ignored = 1;</script></head><body>
<nav><a href="#a">Contents</a></nav>
<h1>Gizmo reference</h1>
<p>The <code>gizmo_init()</code> call prepares a gizmo.</p>
<h2><code>gizmo_spin(rotor, speed)</code></h2>
<p>Spins the rotor.</p>
<dl><dt>Sprocket</dt><dd>A toothed wheel that drives the rotor.</dd></dl>
</body></html>"""


def headings(document) -> list[tuple[str, ...]]:
    return [s.heading_path for s in document.sections if s.heading_path]


def test_setext_underlined_headings_nest_by_their_underline():
    document = parse_document(RELEASE_NOTES.encode(), fmt="text")
    assert headings(document) == [
        ("Quill 7.2 Release Notes",),
        ("Quill 7.2 Release Notes", "Incompatible changes"),
        ("Quill 7.2 Release Notes", "Improvements"),
    ]


def test_numbered_sections_nest_by_their_numbering():
    document = parse_document(NUMBERED.encode(), fmt="text")
    assert headings(document) == [
        ("1 Getting started",),
        ("1 Getting started", "1.1 Building from source"),
        ("2 Operating the sprocket",),
        ("2 Operating the sprocket", "2.1 Stopping"),
    ]


def test_a_novel_keeps_its_chapter_headings():
    novel = "CHAPTER I.\n\nIt was a cold morning.\n\nCHAPTER II.\n\nIt rained.\n"
    document = parse_document(novel.encode(), fmt="text")
    assert headings(document) == [("CHAPTER I.",), ("CHAPTER II.",)]


def test_html_becomes_markdown_with_headings_code_and_definition_lists():
    assert detect_format("page.html") == detect_format("page.htm") == "html"
    document = parse_document(HTML, fmt="html")
    assert headings(document) == [
        ("Gizmo reference",),
        ("Gizmo reference", "`gizmo_spin(rotor, speed)`"),
    ]
    assert "`gizmo_init()`" in document.text
    assert "Sprocket\n:   A toothed wheel" in document.text
    assert "ignored" not in document.text and "Contents" not in document.text


def make_epub(chapters: list[tuple[str, str]]) -> bytes:
    """An EPUB of (title, text) chapters, each opening on its title in <h1>."""
    return epub_of([(title, f"<h1>{title}</h1><p>{body}</p>") for title, body in chapters])


def epub_of(pages: list[tuple[str, str]], folder: str = "") -> bytes:
    """An EPUB of (table-of-contents title, XHTML body) pages, in ``folder``."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("test-book")
    book.set_title("A Test Book")
    book.set_language("en")
    items = []
    for index, (title, body) in enumerate(pages):
        item = epub.EpubHtml(title=title, file_name=f"{folder}c{index}.xhtml", lang="en")
        item.content = body
        book.add_item(item)
        items.append(item)
    book.toc = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()


def test_epub_chapters_come_in_reading_order_without_the_table_of_contents():
    data = make_epub([("The Lighthouse", "A keeper lived there."), ("The Storm", "Waves.")])
    assert detect_format("book.epub") == "epub"
    document = parse_document(data, fmt="epub")
    assert headings(document) == [("The Lighthouse",), ("The Storm",)]
    assert document.text.count("The Lighthouse") == 1  # the nav page is not read


def test_an_epub_chapter_titled_only_in_the_table_of_contents_is_a_chapter_of_its_own():
    """A chapter whose title is a styled paragraph (no <h1>) ran on under the chapter
    before it: its sections were listed as the previous chapter's."""
    pages = [
        ("Lines", "<html><body><h1>Lines</h1><p>A line holds the kite.</p></body></html>"),
        (
            "Spools",
            '<html><body><p class="chapter">Spools</p><p>A spool winds.</p>'
            "<h2>Knots</h2><p>Tie.</p></body></html>",
        ),
    ]
    document = parse_document(epub_of(pages, folder="text/"), fmt="epub")
    assert headings(document) == [("Lines",), ("Spools",), ("Spools", "Knots")]
    assert "A spool winds." in document.text


def test_broken_epub_is_one_readable_error():
    with pytest.raises(InvalidInput) as caught:
        parse_document(b"PK\x03\x04 not really a zip", fmt="epub")
    assert caught.value.field == "file"
    assert "EPUB could not be read" in caught.value.message


def outlined_pdf() -> bytes:
    """Four pages with a running header and page numbers, sections in the outline."""
    from fpdf import FPDF

    class Manual(FPDF):
        def header(self):
            self.set_font("helvetica", size=9)
            self.cell(0, 8, f"Windmill manual {self.page_no()}", new_x="LMARGIN", new_y="NEXT")

        def footer(self):
            self.set_y(-12)
            self.set_font("helvetica", size=9)
            self.cell(0, 8, str(self.page_no()))

    pdf = Manual()
    pdf.set_font("helvetica", size=11)
    for number, title, body in [
        ("1", "Overview", "The windmill grinds grain."),
        ("2", "Maintenance", "Oil the shaft monthly."),
        ("2.1", "Sails", "Replace torn sails."),
        ("3", "Safety", "Stop the sails in storms."),
    ]:
        pdf.add_page()
        level = number.count(".")
        pdf.start_section(title, level=level)
        pdf.cell(0, 10, f"{number} {title}", new_x="LMARGIN", new_y="NEXT")
        pdf.multi_cell(0, 8, body)
    return bytes(pdf.output())


def test_pdf_sections_come_from_the_outline_as_printed_without_running_headers():
    document = parse_document(outlined_pdf(), fmt="pdf")
    assert headings(document) == [
        ("1 Overview",),
        ("2 Maintenance",),
        ("2 Maintenance", "2.1 Sails"),
        ("3 Safety",),
    ]
    assert "Windmill manual" not in document.text
    assert not any(line.strip().isdigit() for line in document.text.split("\n"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"plain words\x00\x00\x01 and more", "NUL bytes"),
        (b"\x7fELF\x02\x01\x01" + b"\x00" * 64, "ELF executable"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 16, "PNG image"),
    ],
)
@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_binary_content_in_a_text_file_is_refused(content, message, fmt):
    with pytest.raises(InvalidInput) as caught:
        parse_document(content, fmt=fmt)
    assert caught.value.field == "file"
    assert message in caught.value.message


def test_utf16_text_is_not_taken_for_binary():
    data = "\ufeffA small note about kites.\n".encode("utf-16")
    assert "kites" in parse_document(data, fmt="text").text
