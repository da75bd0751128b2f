"""Parsing and chunking of uploaded books: formats, outlines, offsets, chunk limits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from books.chunking import ChunkDraft, chunk_sections
from books.parsing import ParsedDocument, detect_format, parse_document
from kgsite.errors import InvalidInput

DATA = Path(__file__).resolve().parent.parent / "data" / "books"
MARKDOWN_FIXTURES = [
    "srd-spells-excerpt.md",
    "srd-monsters-excerpt.md",
    "srd-equipment-excerpt.md",
    "15-appendix-ph-a-conditions.md",
    "16-appendix-ph-b-pantheons.md",
    "06-feats.md",
]


def parse_file(name: str) -> ParsedDocument:
    return parse_document((DATA / name).read_bytes(), fmt=detect_format(name))


def headings(doc: ParsedDocument) -> list[tuple[str, ...]]:
    return [s.heading_path for s in doc.sections]


# --- formats and errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "fmt"),
    [
        ("srd.md", "markdown"),
        ("Notes.MARKDOWN", "markdown"),
        ("holmes.txt", "text"),
        ("scan.PDF", "pdf"),
        ("/uploads/a.b/rules.md", "markdown"),
    ],
)
def test_detect_format_by_extension(filename, fmt):
    assert detect_format(filename) == fmt


@pytest.mark.parametrize("filename", ["book.docx", "README", "archive.md.zip", ""])
def test_unknown_extension_is_an_invalid_format(filename):
    with pytest.raises(InvalidInput) as excinfo:
        detect_format(filename)
    assert excinfo.value.field == "format"


def test_unknown_format_name_is_rejected():
    with pytest.raises(InvalidInput) as excinfo:
        parse_document(b"# Title\n", fmt="docx")
    assert excinfo.value.field == "format"


@pytest.mark.parametrize("fmt", ["markdown", "text"])
@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n  ", "\ufeff\n".encode()])
def test_empty_book_is_rejected(fmt, data):
    with pytest.raises(InvalidInput) as excinfo:
        parse_document(data, fmt=fmt)
    assert excinfo.value.field == "file"
    assert "empty" in excinfo.value.message


def test_gutenberg_file_with_only_boilerplate_is_empty():
    data = (
        b"The Project Gutenberg eBook of Nothing\n\n"
        b"*** START OF THE PROJECT GUTENBERG EBOOK NOTHING ***\n\n\n"
        b"*** END OF THE PROJECT GUTENBERG EBOOK NOTHING ***\nLicense text.\n"
    )
    with pytest.raises(InvalidInput, match="empty"):
        parse_document(data, fmt="text")


def test_decoding_strips_bom_falls_back_to_latin1_and_normalises_newlines():
    doc = parse_document("\ufeff# Café\r\n\r\nCrème brûlée.\r\n".encode(), fmt="markdown")
    assert doc.text == "# Café\n\nCrème brûlée.\n"
    assert doc.sections[0].heading_path == ("Café",)

    latin1 = parse_document("Ma\xefs et cr\xe8me.\n".encode("latin-1"), fmt="text")
    assert latin1.text == "Maïs et crème.\n"


# --- Markdown ------------------------------------------------------------------------


def test_markdown_heading_paths_nest_under_the_document_title():
    doc = parse_file("srd-spells-excerpt.md")
    paths = headings(doc)
    assert paths[:4] == [
        ("Spells",),
        ("Spells", "Spells (A)"),
        ("Spells", "Spells (A)", "Acid Arrow"),
        ("Spells", "Spells (A)", "Acid Splash"),
    ]
    assert ("Spells", "Spells (B)", "Banishment") in paths
    acid = doc.sections[2]
    assert acid.level == 4
    assert acid.text.startswith("#### Acid Arrow\n")
    assert "*2nd-level evocation*" in acid.text


def test_markdown_levels_pop_back_to_siblings():
    doc = parse_file("srd-monsters-excerpt.md")
    paths = headings(doc)
    assert ("Monsters", "Monster Statistics", "Speed", "Fly") in paths
    assert ("Monsters", "Monster Statistics", "Ability Scores") in paths
    assert ("Monsters", "Monsters (A)", "Angels", "Solar", "Actions") in paths
    assert ("Monsters", "Monsters (A)", "Animated Objects") in paths


def test_markdown_without_title_keeps_top_level_headings_separate():
    text = "# One\n\nIntro.\n\n## One A\n\nBody.\n\n# Two\n\nMore.\n"
    doc = parse_document(text.encode(), fmt="markdown")
    assert headings(doc) == [("One",), ("One", "One A"), ("Two",)]


def test_markdown_preamble_fences_closing_hashes_and_emphasis():
    text = (
        "Front matter before any heading.\n\n"
        "## **Bold** heading ##\n\n"
        "```\n# not a heading inside code\n```\n\n"
        "### *Italic* child\n\nText.\n"
    )
    doc = parse_document(text.encode(), fmt="markdown")
    assert headings(doc) == [(), ("Bold heading",), ("Bold heading", "Italic child")]
    assert doc.sections[0].level == 0
    assert "# not a heading" in doc.sections[1].text


@pytest.mark.parametrize("name", [*MARKDOWN_FIXTURES, "holmes-excerpt.txt"])
def test_sections_tile_the_text_and_round_trip(name):
    doc = parse_file(name)
    for section in doc.sections:
        assert doc.text[section.start : section.end] == section.text
    for before, after in zip(doc.sections, doc.sections[1:], strict=False):
        assert before.end == after.start


# --- plain text ------------------------------------------------------------------------


def test_gutenberg_stories_and_their_parts_are_detected():
    doc = parse_file("holmes-excerpt.txt")
    paths = headings(doc)
    assert paths[0] == ()  # title page and contents
    assert ("I. A SCANDAL IN BOHEMIA",) in paths
    assert ("I. A SCANDAL IN BOHEMIA", "I.") in paths
    assert ("I. A SCANDAL IN BOHEMIA", "III.") in paths
    assert ("II. THE RED-HEADED LEAGUE",) in paths
    # The indented table of contents is not mistaken for chapters.
    assert not any("Red-Headed" in p[-1] for p in paths if p)
    first_part = doc.sections[paths.index(("I. A SCANDAL IN BOHEMIA", "I."))]
    assert "To Sherlock Holmes she is always _the_ woman." in first_part.text


def test_gutenberg_boilerplate_is_skipped_and_chapter_styles_recognised():
    text = (
        "The Project Gutenberg eBook of A Test\n"
        "This eBook is for the use of anyone anywhere.\n\n"
        "*** START OF THE PROJECT GUTENBERG EBOOK A TEST ***\n\n"
        "CHAPTER I\n\nIt was a dark night.\n\n"
        "Chapter 12\n\nDawn came.\n\n"
        "CHAPTER THREE\n\nTHE LAURENCE BOY\n\nJo called.\n\n"
        "ADVENTURE IV. THE BLUE CARBUNCLE\n\nA goose.\n\n"
        "*** END OF THE PROJECT GUTENBERG EBOOK A TEST ***\n\n"
        "CHAPTER 99\n\nLicence text that is not part of the book.\n"
    )
    doc = parse_document(text.encode(), fmt="text")
    assert headings(doc) == [
        ("CHAPTER I",),
        ("Chapter 12",),
        ("CHAPTER THREE: THE LAURENCE BOY",),
        ("ADVENTURE IV. THE BLUE CARBUNCLE",),
    ]
    body = "".join(s.text for s in doc.sections)
    assert "Project Gutenberg" not in body
    assert "Licence text" not in body
    assert doc.text == text  # offsets stay those of the uploaded file


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "CHAPTER  I.  THE  KITE\n\nIt was windy.\n\nCHAPTER II\n\nIt was not.\n",
            [("CHAPTER I. THE KITE",), ("CHAPTER II",)],
        ),
        (
            "1.  Flying  kites\n\nHold the line.\n\n2.  Winding   lines\n\nWind it.\n\n"
            "3. Storing\n\nDry it.\n",
            [("1. Flying kites",), ("2. Winding lines",), ("3. Storing",)],
        ),
        (
            "Kite  Club\n==========\n\nWe fly.\n\nSpool  Care\n===========\n\nWind it.\n",
            [("Kite Club",), ("Spool Care",)],
        ),
    ],
    ids=["novel", "numbered", "underlined"],
)
def test_plain_text_heading_titles_read_without_runs_of_blanks(source, expected):
    """A plain-text heading laid out with two blanks between its words kept them in its
    title ("1.  Flying  kites"), so the same heading written with one blank elsewhere
    was another title; the section text keeps its layout."""
    document = parse_document(source.encode(), fmt="text")
    assert [s.heading_path for s in document.sections] == expected
    assert document.sections[0].text.startswith(source.split("\n")[0])


def test_capitals_inside_prose_are_not_headings():
    text = (
        "CHAPTER I\n\nHe read the telegram:\n\n"
        "    “COME AT ONCE.”\n\n"
        "“HELP!” she cried.\n\nAnd so it ended.\n"
    )
    doc = parse_document(text.encode(), fmt="text")
    assert headings(doc) == [("CHAPTER I",)]


# --- PDF -------------------------------------------------------------------------------


def _make_pdf(path: Path, pages: list[list[str]]) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for lines in pages:
        pdf.add_page()
        for line in lines:
            pdf.multi_cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path.read_bytes()


def test_pdf_text_layer_is_parsed_with_chapter_headings(tmp_path):
    data = _make_pdf(
        tmp_path / "book.pdf",
        [
            ["CHAPTER I", "", "The lamp was lit. Holmes sat in silence."],
            ["CHAPTER II", "", "Watson arrived at Baker Street."],
        ],
    )
    assert detect_format("book.pdf") == "pdf"
    doc = parse_document(data, fmt="pdf")
    assert "Holmes sat in silence." in doc.text
    assert headings(doc) == [("CHAPTER I",), ("CHAPTER II",)]
    assert "Baker Street" in doc.sections[1].text
    chunks = chunk_sections(doc.sections, max_chars=200)
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)


def test_unreadable_and_textless_pdfs_are_rejected(tmp_path):
    with pytest.raises(InvalidInput) as excinfo:
        parse_document(b"%PDF-1.4 this is not really a pdf", fmt="pdf")
    assert excinfo.value.field == "file"

    blank = _make_pdf(tmp_path / "blank.pdf", [[]])
    with pytest.raises(InvalidInput, match="no text layer"):
        parse_document(blank, fmt="pdf")


# --- chunking --------------------------------------------------------------------------


def _chunks(name: str, max_chars: int) -> tuple[ParsedDocument, list[ChunkDraft]]:
    doc = parse_file(name)
    return doc, chunk_sections(doc.sections, max_chars=max_chars)


@pytest.mark.parametrize("max_chars", [120, 400, 1500])
@pytest.mark.parametrize("name", [*MARKDOWN_FIXTURES, "holmes-excerpt.txt"])
def test_chunks_round_trip_fit_and_stay_inside_one_section(name, max_chars):
    doc, chunks = _chunks(name, max_chars)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert doc.text[chunk.start : chunk.end] == chunk.text
        assert 0 < len(chunk.text) <= max_chars
        owners = [s for s in doc.sections if s.start <= chunk.start and chunk.end <= s.end]
        assert len(owners) == 1
        assert owners[0].heading_path == chunk.heading_path


def test_chunks_end_on_sentences_in_prose():
    _, chunks = _chunks("holmes-excerpt.txt", 600)
    followed = [a for a, b in zip(chunks, chunks[1:], strict=False) if b.part > 0]
    assert len(followed) > 100
    for chunk in followed:
        # A sentence end (possibly inside closing quotes) or a paragraph without one.
        assert re.search(r"[.!?][”’\"'_)]*$", chunk.text) or chunk.text.endswith(("—", ":")), (
            chunk.text[-80:]
        )
    # Abbreviations are not sentence ends: "Mr. Holmes" stays in one piece.
    assert not any(c.text.endswith(("Mr.", "Mrs.", "Dr.")) for c in followed)


def test_small_sections_are_not_merged_across_headings():
    doc, chunks = _chunks("15-appendix-ph-a-conditions.md", 10_000)
    names = [c.heading_path[-1] for c in chunks]
    assert names[:4] == ["Appendix PH-A: Conditions", "Conditions", "Blinded", "Charmed"]
    assert len(chunks) == len(doc.sections)
    blinded = chunks[2]
    assert blinded.text.startswith("## Blinded")
    assert "## Charmed" not in blinded.text


def test_split_sections_number_their_parts():
    _, chunks = _chunks("srd-monsters-excerpt.md", 300)
    aboleth = [c for c in chunks if c.heading_path[-1] == "Aboleth"]
    assert len(aboleth) > 1
    assert [c.part for c in aboleth] == list(range(len(aboleth)))
    assert aboleth[0].text.startswith("## Aboleth")


def test_table_rows_are_not_cut_in_the_middle():
    _, chunks = _chunks("srd-equipment-excerpt.md", 300)
    for chunk in chunks:
        for line in chunk.text.splitlines():
            if line.lstrip().startswith("|"):
                assert line.rstrip().endswith("|"), line


def test_overlong_sentence_falls_back_to_whitespace_then_hard_cut():
    sentence = "word " * 60 + "end."
    doc = parse_document(f"# T\n\n{sentence}\n\n{'x' * 50}".encode(), fmt="markdown")
    chunks = chunk_sections(doc.sections, max_chars=40)
    assert all(len(c.text) <= 40 for c in chunks)
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)
    assert not any(c.text.startswith(" ") or c.text.endswith(" ") for c in chunks)
    assert "".join(c.text.replace(" ", "") for c in chunks) == doc.text.replace(" ", "").replace(
        "\n", ""
    )


def test_invalid_chunk_size():
    with pytest.raises(ValueError):
        chunk_sections([], max_chars=0)
