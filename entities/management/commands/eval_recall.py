"""``manage.py eval_recall FILE.json [...]``: score the recall triggers on recall sets."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from entities.recall.evaluation import (
    RecallFileError,
    recall_evaluate,
    recall_file_load,
    scratch_database,
)
from entities.recall.scorer import model_signature


class Command(BaseCommand):
    help = (
        "Store each recall set's memories in a scratch database (the engine's test "
        "database and a temporary vector directory, dropped afterwards), ask every query "
        "through its trigger and print, per endpoint, the hit rate (every expected memory "
        "surfaced; with none expected, nothing to reuse), the recall of expected memories, "
        "the leaks (a forbidden memory surfaced) and the misses."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", help="recall sets (JSON)")
        parser.add_argument("--no-misses", action="store_true", help="only the table")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            sets = [(path, recall_file_load(path)) for path in options["paths"]]
        except RecallFileError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"encoders: {model_signature()}")
        for path, data in sets:
            with scratch_database():
                report = recall_evaluate(data)
            self.stdout.write(f"== {path} ==")
            self.stdout.write(report.format(misses=not options["no_misses"]))
