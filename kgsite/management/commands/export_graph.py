"""``manage.py export_graph PATH``: the whole graph as JSON Lines (``kgsite.graph_io``)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from kgsite.graph_io import graph_counts, graph_export


class Command(BaseCommand):
    help = "Write every table of the graph to PATH as JSON Lines ('-' for standard output)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")

    def handle(self, *args, path: str, **options) -> None:
        total = sum(graph_counts().values())
        try:
            out = sys.stdout if path == "-" else open(path, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror}") from None
        with (
            out if out is not sys.stdout else _NoClose(out),
            tqdm(
                total=total, unit="rows", file=sys.stderr, disable=options["verbosity"] < 1
            ) as bar,
        ):
            counts = graph_export(out=out, progress=bar.update)
        if path != "-":
            self.stdout.write(f"{sum(counts.values())} rows written to {path}")


class _NoClose:
    def __init__(self, stream) -> None:
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc) -> None:
        self.stream.flush()
