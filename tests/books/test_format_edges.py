"""What an uploader's file looks like in the wild: a byte-order mark, Windows line endings,
a Windows code page, every heading form a format has, and text nobody wrote for the test.

The outline is what a curator browses (a book's chapters) and what the extraction reads
(a heading defines its entity), so a heading form that is missed, or offsets that drift
with the line endings, show on the book's page."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from books.chunking import chunk_sections
from books.parsing import parse_document
from kgsite.errors import InvalidInput

# One small document per text format, each with a title and two sections under it.
DOCUMENTS = {
    "markdown": "# Kite manual\n\n## Lines\n\nA line holds the kite.\n\n## Spools\n\nA spool.\n",
    "rst": "Kite manual\n===========\n\nLines\n-----\n\nA line holds the kite.\n\n"
    "Spools\n------\n\nA spool.\n",
    "man": '.TH KITE 1\n.SH "LINES"\nA line holds the kite.\n.SH SPOOLS\nA spool.\n',
    "html": "<html><body><h1>Kite manual</h1><h2>Lines</h2><p>A line holds the kite.</p>"
    "<h2>Spools</h2><p>A spool.</p></body></html>",
    "text": "KITE MANUAL\n\n1. Lines\n\nA line holds the kite.\n\n2. Spools\n\nA spool.\n\n"
    "3. Knots\n\nA knot.\n",
}


def paths(document) -> list[tuple[str, ...]]:
    return [s.heading_path for s in document.sections if s.heading_path]


def assert_tiles(document) -> None:
    """Each section is the text between its offsets, in order, with nothing between them
    but what precedes the first heading."""
    text = document.text
    previous_end = None
    for section in document.sections:
        assert text[section.start : section.end] == section.text
        if previous_end is not None:
            assert section.start == previous_end
        previous_end = section.end
    assert document.sections and document.sections[-1].end == len(text)


@pytest.mark.parametrize("fmt", sorted(DOCUMENTS))
@pytest.mark.parametrize(
    "encode",
    [
        lambda s: s.encode(),
        lambda s: codecs.BOM_UTF8 + s.encode(),
        lambda s: s.replace("\n", "\r\n").encode(),
        lambda s: codecs.BOM_UTF8 + s.replace("\n", "\r\n").encode(),
        lambda s: s.replace("\n", "\r").encode(),  # classic Mac OS
        lambda s: s.encode("utf-16"),
        lambda s: s.replace("\n", "\r\n").encode("utf-16-be").join([codecs.BOM_UTF16_BE, b""]),
        lambda s: s.encode("utf-32"),
        lambda s: codecs.BOM_UTF32_BE + s.replace("\n", "\r\n").encode("utf-32-be"),
    ],
    ids=["utf8", "bom", "crlf", "bom-crlf", "cr", "utf16", "utf16be-crlf", "utf32", "utf32be"],
)
def test_every_encoding_and_line_ending_gives_the_same_outline(fmt, encode):
    plain = parse_document(DOCUMENTS[fmt].encode(), fmt=fmt)
    document = parse_document(encode(DOCUMENTS[fmt]), fmt=fmt)
    assert paths(document) == paths(plain)
    assert len(paths(document)) >= 3
    assert "\r" not in document.text and "\ufeff" not in document.text
    assert_tiles(document)


def test_windows_1252_quotes_and_dashes_are_read_as_written():
    """Word on Windows saves "smart" quotes and dashes in cp1252; read as latin-1 they
    become invisible control characters in every excerpt a curator reads."""
    written = "\u201cKestrel\u201d \u2014 the harbour\u2019s light, 5 \u20ac a visit.\n"
    document = parse_document(written.encode("cp1252"), fmt="text")
    assert document.text == written
    assert not any("\x80" <= c <= "\x9f" for c in document.text)


def test_bytes_no_code_page_knows_still_read_without_an_error():
    """0x81 is undefined in cp1252: the text is still read (latin-1), never refused."""
    document = parse_document(b"Caf\xe9 \x81 au lait.\n", fmt="text")
    assert document.text.startswith("Café")


def test_a_utf8_text_with_one_stray_latin1_byte_keeps_its_accents():
    """Decoded whole as Windows-1252 for the one byte UTF-8 could not read, every accent
    and curly quote of the book became two signs ("café" read "cafÃ©")."""
    written = "Le café de Zoë — “quoted”. "
    document = parse_document(written.encode() + b"Price: 5\xa3.\n", fmt="text")
    assert document.text.strip() == written + "Price: 5£."
    mixed = parse_document(b"Caf\xe9 \x93smart\x94 \x81.\n", fmt="text")
    assert mixed.text.strip() == "Café “smart” \x81."


# --- every heading form ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("# One\n\nx\n\n## Two ##\n\ny\n", [("One",), ("One", "Two")]),
        ("   # Indented three\n\nx\n", [("Indented three",)]),
        ("# **Bold** _title_\n\nx\n", [("Bold title",)]),
        ("###### Six\n\nx\n", [("Six",)]),
        ("####### Seven is text\n\nx\n", []),
        ("#hashtag is text\n\nx\n", []),
        ("    # four spaces is code\n\nx\n", []),
        ("```\n# in a fence\n```\n\n~~~\n# also\n~~~\n", []),
        (
            "Setext one\n==========\n\nx\n\nSetext two\n----------\n\ny\n",
            [("Setext one",), ("Setext one", "Setext two")],
        ),
        ("# Title\n\nIntro.\n\nPart\n====\n\nx\n", [("Title",), ("Part",)]),
    ],
    ids=[
        "atx-closing",
        "indented",
        "emphasis",
        "six",
        "seven",
        "hashtag",
        "code",
        "fences",
        "setext",
        "setext-under-atx",
    ],
)
def test_every_markdown_heading_form(markdown, expected):
    document = parse_document(markdown.encode(), fmt="markdown")
    assert paths(document) == expected
    assert_tiles(document)


@pytest.mark.parametrize(
    "markdown",
    [
        "A paragraph.\n\n---\n\nAfter a rule.\n",  # a thematic break, after a blank line
        "- item one\n- item two\n---\n\nx\n",  # a list, not a title
        "| a | b |\n|---|---|\n| 1 | 2 |\n",  # a table's separator row
        "---\ntitle: Kites\n---\n\nBody.\n",  # front matter
    ],
    ids=["rule", "list", "table", "front-matter"],
)
def test_dashes_that_are_not_a_setext_underline_make_no_heading(markdown):
    assert paths(parse_document(markdown.encode(), fmt="markdown")) == []


@pytest.mark.parametrize(
    ("rst", "expected"),
    [
        (
            "=====\nTitle\n=====\n\nChapter\n=======\n\nSection\n-------\n\nx\n",
            [("Title",), ("Title", "Chapter"), ("Title", "Chapter", "Section")],
        ),
        ("Lines\n~~~~~\n\nx\n\n.. rubric:: Notes\n\ny\n", [("Lines",), ("Lines", "Notes")]),
        ("Title\n=====\n\n.. note:: Careful\n\n   Kites fly.\n\nx\n", [("Title",)]),
    ],
    ids=["over-and-under", "rubric", "directive-is-no-heading"],
)
def test_every_restructuredtext_heading_form(rst, expected):
    document = parse_document(rst.encode(), fmt="rst")
    assert paths(document) == expected


@pytest.mark.parametrize("level", range(1, 7))
def test_every_html_heading_level(level):
    html = f"<h1>Top</h1><p>a</p><h{level}>Inner</h{level}><p>b</p>"
    document = parse_document(html.encode(), fmt="html")
    expected = [("Top",), ("Inner",)] if level == 1 else [("Top",), ("Top", "Inner")]
    assert paths(document) == expected


def test_html_navigation_and_scripts_bring_no_heading_or_text():
    html = (
        "<nav><h2>Menu</h2><a href='/'>Home</a></nav><script>var h='<h1>x</h1>'</script>"
        "<h1>Kites</h1><p>Kites fly.</p>"
    )
    document = parse_document(html.encode(), fmt="html")
    assert paths(document) == [("Kites",)]
    assert "Menu" not in document.text and "var h" not in document.text


def test_an_html_paragraph_opening_with_hashes_is_text_not_a_heading():
    """``<p># x</p>`` became the Markdown line "# x", read back as a heading "x" (a
    section, and a heading term); it is the paragraph's text, as a browser shows it."""
    html = (
        "<h1>Kites</h1><p># of kites flown</p><p>Kites fly.</p>"
        "<ul><li>## spare lines</li></ul><p><b>Note</b># 5 and C# <code>x_y</code></p>"
    )
    document = parse_document(html.encode(), fmt="html")
    assert paths(document) == [("Kites",)]
    assert "# of kites flown" in document.text and "- ## spare lines" in document.text
    assert "**Note**# 5 and C# `x_y`" in document.text


