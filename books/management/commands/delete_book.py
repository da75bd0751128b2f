"""Delete a book, its chunks and mentions, and entities nothing else holds on to."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from books.services import book_delete, book_resolve
from kgsite.errors import DomainError


class Command(BaseCommand):
    help = "Delete a book by id or title; garbage-collect entities only it mentioned."

    def add_arguments(self, parser) -> None:
        parser.add_argument("book", help="the book's id or title")

    def handle(self, *args, **options) -> None:
        try:
            book = book_resolve(title_or_id=options["book"])
            summary = book_delete(book=book, actor=None)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"deleted book {summary['book_id']} {summary['title']!r}: {summary['chunks']} "
            f"chunks, {_entities(summary['entities_removed'])} removed, "
            f"{summary['entities_kept']} kept"
        )


def _entities(count: int) -> str:
    return f"{count} {'entity' if count == 1 else 'entities'}"
