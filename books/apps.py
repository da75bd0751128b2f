from __future__ import annotations

from django.apps import AppConfig


class BooksConfig(AppConfig):
    name = "books"

    def ready(self) -> None:
        """Chunks are a kind of the semantic index, like facts and entities."""
        try:
            from entities.search.index import register_kind
        except ImportError:  # pragma: no cover - search not installed
            return
        from . import selectors

        register_kind(
            "chunks",
            selectors.chunk_rows,
            keys=selectors.chunk_keys,
            count=selectors.chunk_count,
            key_type=int,
        )
