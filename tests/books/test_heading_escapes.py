"""How a heading's emphasis marks read: escaped ones are its text (an HTML heading's
underscores and stars come escaped from the converter, and Markdown writes its own
escapes); a span closes at its first closing run."""

from __future__ import annotations

from books.parsing import clean_heading, parse_document


def paths(document) -> list[tuple[str, ...]]:
    return [s.heading_path for s in document.sections if s.heading_path]


def test_escaped_marks_in_a_heading_are_its_text_not_emphasis():
    """An HTML heading's underscores come escaped ("\\_\\_enter\\_\\_"): the escapes were
    read as emphasis marks and the title was "\\_enter\\_"; Markdown's own escapes too."""
    html = "<h1>Kiteflow</h1><h2>__enter__</h2><p>x</p><h2>*args and **kwargs**</h2><p>y</p>"
    assert paths(parse_document(html.encode(), fmt="html")) == [
        ("Kiteflow",),
        ("Kiteflow", "__enter__"),
        ("Kiteflow", "*args and **kwargs**"),
    ]
    markdown = "# Kiteflow\n\n## \\*\\*kwargs\\*\\* and *lines*\n\nx\n"
    assert paths(parse_document(markdown.encode(), fmt="markdown")) == [
        ("Kiteflow",),
        ("Kiteflow", "**kwargs** and lines"),
    ]


def test_a_one_letter_emphasis_closes_at_its_first_closing_mark():
    """A one-letter span ran on to the next span's closing mark: "Choosing *n* and *k*"
    read "Choosing n* and *k"."""
    assert clean_heading("Choosing *n* and *k*") == "Choosing n and k"
    assert clean_heading("The _x_ axis and the _y_ axis") == "The x axis and the y axis"
    assert clean_heading("**Kites** and *spools*") == "Kites and spools"