@pytest.mark.parametrize(
    ("roff", "expected"),
    [
        (".TH KITE 1\n.SH NAME\nkite\n.SS Options\n-v\n", [("KITE(1)", "NAME", "Options")]),
        (".Dd May 1\n.Sh NAME\nkite\n.Sh DESCRIPTION\nflies\n", [("NAME",), ("DESCRIPTION",)]),
    ],
    ids=["man", "mdoc"],
)
def test_manual_page_sections(roff, expected):
    assert paths(parse_document(roff.encode(), fmt="man"))[-len(expected) :] == expected


# --- nothing to read ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "content"),
    [
        ("markdown", b"\xef\xbb\xbf\r\n\r\n"),
        ("html", b"<html><head><title>t</title></head><body>  </body></html>"),
        ("html", b"<script>alert(1)</script>"),
        ("rst", b".. a comment only\n\n.. another\n"),
        ("text", b"\r\n\t\r\n"),
        ("man", b"   \n"),
        ("man", b'.\\" written by hand, nothing else\n'),
    ],
)
def test_a_file_with_nothing_to_read_is_one_error_naming_the_file(fmt, content):
    with pytest.raises(InvalidInput) as caught:
        parse_document(content, fmt=fmt)
    assert caught.value.field == "file"
    assert "empty" in caught.value.message


