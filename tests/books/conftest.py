"""Fixtures for ingestion tests: the corpus excerpts and a one-call ingest helper."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "books"


@pytest.fixture
def book_path():
    def path(name: str) -> Path:
        return DATA / name

    return path


@pytest.fixture
def ingest(db):
    """Ingest a test-data file synchronously with the offline extractor."""
    from books.services import book_ingest

    def run(name: str, **kwargs):
        kwargs.setdefault("extractor", "offline")
        return book_ingest(path=DATA / name, **kwargs)

    return run


# Files that parse to nothing: rejected before any job is queued or recorded.
GUTENBERG_MARKERS_ONLY = (
    b"The Project Gutenberg eBook of Nothing\n\n"
    b"*** START OF THE PROJECT GUTENBERG EBOOK NOTHING ***\n\n\n"
    b"*** END OF THE PROJECT GUTENBERG EBOOK NOTHING ***\n"
)
CORRUPT_PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage without an end\n"


def image_only_pdf() -> bytes:
    """A PDF whose one page has a drawing but no text layer (as a scanned page)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 60, style="F")
    return bytes(pdf.output())


@pytest.fixture(params=["markers-only.txt", "invisible.md", "corrupt.pdf", "scanned.pdf"])
def unreadable_book(request, tmp_path) -> tuple[Path, str]:
    """(path, what the one error line says) for a file with nothing to ingest."""
    content, message = {
        "markers-only.txt": (GUTENBERG_MARKERS_ONLY, "The uploaded document is empty."),
        # Zero-width spaces and a word joiner: nothing a reader could see.
        "invisible.md": (
            "\u200b\u200b\n\n\u2060\u200b\n".encode(),
            "The uploaded document is empty.",
        ),
        "corrupt.pdf": (CORRUPT_PDF, "The PDF could not be read"),
        "scanned.pdf": (image_only_pdf(), "The PDF has no text layer"),
    }[request.param]
    path = tmp_path / request.param
    path.write_bytes(content)
    return path, message


@pytest.fixture
def vector_dir(tmp_path, settings):
    """A fresh, empty semantic index for the test (no in-memory index left over)."""
    from kgsite.vectors import service

    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    service.vector_indexes_reset()
    yield settings.KGSITE_VECTOR_DIR
    service.vector_indexes_reset()
