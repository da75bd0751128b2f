"""``manage.py rebuild_fulltext``: recreate the facts' full-text index from the table."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from entities.search.fulltext import fulltext_rebuild


class Command(BaseCommand):
    help = (
        "Recreate the full-text index of facts (SQLite FTS5 and its triggers; PostgreSQL's "
        "GIN index) and re-read every fact into it."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor not in ("sqlite", "postgresql"):
            raise CommandError(f"no full-text index on {connection.vendor}")
        count = fulltext_rebuild()
        self.stdout.write(f"full-text index rebuilt: {count} facts")