def test_a_manual_page_that_only_includes_another_names_it_instead_of_becoming_a_book():
    """A ``.so`` stub (a page that stands for another) was read as rendered text: a book
    of one chunk showing the raw request."""
    with pytest.raises(InvalidInput) as caught:
        parse_document(b".so man1/kiteflier.1\n", fmt="man")
    assert caught.value.field == "file"
    assert caught.value.message == (
        "The manual page only includes man1/kiteflier.1 (.so): ingest that page instead."
    )


def test_roff_without_a_title_request_is_still_read_as_roff():
    page = '.\\" a fragment kept beside the page\nKites \\fBfly\\fR high.\n.PP\nThey land.\n'
    document = parse_document(page.encode(), fmt="man")
    assert "Kites fly high." in document.text and "They land." in document.text
    assert ".PP" not in document.text and "fragment" not in document.text


@pytest.mark.parametrize("fmt", ["markdown", "text", "rst", "man", "html"])
def test_a_pdf_or_zip_renamed_to_a_text_extension_is_refused(fmt):
    for data, what in ((b"%PDF-1.7\n%\xe2\xe3", "a PDF"), (b"PK\x03\x04rest", "a ZIP archive")):
        with pytest.raises(InvalidInput) as caught:
            parse_document(data, fmt=fmt)
        assert what in caught.value.message and caught.value.field == "file"


