"""``manage.py import_graph PATH``: read an ``export_graph`` file into an empty graph."""

from __future__ import annotations

import json
import sys

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from kgsite.errors import DomainError
from kgsite.graph_io import graph_import


class Command(BaseCommand):
    help = (
        "Import an export_graph file into an empty database, all or nothing (a database "
        "that already holds graph rows is refused), then rebuild the derived indexes."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="an export_graph file ('-' for standard input)")
        parser.add_argument(
            "--skip-derived",
            action="store_true",
            help="Do not rebuild the name index, the edges and the vector indexes afterwards.",
        )

    def handle(self, *args, path: str, skip_derived: bool, **options) -> None:
        try:
            if path == "-":  # export_graph - | ... | import_graph -
                handle = open(sys.stdin.fileno(), encoding="utf-8", closefd=False)  # noqa: SIM115
            else:
                handle = open(path, encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        with handle:
            lines = _Replayed(handle)
            total = _promised_rows(lines.first)
            with tqdm(
                total=total, unit="rows", file=sys.stderr, disable=options["verbosity"] < 1
            ) as bar:
                try:
                    result = graph_import(lines=lines, progress=bar.update)
                except DomainError as exc:
                    raise CommandError(exc.message) from None
        self.stdout.write(
            f"{sum(result.tables.values())} rows imported from {path}"
            + (f"; {result.users_created} users created inactive" if result.users_created else "")
        )
        if not skip_derived:
            call_command("rebuild_name_index", stdout=self.stdout)
            call_command("rebuild_edges", stdout=self.stdout)
            call_command("rebuild_vectors", stdout=self.stdout)


class _Replayed:
    """The file's lines, its first one read ahead (the bar's total is in the header) and
    handed out again: a pipe (``-``, ``/dev/stdin``) cannot seek back to it."""

    def __init__(self, handle) -> None:
        self.handle = handle
        try:
            self.first: str | None = handle.readline()
        except UnicodeDecodeError:
            raise CommandError("not UTF-8 text: save it as UTF-8") from None

    def readline(self) -> str:
        if self.first is None:
            return self.handle.readline()
        line, self.first = self.first, None
        return line

    def __iter__(self):
        if self.first is not None:
            yield self.readline()
        yield from self.handle


def _promised_rows(first: str | None) -> int | None:
    try:
        return sum(json.loads(first or "").get("tables", {}).values())
    except (ValueError, AttributeError, TypeError):  # graph_import says what is wrong
        return None
