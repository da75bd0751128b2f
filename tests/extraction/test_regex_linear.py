"""Patterns that read user text must not backtrack: a man page's keyword list (an
unindented line, then lines indented by many spaces) once made one chunk take hours."""

from __future__ import annotations

from books.chunking import chunk_sections
from books.extraction.candidates import _C_SIGNATURE, book_candidates
from books.parsing import parse_document


def man_page_like(size: int) -> str:
    """A manual page of ``size`` characters: keyword lists, indented option lines, and one
    C declaration in its synopsis."""
    parts = [
        "SYNOPSIS\n\nint tty_flush (int fd, const char *queue);\n\nDESCRIPTION\n\n",
    ]
    n = 0
    while sum(map(len, parts)) < size:
        parts.append(
            f"keywords{n}\n"
            + "".join(f"                          value{n}x{k}  other{k}\n" for k in range(8))
            + "\n"
        )
        n += 1
    return "".join(parts)


def test_keyword_ladders_are_read_and_the_declaration_still_found():
    text = man_page_like(52_000)
    assert len(text) >= 52_000
    declarations = [m.group("name") for m in _C_SIGNATURE.finditer(text)]
    assert declarations == ["tty_flush"]  # the ladders declare nothing


def test_a_whole_man_page_like_document_is_processed():
    document = parse_document(man_page_like(52_000).encode(), fmt="text")
    chunks = chunk_sections(document.sections, max_chars=20_000)
    found = {c.name: c for c in book_candidates(chunks)}
    assert found["tty_flush()"].type == "function"
    # A synopsis declares; with no section describing it, no chunk defines it.
    assert found["tty_flush()"].define is None
    assert not {"queue", "fd"} & set(found)  # parameters, not entities


def test_declarations_in_their_usual_layouts():
    text = (
        "static char *\nbuf_name(void)\n"
        "const char* conf_get(size_t n)\n"
        "unsigned long int\n   clock_ticks (int a)\n"
    )
    names = [m.group("name") for m in _C_SIGNATURE.finditer(text)]
    assert names == ["buf_name", "conf_get", "clock_ticks"]
