"""Rebuild the word-start index behind "did you mean" from the name tables."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from entities.name_index import name_index_rebuild


class Command(BaseCommand):
    help = (
        "Rebuild the word-start index of entity names and aliases that lookup suggestions "
        "read (after a bulk load that bypassed the services)."
    )

    def handle(self, *args, **options) -> None:
        written = name_index_rebuild()
        self.stdout.write(f"{written} name index rows")
