"""Ingest a book file: queue a job, or run it here with ``--sync``."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from books.extraction.registry import EXTRACTORS
from books.services import book_ingest_now, ingest_job_create
from kgsite.errors import DomainError


class _Bar:
    """One tqdm bar per phase, shown only on a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar = None
        self.phase = ""

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm  # deferred: only a terminal gets a bar

        if phase != self.phase:
            self.close()
            self.phase = phase
            self.bar = tqdm(total=total, desc=phase, unit="chunk", leave=False)
        self.bar.total = total
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Command(BaseCommand):
    help = "Ingest a Markdown, text or PDF book: chunks, mentions and embeddings."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")
        parser.add_argument("--title", default="", help="default: the file name")
        parser.add_argument("--author", default="")
        # Checked by the service, not argparse: a bad value gets our one-line error
        # rather than the usage text.
        parser.add_argument(
            "--extractor", default=None, help=f"one of {', '.join(EXTRACTORS)} (default: settings)"
        )
        parser.add_argument("--sync", action="store_true", help="run here, not in a worker")

    def handle(self, *args, **options) -> None:
        try:
            if options["sync"]:
                bar = _Bar(sys.stderr.isatty())
                try:
                    job, result = book_ingest_now(
                        path=options["path"],
                        title=options["title"] or None,
                        author=options["author"],
                        extractor=options["extractor"],
                        progress=bar,
                    )
                finally:
                    bar.close()
                self.stdout.write(
                    f"{result.action}: book {result.book.pk} {result.book.title!r} — "
                    f"{result.chunks} chunks, {result.mentions} mentions "
                    f"({result.defines} defines), {result.entities_created} new entities"
                    + (f", {len(result.warnings)} warnings" if result.warnings else "")
                )
                return
            job = ingest_job_create(
                path=options["path"],
                filename="",
                title=options["title"],
                author=options["author"],
                extractor=options["extractor"],
            )
        except DomainError as exc:
            raise CommandError(exc.message) from None
        job.refresh_from_db()
        self.stdout.write(f"job {job.pk} {job.status}: {job.title!r}")
