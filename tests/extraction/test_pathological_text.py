"""Every extraction step reads any text in time linear in its size: generated layouts
that make backtracking patterns explode (runs of spaces, indentation ladders, repeated
punctuation) must each finish within a generous per-example budget (Hypothesis'
``deadline``), and the structure they produce must stay consistent."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from books.chunking import chunk_sections
from books.extraction.candidates import book_term_rows
from books.formats.rst import roff_to_markdown, rst_to_markdown
from books.formats.text import dehyphenate
from books.parsing import parse_document

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