def test_one_huge_line_is_cut_into_chunks_that_fit():
    line = ("word " * 40_000).strip()  # 200 KB, no newline, no sentence end
    document = parse_document(f"# Big\n\n{line}\n".encode(), fmt="markdown")
    chunks = chunk_sections(document.sections, max_chars=1500)
    assert len(chunks) > 100
    assert all(len(c.text) <= 1500 for c in chunks)
    assert all(document.text[c.start : c.end] == c.text for c in chunks)
    assert " ".join(c.text for c in chunks).split() == document.text.split()  # no word lost


# --- any text ----------------------------------------------------------------------------

LINES = st.lists(
    st.one_of(
        st.sampled_from(["", "# A", "## B c", "===", "---", "```", "Title", "- item", "1. One"]),
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=LINES, fmt=st.sampled_from(["markdown", "text", "rst"]), crlf=st.booleans())
def test_any_text_parses_to_sections_that_tile_it_or_is_refused_as_empty(lines, fmt, crlf):
    source = ("\r\n" if crlf else "\n").join(lines)
    try:
        document = parse_document(source.encode(), fmt=fmt)
    except InvalidInput as exc:
        assert exc.field == "file"
        return
    assert document.text.strip()
    assert "\r" not in document.text
    for section in document.sections:
        assert document.text[section.start : section.end] == section.text
        assert all(title.strip() == title and title for title in section.heading_path)
    starts = [s.start for s in document.sections]
    assert starts == sorted(starts)
    chunks = chunk_sections(document.sections, max_chars=200)
    assert all(document.text[c.start : c.end] == c.text for c in chunks)


def test_a_setext_title_may_open_with_emphasis_and_sits_in_the_outline_with_atx_ones():
    markdown = "*Kites* and lines\n-----------------\n\nx\n\n### Knots\n\ny\n"
    document = parse_document(markdown.encode(), fmt="markdown")
    assert paths(document) == [("Kites and lines",), ("Kites and lines", "Knots")]
    assert document.sections[0].start == 0 and document.sections[1].text.startswith("### Knots")


@pytest.mark.parametrize(
    "text",
    [
        "MZ is the mark of an executable; this note says so.\n",
        "PK stands for primary key.\n",
        "A note quoting %PDF-1.7 in its text.\n",
    ],
    ids=["MZ", "PK", "PDF-inside"],
)
def test_text_that_merely_starts_like_a_binary_file_is_read(text):
    assert parse_document(text.encode(), fmt="text").text == text


@pytest.mark.parametrize(
    "synopsis",
    [
        ".nf\nkite [\\-v]\n",  # no-fill never closed: the next section ends it
        ".nf\n.nf\nkite [\\-v]\n.fi\n.fi\n",  # closed twice
        ".EX\nkite [\\-v]\n",
    ],
    ids=["unclosed", "nested", "example-unclosed"],
)
def test_a_manual_pages_preformatted_synopsis_never_hides_the_sections_after_it(synopsis):
    roff = f".TH KITE 1\n.SH SYNOPSIS\n{synopsis}.SH DESCRIPTION\nKites fly.\n.SS Options\n-v\n"
    document = parse_document(roff.encode(), fmt="man")
    assert paths(document) == [
        ("KITE(1)",),
        ("KITE(1)", "SYNOPSIS"),
        ("KITE(1)", "DESCRIPTION"),
        ("KITE(1)", "DESCRIPTION", "Options"),
    ]
    assert "kite [-v]" in document.text and document.text.count("```") % 2 == 0


@pytest.mark.django_db
def test_a_nul_character_in_wide_text_is_dropped_so_every_database_stores_the_book():
    from books.models import Chunk
    from books.services import book_ingest

    data = "# Kites\n\nKites\x00 fly.\n".encode("utf-16")
    result = book_ingest(data=data, filename="kites.md", embed=False)
    assert [c.text for c in Chunk.objects.filter(book=result.book)] == ["# Kites\n\nKites fly."]


# The preamble Pod::Man writes at the top of every page it generates (Perl's, OpenSSL's):
# macro definitions, conditionals and string definitions, none of them text.
POD_MAN_PREAMBLE = r""".\" Automatically generated by Pod::Man
.de Sp \" Vertical space (when we can't use .PP)
.if t .sp .5v
.if n .sp
..
.de Vb \" Begin verbatim text
.ft CW
.nf
.ne \\$1
..
.de Ve \" End verbatim text
.ft R
.fi
..
.ie n \{\
.    ds L" ""
.    ds C` ""
'br\}
.el\{\
.    ds L" ``
.    ds C`
'br\}
.de IX
..
.if (\n(rF:(\n(.g==0)) \{\
.    if \nF \{\
.        de IX
.        tm Index:\\$1\t\\n%\t"\\$2"
..
.    \}
.\}
"""


def test_a_pod_man_page_shows_its_text_not_its_macro_preamble():
    """A page generated by Pod::Man opened its book with a chunk of "..", "\\}" and code
    fences from the macro definitions, before the title."""
    roff = POD_MAN_PREAMBLE + ".TH KITE 1\n.SH NAME\nkite \\- fly a kite\n"
    document = parse_document(roff.encode(), fmt="man")
    assert paths(document) == [("KITE(1)",), ("KITE(1)", "NAME")]
    assert document.text == "# KITE(1)\n\n## NAME\n\nkite - fly a kite\n"


def test_a_manual_pages_strings_and_named_characters_read_as_what_they_print():
    """``\\*(L"``, ``\\*(C``` (Pod::Man's quotes and code marks), ``\\(co`` and
    ``\\[u00E9]`` stayed in the text as written, in every option a Pod::Man page lists."""
    roff = (
        ".TH KITE 1\n.SH OPTIONS\n"
        'Give \\*(C`\\-s\\*(C\' a size such as \\*(L"small\\*(R" or \\*(Aqlarge\\*(Aq.\n'
        ".SH COPYRIGHT\n\\(co 2024 Ren\\[u00E9]e \\[em] \\*(lqkites\\*(rq \\*(XYfly.\n"
    )
    text = parse_document(roff.encode(), fmt="man").text
    assert "Give `-s` a size such as “small” or 'large'." in text
    assert "© 2024 Renée — “kites” fly." in text
    assert "\\" not in text


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # help2man (GNU tools): italic corrections around every placeholder
        ("kite [\\fI\\,OPTION\\/\\fR]... [\\fI\\,FILE\\/\\fR]...", "kite [OPTION]... [FILE]..."),
        # DocBook: colours, a smaller raised note mark, motions around a bullet
        (
            "The \\m[blue]\\fBKite Guide\\fR\\m[]\\&\\s-2\\u[1]\\d\\s+2 says more\\&.",
            "The Kite Guide[1] says more.",
        ),
        ("\\h'-04'\\(bu\\h'+03'\\c", "•"),
        # Pod::Man: a thin space before a section number
        ("See \\fBkite\\-string\\fR\\|(1).", "See kite-string(1)."),
    ],
    ids=["help2man", "docbook", "docbook-bullet", "pod-man"],
)
def test_a_manual_pages_spacing_colour_and_motion_escapes_print_nothing(line, expected):
    roff = f".TH KITE 1\n.SH DESCRIPTION\n{line}\n"
    assert parse_document(roff.encode(), fmt="man").text.endswith(f"\n{expected}\n")


