"""Parsers for formats beyond Markdown: technical plain text, PDF outlines, HTML, EPUB.

Each returns text plus headings ``(line start, level, title)`` that
``books.parsing`` turns into sections, so offsets always point into the text stored.
"""
