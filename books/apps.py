from __future__ import annotations

from django.apps import AppConfig


class BooksConfig(AppConfig):
    name = "books"

    def ready(self) -> None:
        """Chunks are a kind of the vectors room, like facts and entities; mentions hold
        on to their entities when the entity graph collects garbage."""
        from entities import hooks
        from kgsite.vectors.index import register_kind

        from . import selectors

        register_kind(
            "chunks",
            selectors.chunk_rows,
            keys=selectors.chunk_keys,
            count=selectors.chunk_count,
            key_type=int,
        )
        hooks.entity_referrers(selectors.entities_mentioned)
        hooks.passage_links(selectors.chunk_links)
