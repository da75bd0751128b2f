"""Markup a reader must not copy into a book's text: what a format says about the page
(options, references) rather than what the page says."""

from __future__ import annotations

from books.parsing import parse_document


def test_a_code_directives_options_are_not_code():
    """Sphinx's ``:linenos:`` and ``:caption:`` were the first lines of the code block."""
    rst = (
        "Kites\n=====\n\n.. code-block:: python\n   :linenos:\n   :caption: Flying\n\n"
        "   kite.fly()\n   kite.land()\n\n.. literalinclude:: ../src/kite.py\n   :lines: 1-9\n\n"
        "Done.\n"
    )
    text = parse_document(rst.encode(), fmt="rst").text
    assert "```\nkite.fly()\nkite.land()\n```" in text
    assert "linenos" not in text and "caption" not in text and ":lines:" not in text
    assert text.count("```") == 2  # an include's path is no code block of its own


def test_restructuredtext_references_read_as_their_text_and_footnotes_keep_theirs():
    """Footnote marks ("[#]_"), citations ("[CIT2002]_") and named references
    ("`target`_") stayed as written, and a footnote's own text was dropped as a
    comment."""
    rst = (
        "Kites\n=====\n\nKites fly [#]_ as the guild says [GUILD1999]_; see `the rules`_ "
        "and `Lines <https://example.org/lines>`__.\n\n"
        ".. [#] Mostly in spring,\n   when the wind is steady.\n"
        ".. [GUILD1999] The Kite Guild, Rules.\n"
        ".. _the rules: https://example.org/rules\n"
    )
    text = " ".join(parse_document(rst.encode(), fmt="rst").text.split())
    assert "Kites fly as the guild says [GUILD1999]; see the rules and Lines." in text
    assert "Mostly in spring, when the wind is steady." in text
    assert "[GUILD1999] The Kite Guild, Rules." in text
    assert "_" not in text and "example.org" not in text


def test_html_comments_in_markdown_are_no_text_but_code_keeps_them():
    """Node.js's API pages carry their history in comments ("<!-- YAML added: v0.1.27
    -->"): it was a paragraph of every section, read for names."""
    markdown = (
        "# Kites\n\n<!-- YAML\nadded: v0.1.27\n-->\n\n## Lines <!-- a note -->\n\n"
        "A line holds the kite.<!-- hidden -->\n\n```html\n<!-- kept in code -->\n```\n"
    )
    document = parse_document(markdown.encode(), fmt="markdown")
    assert "YAML" not in document.text and "hidden" not in document.text
    assert "a note" not in document.text
    assert "A line holds the kite." in document.text
    assert "<!-- kept in code -->" in document.text
    assert [s.heading_path for s in document.sections] == [("Kites",), ("Kites", "Lines")]


def test_an_mdoc_manual_page_keeps_its_names_flags_and_words():
    """A BSD-style page (mdoc: ``.Nm``, ``.Fl``, ``.Op``, ``.Em``) lost every macro's
    words: an empty NAME section, "documents version 5.4 of the command.", no option."""
    roff = (
        ".Dd May 1, 2024\n.Dt KITE 1\n.Os\n.Sh NAME\n.Nm kite\n.Nd fly a kite\n"
        ".Sh SYNOPSIS\n.Nm\n.Op Fl v\n.Op Fl Fl line-length Ar metres\n.Ar\n"
        ".Sh DESCRIPTION\nThis page documents version 5.4 of the\n.Nm\ncommand.\nThe\n"
        ".Em first\nflight needs\n.Dq steady wind .\nSee\n.Xr spool 1 ,\n.Pa /etc/kite.conf\n"
        "and\n.Sx SYNOPSIS .\n.Bl -tag -width Ds\n.It Fl v\nTalk more.\n.El\n"
    )
    document = parse_document(roff.encode(), fmt="man")
    assert document.sections[0].heading_path == ("KITE(1)",)
    lines = " ".join(document.text.split())
    assert "## NAME kite fly a kite ## SYNOPSIS kite [-v] [--line-length metres]" in lines
    assert "documents version 5.4 of the kite command." in lines
    assert "The first flight needs “steady wind”." in lines
    assert "See spool(1), /etc/kite.conf and SYNOPSIS." in lines
    assert "-v Talk more." in lines


def test_a_markdown_headings_attribute_block_is_not_its_title():
    """MkDocs' and Pandoc's "## Lines {#lines .wide}" named the chapter
    "Lines {#lines .wide}"."""
    markdown = (
        "# Kites {#kites}\n\nx\n\n## Lines {#lines .wide}\n\ny\n\nSpools {.note}\n------\n\nz\n"
    )
    document = parse_document(markdown.encode(), fmt="markdown")
    assert [s.heading_path for s in document.sections] == [
        ("Kites",),
        ("Kites", "Lines"),
        ("Kites", "Spools"),
    ]


def test_a_name_with_underscores_in_an_html_book_is_found_as_written(db, vector_dir):
    """markdownify escaped every underscore and star of an HTML page's prose
    ("kite\\_line\\_max"): a stored name with one was never found there, and its
    pieces ("max") became entities of their own."""
    from books.models import Mention
    from books.services import book_ingest
    from entities.services import entity_store

    entity_store(name="kite_line_max", type="option")
    html = (
        "<h1>Kites</h1><p>Set kite_line_max to limit the line; 2*3 knots.</p>"
        "<h2>More</h2><p>Raise kite_line_max in wind.</p><pre>x = a\\_b</pre>"
    )
    book = book_ingest(data=html.encode(), filename="kites.html", embed=False).book
    found = Mention.objects.filter(book=book, entity__canonical_name="kite_line_max")
    assert found.count() == 2
    text = "\n".join(book.chunks.values_list("text", flat=True))
    assert "kite_line_max" in text and "2*3" in text and "\\_line" not in text
    assert "x = a\\_b" in text  # code as written


def test_code_spans_pair_runs_of_backticks_of_the_same_length():
    """As CommonMark reads them: ``a`b`` is one span holding a backtick, a run nothing
    closes is text, and the spans never overlap."""
    from books.formats.markdown import code_spans

    line = "x ``a`b`` y `c` z ``` w"
    assert [line[s:e] for s, e in code_spans(line)] == ["``a`b``", "`c`"]
    assert code_spans("no code") == [] and code_spans("` alone") == []


def test_an_html_page_in_utf8_under_an_old_charset_declaration_reads_as_written():
    """A page re-saved as UTF-8 that kept its '<meta charset="iso-8859-1">' was read by
    the declaration: every accent became two signs ("cafÃ©"), names included."""
    page = (
        '<html><head><meta charset="iso-8859-1"></head>'
        "<body><h1>Café Zoë</h1><p>The Café Zoë opens at dawn.</p></body></html>"
    )
    text = parse_document(page.encode(), fmt="html").text
    assert "# Café Zoë" in text and "Ã" not in text
    latin = page.encode("latin-1")  # as declared: still read by its declaration
    assert "The Café Zoë opens" in parse_document(latin, fmt="html").text
