"""Marks a heading escapes are its text: an HTML heading's underscores and stars come
escaped from the converter, and Markdown writes its own escapes."""

from __future__ import annotations

from books.parsing import parse_document


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
