"""Ingest the documents of a gold file into a scratch database and score extraction."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from books.extraction.evaluate import DocScore, gold_read, gold_score
from books.services import book_ingest
from entities.models import Entity
from kgsite.errors import DomainError


class Command(BaseCommand):
    help = (
        "Ingest the documents a gold TSV (doc, kind, names, type, defining_heading) "
        "names, in the file's order, into a scratch database (the configured one is "
        "never touched), then print per document and overall: key recall (a key row is "
        "found when an entity or alias carries one of its names), type accuracy (of the "
        "found keys, those with an entity of the gold type), defines recall (of the rows "
        "with a defining heading, those whose entity is marked 'defines' in the chunk "
        "under that heading, numbering aside), junk created (junk strings that became an "
        "entity or alias), entities created, and the misses."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("gold", help="the gold TSV file")
        parser.add_argument(
            "--docs", default=None, help="folder holding the documents (default: the gold's)"
        )
        parser.add_argument("--extractor", default="offline")
        parser.add_argument("--quiet", action="store_true", help="figures only, no misses")
        parser.add_argument(
            "--no-scratch",
            action="store_true",
            help="ingest into the configured database (a throwaway one) instead of a scratch copy",
        )

    def handle(self, *args, **options) -> None:
        gold = Path(options["gold"])
        try:
            rows = gold_read(gold)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        folder = Path(options["docs"]) if options["docs"] else gold.parent
        if not folder.is_dir():
            raise CommandError(f"No such folder: {folder}")
        docs = list(dict.fromkeys(row.doc for row in rows))
        absent = [d for d in docs if not (folder / d).is_file()]
        if absent:
            raise CommandError(f"Not found in {folder}: {', '.join(absent)}")
        if options["no_scratch"]:
            scores, timings = self._run(rows, docs, folder, options["extractor"])
        else:
            old_name = connection.creation.create_test_db(
                verbosity=0, autoclobber=True, serialize=False
            )
            try:
                scores, timings = self._run(rows, docs, folder, options["extractor"])
            finally:
                connection.creation.destroy_test_db(old_name, verbosity=0)
        self._print(scores, timings, quiet=options["quiet"])

    def _run(self, rows, docs, folder, extractor):

        books: dict[str, int] = {}
        created: dict[str, int] = {}
        timings: dict[str, float] = {}
        for doc in docs:
            before = Entity.objects.count()
            started = time.perf_counter()
            try:
                result = book_ingest(path=folder / doc, extractor=extractor, embed=False)
            except DomainError as exc:
                raise CommandError(f"{doc}: {exc.message}") from None
            timings[doc] = time.perf_counter() - started
            books[doc] = result.book.pk
            created[doc] = Entity.objects.count() - before
            if sys.stderr.isatty():
                sys.stderr.write(f"ingested {doc} in {timings[doc]:.1f} s\n")
        return gold_score(rows, books, created), timings

    def _print(self, scores: list[DocScore], timings: dict[str, float], *, quiet: bool) -> None:
        out = self.stdout
        r = DocScore.ratio
        out.write(
            f"{'document':<28}{'keys':>6}{'recall':>8}{'types':>8}{'defines':>9}"
            f"{'junk':>6}{'created':>9}{'seconds':>9}"
        )
        for s in scores:
            seconds = timings.get(s.doc, sum(timings.values()))
            out.write(
                f"{s.doc[:27]:<28}{s.keys:>6}{r(s.found, s.keys):>8.2f}{r(s.typed, s.found):>8.2f}"
                f"{r(s.defined, s.define_rows):>9.2f}{s.junk:>6}{s.created:>9}{seconds:>9.1f}"
            )
        if quiet:
            return
        for s in scores[:-1]:
            for line in s.misses:
                out.write(f"{s.doc}: {line}")
