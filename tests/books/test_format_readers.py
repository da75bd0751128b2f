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