def test_a_request_continued_on_the_next_line_is_no_text():
    roff = ".TH KITE 1\n.SH NAME\n.if \\n(.H>23 .if \\n(.V>19 \\\n\\{\\\n.    ds : e\n.\\}\nkite\n"
    assert parse_document(roff.encode(), fmt="man").text == "# KITE(1)\n\n## NAME\n\nkite\n"


def test_restructuredtext_substitutions_read_as_their_text():
    """``|name|`` stayed in the text as written, and the definition at the foot of the
    page (``.. |name| replace:: ...``) was a paragraph of its own."""
    rst = (
        "Kites\n=====\n\n|project| flies |version| kites |logo| high.\n\n"
        ".. |project| replace:: Kitewright\n"
        ".. |version| replace:: *7.2*\n"
        ".. |logo| image:: kite.png\n   :alt: a kite\n"
    )
    text = parse_document(rst.encode(), fmt="rst").text
    assert text.rstrip().endswith("Kitewright flies *7.2* kites  high.")
    assert "|" not in text and "replace::" not in text and "kite.png" not in text


def test_restructuredtext_directives_that_hold_no_prose_leave_no_text():
    """An image's or an include's path, a table of contents' entries, raw HTML and index
    entries were paragraphs of the book (and file names there became entities)."""
    rst = (
        "Kites\n=====\n\n.. image:: img/kite.png\n   :alt: a red kite\n\n"
        ".. figure:: img/spool.png\n\n   A spool holds the line.\n\n"
        ".. toctree::\n   :maxdepth: 2\n\n   install\n   usage\n\n"
        '.. raw:: html\n\n   <div class="banner">Hi</div>\n\n'
        ".. include:: ../shared/footer.rst\n\n.. index:: single: kite; flying\n\n"
        ".. only:: html\n\n   Kites fly in the browser.\n\n"
        ".. note:: Kites need wind.\n\nText.\n"
    )
    text = parse_document(rst.encode(), fmt="rst").text
    expected = "# Kites A spool holds the line. Kites fly in the browser. Kites need wind. Text."
    assert " ".join(text.split()) == expected


