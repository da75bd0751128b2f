"""``manage.py eval_contradictions FILE.jsonl``: score the pair classifier."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from integrity.detection.evaluation import (
    PairFileError,
    evaluate,
    format_comparison,
    format_report,
    load_pairs,
    run_pairs,
)
from integrity.services import classifier_thresholds
from integrity.signals import entity_mentions, pair_similarity


class Command(BaseCommand):
    help = (
        "Classify every pair of a JSONL file ({id, lang, existing, new, label}) and print "
        "per-label precision/recall/F1, macro-F1, the confusion matrix and the misses. "
        "Offline by default; --similarity model also scores the check endpoint's path, "
        "which passes the embedding similarity of the two texts."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="JSONL file, one pair per line")
        parser.add_argument(
            "--detect-lang",
            action="store_true",
            help="ignore the file's lang field and detect each pair's language",
        )
        parser.add_argument(
            "--similarity",
            choices=["none", "model"],
            default="none",
            help="none: rules only (offline); model: also score every pair with the "
            "embedding similarity computed as POST /api/v1/integrity/check does "
            "(KGSITE_EMBEDDER), and print both figures",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            pairs = load_pairs(options["path"])
        except PairFileError as exc:
            raise CommandError(str(exc)) from exc
        thresholds = classifier_thresholds()
        detect_lang = options["detect_lang"]
        offline_outcomes = run_pairs(
            pairs, detect_lang=detect_lang, thresholds=thresholds, mentions=entity_mentions
        )
        offline = evaluate(offline_outcomes)
        if options["similarity"] == "none":
            self.stdout.write(format_report(offline))
            return

        missing: list[str] = []

        def similarity(existing: str, new: str) -> float | None:
            score = pair_similarity(existing, new)
            if score is None:
                missing.append(existing)
            return score

        model_outcomes = run_pairs(
            pairs,
            detect_lang=detect_lang,
            similarity=similarity,
            thresholds=thresholds,
            mentions=entity_mentions,
        )
        with_model = evaluate(model_outcomes)
        changed = [
            f"{x.id} ({x.got} -> {y.got})"
            for x, y in zip(offline_outcomes, model_outcomes, strict=True)
            if x.got != y.got
        ]
        self.stdout.write("== offline (rules only, no similarity) ==")
        self.stdout.write(format_report(offline))
        self.stdout.write("")
        self.stdout.write("== with embedding similarity (as the check endpoint) ==")
        self.stdout.write(format_report(with_model))
        self.stdout.write("")
        self.stdout.write(format_comparison(offline, with_model, changed))
        if missing:
            self.stderr.write(
                f"warning: no embedding similarity for {len(missing)} pairs "
                "(embedder unavailable); they were scored offline"
            )
