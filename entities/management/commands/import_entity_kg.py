"""Import an existing SQLite entity memory (schema v3 or v4)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from entities.imports.entity_kg import entity_kg_import
from kgsite.errors import DomainError


class Command(BaseCommand):
    help = (
        "Import entities, aliases and fact links from an SQLite entity memory (tables "
        "entities, entity_aliases, entity_facts; schema v3 or v4). Names differing only by "
        "case or Unicode form fold into the oldest; a second run changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--store", default=None, help="Store name (default: file name).")
        parser.add_argument("--scope", default="", help="Project key for imported facts.")

    def handle(self, *args, path: str, store: str | None, scope: str, **options):
        try:
            report = entity_kg_import(path=Path(path), store=store, scope=scope)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        counts = report.counts
        self.stdout.write(f"schema v{report.version}")
        for key in sorted(counts):
            self.stdout.write(f"{key}: {counts[key]}")
        for line in report.skipped:
            self.stderr.write(f"skipped: {line}")
