"""PDF page furniture: running headers, footers and page numbers leave the text a curator
reads, in every common form, on short and long documents; the lines of the book itself
stay, even when they look a little like page furniture."""

from __future__ import annotations

import pytest

from books.formats.pdf import OutlineItem, clean_pages, outline_headings
from books.parsing import parse_document

OPENINGS = [
    "Kites fly in the wind.",
    "Box kites need strong wind.",
    "A delta kite is light.",
    "Spools keep the line.",
    "Knots hold under load.",
]
CLOSINGS = ["Hold on.", "Mind the trees.", "It climbs fast.", "Wind them evenly.", "Test first."]
BODIES = [f"{opening}\n{closing}" for opening, closing in zip(OPENINGS, CLOSINGS, strict=True)]


def pages_with(footer, count: int = 5, header=None) -> list[str]:
    pages = []
    for p in range(count):
        lines = [header(p)] if header else []
        lines += [BODIES[p], footer(p)]
        pages.append("\n".join(lines))
    return pages


@pytest.mark.parametrize(
    "footer",
    [
        lambda p: str(p + 1),
        lambda p: f"- {p + 1} -",
        lambda p: f"— {p + 1} —",
        lambda p: f"Page {p + 1}",
        lambda p: f"page {p + 1} of 5",
        lambda p: f"{p + 1} / 5",
        lambda p: f"{p + 41}",  # a chapter printed from page 41
        lambda p: ["i", "ii", "iii", "iv", "v"][p],  # front matter
        lambda p: f"Kite Manual, {p + 1}",
    ],
    ids=["bare", "dashes", "em-dashes", "page", "of", "slash", "offset", "roman", "titled"],
)
def test_every_footer_form_leaves_the_text(footer):
    cleaned = clean_pages(pages_with(footer))
    assert cleaned == BODIES


@pytest.mark.parametrize(
    "header",
    [
        lambda p: "KITE MANUAL",
        lambda p: f"Chapter 2: Lines {p + 7}",
        lambda p: f"{p + 7}    Kite Manual",
    ],
    ids=["title", "chapter-and-number", "number-first"],
)
def test_running_headers_leave_the_text(header):
    cleaned = clean_pages(pages_with(lambda p: "", header=header))
    assert cleaned == BODIES


@pytest.mark.parametrize("count", [1, 2])
def test_a_short_document_loses_its_page_numbers_too(count):
    cleaned = clean_pages(pages_with(lambda p: f"- {p + 1} -", count=count))
    assert cleaned == BODIES[:count]


@pytest.mark.parametrize(
    "pages",
    [
        ["Totals:\n12", "Totals:\n17"],  # a number that is not this page's
        ["Kites fly.\nI", "Lines hold.\nmix", "Spools turn.\ncivil", "Knots tie.\nvivid"],
        ["Part one\nKites fly.", "Part two\nLines hold."],  # two pages are no pattern
    ],
    ids=["numbers", "roman-looking-words", "two-headers"],
)
def test_lines_of_the_book_that_look_like_furniture_stay(pages):
    cleaned = clean_pages(pages)
    kept = "\n".join(cleaned).split("\n")
    for page in pages:
        for line in page.split("\n")[1:] if page.startswith("Part") else page.split("\n"):
            if line not in ("Totals:",):
                assert line in kept, line


def test_windows_and_mac_line_endings_in_a_text_layer_are_one_newline():
    pages = [body.replace("\n", "\r\n") + f"\r{p + 1}" for p, body in enumerate(BODIES)]
    assert clean_pages(pages) == BODIES


def test_bookmarks_find_their_printed_heading_and_skip_what_is_not_there():
    pages = [
        "1 Kites\nKites fly.",
        "2 Lines\nLines hold.\n2.1 Knots\nKnots tie.",
        "Appendix A: Spools\nSpools turn.",
    ]
    text = "\n\n".join(pages)
    starts = [0, len(pages[0]) + 2, len(pages[0]) + len(pages[1]) + 4]
    items = [
        OutlineItem("Kites", 1, 0),
        OutlineItem("Lines", 1, 1),
        OutlineItem("Knots", 2, 1),
        OutlineItem("Reels", 1, 1),  # a bookmark whose title the page does not print
        OutlineItem("Spools", 1, 2),
        OutlineItem("Beyond", 1, 9),  # a bookmark past the last page
    ]
    found = outline_headings(items, starts, text)
    assert [(level, title) for _pos, level, title in found] == [
        (1, "1 Kites"),
        (1, "2 Lines"),
        (2, "2.1 Knots"),
        (1, "Appendix A: Spools"),
    ]
    assert all(text[pos:].startswith(title) for pos, _level, title in found)


def _manual(pages: list[tuple[str, str]], footer: bool = True) -> bytes:
    from fpdf import FPDF

    class Manual(FPDF):
        def footer(self):
            if footer:
                self.set_y(-12)
                self.set_font("helvetica", size=9)
                self.cell(0, 8, f"- {self.page_no()} -")

    pdf = Manual()
    pdf.set_font("helvetica", size=11)
    for title, body in pages:
        pdf.add_page()
        pdf.start_section(title)
        pdf.cell(0, 10, title, new_x="LMARGIN", new_y="NEXT")
        pdf.multi_cell(0, 8, body)
    return bytes(pdf.output())


def test_a_two_page_pdf_has_no_page_numbers_in_its_text():
    document = parse_document(
        _manual([("Kites", "Kites fly in the wind."), ("Lines", "Lines hold the kite.")]),
        fmt="pdf",
    )
    assert [s.heading_path for s in document.sections] == [("Kites",), ("Lines",)]
    assert "- 1 -" not in document.text and "- 2 -" not in document.text


def test_a_pdf_with_one_bookmark_is_outlined_by_its_text_instead():
    document = parse_document(
        _manual([("CHAPTER I", "It was a cold morning.")], footer=False), fmt="pdf"
    )
    assert "It was a cold morning." in document.text
    assert [s.heading_path for s in document.sections if s.heading_path] == [("CHAPTER I",)]
