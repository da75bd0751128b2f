"""``manage.py train_pair_model``: cross-validate the pair model by file and write it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from integrity.detection.evaluation import PairFileError, load_pairs
from integrity.detection.model import MODEL_PATH
from integrity.detection.train import train
from integrity.signals import ENCODERS, cached_encoder

MIN_FILES = 3
DEFAULT_FILES = (
    "contradictions_dev.jsonl",
    "contradictions_dev_more.jsonl",
    "contradictions_dev_large_a.jsonl",
    "contradictions_dev_large_b.jsonl",
)


class Command(BaseCommand):
    help = (
        "Train the contradiction/duplicate pair model on the development files: "
        "leave-one-file-out cross-validation (nested: the cut-offs are chosen inside the "
        "training files), the table of every held-out file beside the in-sample figures, "
        "then the model fitted on every file, written to integrity/detection/pair_model.json "
        "with one head per encoder (always one without: 'none'). Deterministic."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "files",
            nargs="*",
            help="JSONL pair files (default: the four contradictions_dev*.jsonl of ../shared/eval)",
        )
        parser.add_argument(
            "--encoders",
            default="use,none",
            help=f"comma-separated heads to train, among {', '.join(ENCODERS)} and none",
        )
        parser.add_argument("--no-synthetic", action="store_true", help="no synthetic pairs")
        parser.add_argument(
            "--rewrites",
            action="store_true",
            help="synthetic pairs from the structure reader's checked rewrites (a unit "
            "converted, a date reformatted, a number in words, a value changed, a negation "
            "taken out) instead of the plain variants",
        )
        parser.add_argument(
            "--both-orders",
            action="store_true",
            help="every training pair (human-written or synthetic) also the other way round, "
            "label kept; the scored file is always read as written",
        )
        parser.add_argument("--out", default=str(MODEL_PATH), help="model file to write")
        parser.add_argument("--dry-run", action="store_true", help="cross-validate only")
        parser.add_argument(
            "--keep",
            default="",
            help="comma-separated heads whose weights are copied from the existing model "
            "file instead of trained again, their cut-offs chosen again (e.g. none,use)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        shared = Path(settings.BASE_DIR).parent / "shared" / "eval"
        paths = [Path(p) for p in options["files"]] or [shared / f for f in DEFAULT_FILES]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"no such file: {', '.join(missing)}")
        keys = [k.strip() for k in options["encoders"].split(",") if k.strip()]
        unknown = [k for k in keys if k != "none" and k not in ENCODERS]
        if unknown:
            raise CommandError(f"unknown encoder {unknown[0]!r}; use {', '.join(ENCODERS)} or none")
        if "none" not in keys:
            keys.append("none")
        encoders, signatures = {}, {"none": "none"}
        for key in keys:
            encoder = None if key == "none" else cached_encoder(key)
            signatures[key] = "none" if encoder is None else encoder.signature
            encoders[signatures[key]] = encoder
        keep = [k.strip() for k in options["keep"].split(",") if k.strip()]
        try:  # a bad file says so first, whatever the count
            for path in paths:
                load_pairs(path)
        except PairFileError as exc:
            raise CommandError(str(exc)) from exc
        if any(k not in keep for k in keys) and len(paths) < MIN_FILES:
            # Nested leave-one-file-out: one held out, one of the rest for the cut-offs.
            raise CommandError(
                f"training needs at least {MIN_FILES} pair files (nested leave-one-file-out "
                f"cross-validation); got {len(paths)}"
            )
        for key in keep:
            if key in ENCODERS and key not in signatures:
                # Kept, not trained: the file names its head by the encoder's signature
                # (before, "--encoders none --keep use" wrote the file without it).
                signatures[key] = cached_encoder(key).signature
        out = None if options["dry_run"] else Path(options["out"])
        if out is not None and (out.is_dir() or not out.parent.is_dir()):
            # Checked now: the write comes after the whole training run.
            why = "is a directory" if out.is_dir() else "is in no existing folder"
            raise CommandError(f"--out: {out} {why}")
        try:
            train(
                paths,
                encoders,
                synthetic=not options["no_synthetic"],
                rewrites=options["rewrites"],
                both_orders=options["both_orders"],
                out=out,
                log=self.stdout.write,
                keep=[signatures.get(k, k) for k in keep],
            )
        except PairFileError as exc:
            raise CommandError(str(exc)) from exc
