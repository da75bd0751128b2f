"""``manage.py eval_contradictions FILE.jsonl [...]``: score the pair model, or with
``--cv`` cross-validate it leaving one file out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from integrity.detection.evaluation import (
    PairFileError,
    evaluate,
    format_report,
    load_pairs,
    run_pairs,
)
from integrity.detection.train import train
from integrity.services import classifier_thresholds
from integrity.signals import ENCODERS, PairEncoder, cached_encoder, entity_mentions


class Command(BaseCommand):
    help = (
        "Classify every pair of JSONL files ({id, lang, existing, new, label}) and print "
        "per-label precision/recall/F1, macro-F1, the curator measures (reach: "
        "contradictions answered contradiction or uncertain; wrong duplicates: "
        "non-duplicates answered duplicate; false alarms: compatible pairs answered "
        "contradiction; uncertain rate), the confusion matrix and the misses. With --cv: "
        "the leave-one-file-out table of the training command (nothing written)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", help="JSONL files, one pair per line")
        parser.add_argument(
            "--detect-lang",
            action="store_true",
            help="ignore the file's lang field and detect each pair's language",
        )
        parser.add_argument(
            "--encoder",
            choices=[*ENCODERS, "none"],
            default=None,
            help="the pair model's encoder (default: KGSITE_PAIR_ENCODER); none: the "
            "head trained without one",
        )
        parser.add_argument(
            "--cv",
            action="store_true",
            help="retrain leaving each file out (nested) and print every fold beside the "
            "in-sample figures; needs two files or more",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["encoder"] or getattr(settings, "KGSITE_PAIR_ENCODER", "use")
        if options["cv"]:
            self._cv([Path(p) for p in options["paths"]], name)
            return
        encoder = PairEncoder(name) if name in ENCODERS else None
        for path in options["paths"]:
            try:
                pairs = load_pairs(path)
            except PairFileError as exc:
                raise CommandError(str(exc)) from exc
            outcomes = run_pairs(
                pairs,
                detect_lang=options["detect_lang"],
                thresholds=classifier_thresholds(),
                mentions=entity_mentions,
                encoder=encoder,
            )
            if len(options["paths"]) > 1:
                self.stdout.write(f"== {path} ==")
            self.stdout.write(format_report(evaluate(outcomes)))

    def _cv(self, paths: list[Path], name: str) -> None:
        if len(paths) < 2:
            raise CommandError("--cv needs two files or more (one is held out at a time)")
        encoders = {"none": None}
        if name in ENCODERS:
            encoder = cached_encoder(name)
            encoders = {encoder.signature: encoder}
        try:
            train(paths, encoders, out=None, log=self.stdout.write)
        except PairFileError as exc:
            raise CommandError(str(exc)) from exc