@pytest.mark.parametrize(
    ("fmt", "source"),
    [
        (
            "markdown",
            "# Kiteflow\n\n## `__enter__`\n\nx\n\n"
            "## The `**spool_opts` and `*args` *keywords*\n\ny\n",
        ),
        (
            "html",
            "<h1>Kiteflow</h1><h2><code>__enter__</code></h2><p>x</p><h2>The <code>**spool_opts"
            "</code> and <code>*args</code> <em>keywords</em></h2><p>y</p>",
        ),
    ],
)
def test_a_code_name_in_a_heading_keeps_its_underscores_and_stars(fmt, source):
    """Emphasis was read inside code: the heading `__enter__` became `enter` (and defined
    an entity "enter"), `**spool_opts` lost a star."""
    assert paths(parse_document(source.encode(), fmt=fmt)) == [
        ("Kiteflow",),
        ("Kiteflow", "`__enter__`"),
        ("Kiteflow", "The `**spool_opts` and `*args` keywords"),
    ]


@pytest.mark.parametrize(
    "source",
    [
        "# Kiteflow\n\n## __enter__\n\nx\n\n## __exit__ and __spool_max__\n\ny\n",
        "# Kiteflow\n\n__enter__\n---------\n\nx\n\n__exit__ and __spool_max__\n---\n\ny\n",
    ],
    ids=["atx", "setext"],
)
def test_a_python_special_name_in_a_markdown_heading_keeps_its_underscores(source):
    """The heading ``__enter__`` read as strong emphasis: its section was "enter", and
    the heading defined an entity "enter". A word in capitals between them is still emphasis."""
    assert paths(parse_document(source.encode(), fmt="markdown")) == [
        ("Kiteflow",),
        ("Kiteflow", "__enter__"),
        ("Kiteflow", "__exit__ and __spool_max__"),
    ]
    bold = parse_document(b"# __Kites__ and **lines**\n\nx\n", fmt="markdown")
    assert paths(bold) == [("Kites and lines",)]


