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
