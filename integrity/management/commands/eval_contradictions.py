"""``manage.py eval_contradictions FILE.jsonl``: score the offline pair classifier."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from integrity.detection.evaluation import (
    PairFileError,
    evaluate,
    format_report,
    load_pairs,
    run_pairs,
)


class Command(BaseCommand):
    help = (
        "Classify every pair of a JSONL file ({id, lang, existing, new, label}) offline and "
        "print per-label precision/recall/F1, macro-F1, the confusion matrix and the misses."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="JSONL file, one pair per line")
        parser.add_argument(
            "--detect-lang",
            action="store_true",
            help="ignore the file's lang field and detect each pair's language",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            pairs = load_pairs(options["path"])
        except PairFileError as exc:
            raise CommandError(str(exc)) from exc
        report = evaluate(run_pairs(pairs, detect_lang=options["detect_lang"]))
        self.stdout.write(format_report(report))