@pytest.mark.parametrize(
    ("fmt", "source"),
    [
        # Sphinx and MkDocs end every heading with a permalink mark
        (
            "html",
            '<h1>Kites<a class="headerlink" href="#kites" title="Link to this heading">¶</a>'
            '</h1><p>x</p><h2>Lines<a class="headerlink" href="#lines">&para;</a></h2><p>y</p>',
        ),
        # GitHub's empty anchor before the text; a heading that is a link
        (
            "html",
            '<h1><a class="anchor" href="#kites"></a>Kites</h1><p>x</p>'
            '<h2><a href="https://example.org/lines">Lines</a></h2><p>y</p>',
        ),
        (
            "markdown",
            "# [Kites](https://example.org) ![build](badge.svg)\n\nx\n\n"
            "## Lines [¶](#lines)\n\ny\n",
        ),
    ],
    ids=["sphinx-mkdocs", "github-anchor-and-link", "markdown"],
)
def test_a_link_in_a_heading_reads_as_its_text_and_a_permalink_as_nothing(fmt, source):
    """Headings read 'Kites[¶](#kites "Link to this heading")' on the book's page and in
    every chunk's heading path; an HTML page's permalink marks are no text either."""
    document = parse_document(source.encode(), fmt=fmt)
    assert paths(document) == [("Kites",), ("Kites", "Lines")]
    assert fmt != "html" or "¶" not in document.text


def test_html5_blocks_keep_their_words_apart():
    """A header, an aside, a footer or a summary ran into the next block's text:
    'Kite ClubKites fly.', 'spoolsKite Club 2024'."""
    html = (
        "<header>Kite Club</header><main>Kites fly.</main><aside>See also spools</aside>"
        "<footer>Kite Club 2024</footer><details><summary>More</summary>Lines hold kites."
        "</details><figure>A red kite</figure><address>1 Kite Lane</address>"
    )
    text = parse_document(html.encode(), fmt="html").text
    expected = (
        "Kite Club Kites fly. See also spools Kite Club 2024 More Lines hold kites. "
        "A red kite 1 Kite Lane"
    )
    assert " ".join(text.split()) == expected


@pytest.mark.parametrize(
    "front",
    [
        "---\ntitle: Kites\nlayout: page\ntags: [wind, line]\n---\n",
        '+++\ntitle = "Kites"\ndraft = false\n+++\n',
        "---\ntitle: Kites\n...\n",
    ],
    ids=["yaml", "toml", "yaml-dots"],
)
def test_markdown_front_matter_is_no_text_of_the_book(front):
    """A Jekyll, Hugo or MkDocs page opened its book with a chapter "(no heading)"
    holding its YAML settings."""
    document = parse_document(f"{front}\n# Kites\n\nKites fly.\n".encode(), fmt="markdown")
    assert document.text == "# Kites\n\nKites fly.\n"
    assert [s.heading_path for s in document.sections] == [("Kites",)]


def test_a_markdown_page_opening_on_a_rule_keeps_its_text():
    source = "---\n\nKites fly.\n\n---\n\n# Lines\n\nA line.\n"
    assert parse_document(source.encode(), fmt="markdown").text == source


def test_a_paginated_text_loses_its_running_headers_and_footers():
    """A text paginated with form feeds (an RFC, an old manual) kept every page's
    header and footer ("Flyer  Informational  [Page 2]") inside its chunks, as a PDF's
    are not."""
    pages = [f"{n}.  Part {n}\n\n   Kites of kind {n} fly in wind {n * 3}.\n" for n in range(1, 5)]
    header = "RFC 9999                          KLTP                        April 2024\n\n"
    footer = "Flyer                  Informational              [Page {}]\n"
    text = "\f\n".join(
        f"{header if n else ''}{page}\n{footer.format(n + 1)}" for n, page in enumerate(pages)
    )
    document = parse_document(text.encode(), fmt="text")
    assert "[Page" not in document.text and "April 2024" not in document.text
    assert "\f" not in document.text
    for n in range(1, 5):
        assert f"Kites of kind {n} fly in wind {n * 3}." in document.text
