"""Train the extraction scorer on the annotated documents; with ``--cv``, prove it by
leave-one-document-out next to the in-sample figures."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from books.extraction.evaluate import DocScore, GoldRow, gold_score
from books.extraction.scoring import WEIGHTS, Scorer, scorer_override, scorer_save
from books.extraction.trace import types_traced
from books.extraction.training import doc_load, fit, gold_documents
from books.services import book_ingest
from kgsite.errors import DomainError

# The development sets, relative to the folder beside the checkout.
DEFAULT_GOLD = ("corpus/foreign/gold.tsv", "corpus/foreign_more/gold.tsv")


def _shared() -> Path:
    return Path(settings.BASE_DIR).parent / "shared"


class Command(BaseCommand):
    help = (
        "Train the three extraction models (is-entity, type, defining chunk) on the "
        "documents of gold TSV files (default: the two development sets in ../shared) and "
        "store their weights in books/extraction/extraction_weights.json. With --cv, also "
        "ingest every document into a scratch database twice, once scored by the model "
        "trained on all documents (in-sample) and once by a model trained without it "
        "(leave-one-document-out), and print key recall, type accuracy, defines recall "
        "and junk side by side."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("gold", nargs="*", help="gold TSV files (default: the dev sets)")
        parser.add_argument("--cv", action="store_true", help="leave-one-document-out figures")
        parser.add_argument("--no-save", action="store_true", help="do not write the weights")
        parser.add_argument(
            "--misses", action="store_true", help="with --cv, list each held-out document's misses"
        )

    def handle(self, *args, **options) -> None:
        files = [Path(g) for g in options["gold"]] or [_shared() / g for g in DEFAULT_GOLD]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise CommandError(f"No such gold file: {', '.join(missing)}")
        try:
            documents = gold_documents(files)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        absent = [str(p) for p, _rows in documents if not p.is_file()]
        if absent:
            raise CommandError(f"Not found: {', '.join(absent)}")
        started = time.perf_counter()
        labelled = [doc_load(path, rows) for path, rows in documents]
        self._say(f"measured {len(labelled)} documents in {time.perf_counter() - started:.1f} s")
        scorer = fit(labelled)
        if not options["no_save"]:
            scorer_save(scorer)
            self.stdout.write(f"weights written to {WEIGHTS.name}: {scorer.info}")
        if not options["cv"]:
            return
        folds = {d.name: fit([o for o in labelled if o.name != d.name]) for d in labelled}
        by_file: dict[Path, list[tuple[Path, list[GoldRow]]]] = {}
        for path, rows in documents:
            by_file.setdefault(path.parent, []).append((path, rows))
        table: list[tuple[DocScore, DocScore]] = []
        for group in by_file.values():
            inside = self._scratch_run(group, {p.name: scorer for p, _r in group})
            held_out = self._scratch_run(group, {p.name: folds[p.name] for p, _r in group})
            table += list(zip(inside[:-1], held_out[:-1], strict=True))
        self._print(table)
        self._confusion([held for _inside, held in table])
        if options["misses"]:
            for _inside, held in table:
                self.stdout.write(f"\n{held.doc} (held out)")
                for miss in held.misses:
                    self.stdout.write(f"  {miss}")

    def _say(self, line: str) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(line + "\n")

    def _scratch_run(self, group, scorers: dict[str, Scorer]) -> list[DocScore]:
        """Ingest ``group``'s documents in order into a scratch database, each with its
        scorer, and score them all at the end (so one book's entities count for the next,
        as in ``eval_extraction``)."""
        old_name = connection.creation.create_test_db(
            verbosity=0, autoclobber=True, serialize=False
        )
        # An in-memory SQLite test database outlives destroy_test_db in this process:
        # start from an empty one, or the second run would find every book unchanged.
        call_command("flush", interactive=False, verbosity=0)
        try:
            books: dict[str, int] = {}
            traces: dict[str, dict] = {}
            for path, _rows in group:
                with scorer_override(scorers[path.name]), types_traced() as trace:
                    result = book_ingest(path=path, extractor="offline", embed=False)
                books[path.name] = result.book.pk
                traces[path.name] = trace
                self._say(f"ingested {path.name}")
            rows = [r for _p, rs in group for r in rs]
            return gold_score(rows, books, {}, traces)
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)

    def _confusion(self, scores: list[DocScore]) -> None:
        """Gold type (rows) against the type given (columns) of the keys found held out."""
        total = DocScore("overall")
        for score in scores:
            total.add(score)
        types = sorted({t for pair in total.confusion for t in pair})
        if not types:
            return
        self.stdout.write("\nheld out, gold type (rows) x type given (columns):")
        self.stdout.write(" " * 13 + "".join(f"{t[:6]:>7}" for t in types))
        for gold in types:
            cells = "".join(f"{total.confusion[(gold, t)] or '.':>7}" for t in types)
            self.stdout.write(f"{gold[:12]:<13}{cells}")

    def _print(self, table: list[tuple[DocScore, DocScore]]) -> None:
        r = DocScore.ratio
        out = self.stdout
        out.write(
            f"{'document':<28}{'keys':>5}  {'in-sample: recall types defines junk':<38}"
            f"{'held out: recall types defines junk':<38}"
        )
        totals = (DocScore("overall"), DocScore("overall"))
        for inside, held in table:
            totals[0].add(inside)
            totals[1].add(held)
        for inside, held in [*table, totals]:
            cells = []
            for s in (inside, held):
                cells.append(
                    f"{r(s.found, s.keys):>17.2f}{r(s.typed, s.found):>6.2f}"
                    f"{r(s.defined, s.define_rows):>8.2f}{s.junk:>5}  "
                )
            out.write(f"{inside.doc[:27]:<28}{inside.keys:>5}  {cells[0]}{cells[1]}")
        means = []
        for column in (0, 1):
            scores = [pair[column] for pair in table]
            means.append(
                [
                    sum(r(s.found, s.keys) for s in scores) / len(scores),
                    sum(r(s.typed, s.found) for s in scores) / len(scores),
                    sum(r(s.defined, s.define_rows) for s in scores if s.define_rows)
                    / max(sum(1 for s in scores if s.define_rows), 1),
                    sum(s.junk for s in scores) / len(scores),
                ]
            )
        out.write(
            f"{'mean per document':<33}"
            + "".join(f"{m[0]:>17.2f}{m[1]:>6.2f}{m[2]:>8.2f}{m[3]:>5.1f}  " for m in means)
        )
