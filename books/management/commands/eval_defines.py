"""Score the ``defines`` marks of the mention index against a dev set."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from books.selectors import defines_evaluate

COLUMNS = ("entity_name", "entity_type", "defining_file", "defining_heading")


class Command(BaseCommand):
    help = (
        "Print recall and precision of 'defines' mentions for rows of entity_name, "
        "entity_type, defining_file, defining_heading (TSV), and the misses. "
        "Recall: the chunk of the book ingested from defining_file whose own heading is "
        "defining_heading (case and spacing aside) marks the entity (name or alias, of "
        "that type) 'defines'; when defining_heading is not the entity's own name it is "
        "a catalogue section (a table or entry list), and its sub-sections count too. "
        "Precision: of the rows whose name is marked 'defines' anywhere, those marked "
        "only in such chunks. Marks on a same-named entity of another type count "
        "against precision when they are in defining_file (one chapter defines a name "
        "once: a second type there is a mistyped duplicate), not in other files (a "
        "homonym: the Shield spell is not the Shield armour)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("tsv", help="a TSV file with a header row")

    def handle(self, *args, **options) -> None:
        path = Path(options["tsv"])
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        # utf-8-sig: a spreadsheet saves its TSV with a byte-order mark before the header.
        try:
            with path.open(encoding="utf-8-sig", newline="") as handle:
                reader = csv.DictReader(handle, delimiter="\t")
                missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
                if missing:
                    raise CommandError(f"{path}: missing column(s) {', '.join(missing)}")
                rows = [r for r in reader if (r.get("entity_name") or "").strip()]
        except UnicodeDecodeError:
            raise CommandError(f"{path}: not UTF-8 text: save it as UTF-8") from None
        if not rows:
            raise CommandError(f"{path}: no rows to evaluate")
        if sys.stderr.isatty():
            from tqdm import tqdm  # deferred: only a terminal gets a bar

            rows = tqdm(rows, desc="evaluating", unit="row", leave=False)
        result = defines_evaluate(rows=rows)
        out = self.stdout
        out.write(f"{'metric':<12}{'value':>10}")
        out.write(f"{'rows':<12}{result.rows:>10}")
        out.write(f"{'found':<12}{result.found:>10}")
        out.write(f"{'recall':<12}{result.recall:>10.3f}")
        out.write(f"{'precision':<12}{result.precision:>10.3f}")
        for line in result.misses + result.extras:
            out.write(line)
