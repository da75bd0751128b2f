"""Every extraction step reads any text in time linear in its size: generated layouts
that make backtracking patterns explode (runs of spaces, indentation ladders, repeated
punctuation) must each finish within a generous per-example budget (Hypothesis'
``deadline``), and the structure they produce must stay consistent."""

from __future__ import annotations

import time
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from books.chunking import chunk_sections
from books.extraction.candidates import book_term_rows
from books.extraction.structure import chapter_type, heading_key
from books.formats.html import html_to_markdown
from books.formats.rst import roff_to_markdown, rst_to_markdown
from books.formats.text import dehyphenate
from books.parsing import clean_heading, parse_document

PIECES = st.sampled_from(
    [
        " " * 40,
        "\t\t",
        "\n",
        "\n" + " " * 30,
        "word",
        "Word",
        "int",
        "char *",
        "(",
        ")",
        "--",
        "-",
        "\u2010\n",
        "::",
        "***",
        "====",
        "`",
        '"',
        ".",
        "a_b",
        "X(5)",
        "1.2 ",
        ".SH ",
        "**",
        "/",
        "$",
        "_",
        " è un ",
        "_a ",
        "*a ",
        "__",
        "#",
        "\\[",
        "\\*[",
        " <",
        ">`_",
        ":ref:`",
        "(A",
        "\\",
    ]
)
TEXTS = st.lists(PIECES, min_size=1, max_size=400).map("".join)
BUDGET = settings(
    deadline=timedelta(seconds=5),
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow],
)


@BUDGET
@given(TEXTS)
def test_parsing_and_the_candidate_pass_finish_on_any_layout(text):
    if not text.strip():
        return
    clean_heading(text)
    parse_document(text.encode(), fmt="markdown")
    document = parse_document(text.encode(), fmt="text")
    for section in document.sections:
        assert document.text[section.start : section.end] == section.text
    chunks = chunk_sections(document.sections, max_chars=2000)
    rows = book_term_rows(chunks) if chunks else []
    assert all(len(r.features) == len(rows[0].features) for r in rows)


@BUDGET
@given(TEXTS)
def test_the_format_readers_finish_on_any_layout(text):
    assert dehyphenate(text).count("\n") == text.count("\n")  # the layout is kept
    rst_to_markdown(text)
    roff_to_markdown(text)
    heading_key(text)


# Lines built to make the readers' Markdown patterns backtrack: a long run of backticks
# (code spans), of blanks before no attribute block or footnote mark, and of comment
# openings nothing closes. Each took seconds to minutes at this size, growing with the
# square of the line; read in one pass, each takes milliseconds.
LONG = 100_000
LINE_BUDGET_S = 2.0


def _within_budget(read, text: str) -> None:
    started = time.process_time()
    read(text)
    assert time.process_time() - started < LINE_BUDGET_S


def test_markdown_headings_read_a_long_run_of_backticks_or_blanks_in_linear_time():
    _within_budget(clean_heading, "`" * LONG)
    _within_budget(clean_heading, "`" * (LONG // 2) + "a" * (LONG // 2))
    _within_budget(clean_heading, "Kites" + " " * LONG + "x")


def test_html_and_markdown_books_read_pathological_lines_in_linear_time():
    _within_budget(html_to_markdown, "<p>" + "`" * LONG + "</p>")
    _within_budget(lambda t: parse_document(t.encode(), fmt="markdown"), "<!--" * (LONG // 4))


def test_restructuredtext_reads_a_long_run_of_blanks_in_linear_time():
    _within_budget(rst_to_markdown, "Kites" + " " * LONG + "fly.\n")


def test_markdown_headings_read_a_long_run_of_unclosed_emphasis_marks_in_linear_time():
    # Every mark opens a span that nothing closes: the emphasis pattern re-read the rest
    # of the heading from each one (2 s at 30 KB, 30 s at 120 KB).
    _within_budget(clean_heading, "_a " * (LONG // 3))
    _within_budget(clean_heading, "*a " * (LONG // 3))
    _within_budget(clean_heading, "__a. " * (LONG // 5))
    assert clean_heading("_Kites_ and **kite lines**") == "Kites and kite lines"


def test_manual_pages_read_a_long_run_of_unclosed_bracketed_escapes_in_linear_time():
    # Each "\[" (a named character, a string, a font, a size) ran past the backslashes
    # of the next ones to the line's end: 2 s at 40 KB, 33 s at 160 KB.
    for escape in ("\\[x", "\\*[x", "\\f[x", "\\s[x"):
        page = ".TH KITE 1\n.SH NAME\nkite " + escape * (LONG // len(escape)) + "\n"
        _within_budget(roff_to_markdown, page)
    page = ".TH KITE 1\n.SH NAME\nkite \\[em] a \\[x line\n"
    assert "kite — a \\[x line" in roff_to_markdown(page)


def test_a_text_file_reads_a_long_line_of_dashes_in_linear_time():
    # A decorated title ("=== Options ===") was sought by trying every shorter run of
    # the line's opening marks against the whole line: 5 s at 40 KB, 85 s at 160 KB.
    for mark in "-=*":
        text = "Kites\n\n" + mark * LONG + "\n\nKites fly.\n"
        _within_budget(lambda t: parse_document(t.encode(), fmt="text"), text)


def test_restructuredtext_reads_long_blanks_inside_a_link_or_a_role_in_linear_time():
    # A link's or a role's text was read lazily up to blanks and a "<target>": a run of
    # blanks nothing closed was re-read once per blank (1.3 s at 40 KB, 21 s at 160 KB).
    _within_budget(rst_to_markdown, "Kites `a" + " " * LONG + "b\n")
    _within_budget(rst_to_markdown, "Kites :ref:`a" + " \t" * (LONG // 2) + "x` fly.\n")
    markdown = rst_to_markdown("See `the rules  <rules.html>`_ and :ref:`spools <spool>`.\n")
    assert "See the rules and `spools`." in markdown


def test_a_heading_with_a_long_run_of_blanks_is_classified_in_linear_time():
    # The "(A-C)" suffix a heading's key drops was sought from every blank of a run:
    # 1.3 s at 40 KB, 21 s at 160 KB (a PDF's bookmarked line keeps its blanks).
    _within_budget(heading_key, "Spells" + " " * LONG + "x")
    _within_budget(heading_key, "Spells" + " \t" * (LONG // 2) + "(A")
    assert heading_key("Spells  (A-C)") == "spells"
    assert chapter_type(["Spells (A)"]) == chapter_type(["Spells"])
