"""Ingest book files: queue a job each, or run them here with ``--sync``.

Several paths, directories (searched recursively for supported formats) and glob
patterns are accepted; with ``--sync`` they are ingested in this one process, so the
models load once, with a progress bar over the files.
"""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from books.extraction.registry import EXTRACTORS
from books.parsing import SUPPORTED_EXTENSIONS
from books.services import book_ingest_now, ingest_job_create, title_from_filename
from kgsite.errors import DomainError
from kgsite.text import normalize

_GLOB_CHARS = frozenset("*?[")


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
        self.phase = ""


def expand_paths(arguments: list[str]) -> tuple[list[Path], list[str]]:
    """The files to ingest, in order and without repeats, and notes on what was skipped.

    A directory contributes its supported files (recursively, sorted); a glob pattern
    its matches; a named file itself, whatever its extension (the ingest then says
    why it refuses it). ``CommandError`` for a path that does not exist.
    """
    files: dict[Path, None] = {}
    notes: list[str] = []
    for argument in arguments:
        if _GLOB_CHARS & set(argument) and not Path(argument).exists():
            matches = sorted(Path(p) for p in glob.glob(argument, recursive=True))
            if not matches:
                raise CommandError(f"No file matches {argument}")
            candidates = [p for p in matches if p.is_file()]
            directories = [p for p in matches if p.is_dir()]
        else:
            path = Path(argument)
            if path.is_dir():
                candidates, directories = [], [path]
            elif path.is_file():
                files.setdefault(path, None)
                continue
            else:
                raise CommandError(f"No such file or directory: {argument}")
        for directory in directories:
            found = sorted(p for p in directory.rglob("*") if p.is_file())
            candidates += found
        for path in candidates:
            if path.suffix.lower() in SUPPORTED_EXTENSIONS:
                files.setdefault(path, None)
            elif not path.name.startswith("."):
                notes.append(f"skipped {path}: not a supported format")
    return list(files), notes


def default_titles(files: list[Path]) -> dict[Path, str]:
    """Each file's book title: its name's stem, or, where several files share a stem
    (``a/notes.md``, ``b/notes.md``), its path below their common folder without the
    extension ("a/notes"), with it when that is not enough (``notes.md`` and
    ``notes.txt`` side by side): a book is known by its title, so the second file would
    otherwise replace the first."""
    groups: dict[str, list[Path]] = {}
    for path in files:
        groups.setdefault(normalize(title_from_filename(path.name)), []).append(path)
    titles = {path: title_from_filename(path.name) for path in files}
    for same in groups.values():
        if len(same) < 2:
            continue
        root = os.path.commonpath([str(p.resolve().parent) for p in same])
        below = {path: path.resolve().relative_to(root) for path in same}
        # A file in the common folder itself keeps its plain title ("notes", not "./notes").
        named = {path: (rel.parent / titles[path]).as_posix() for path, rel in below.items()}
        unique = len({normalize(title) for title in named.values()}) == len(same)
        for path, rel in below.items():
            titles[path] = named[path] if unique else rel.as_posix()
    return titles


class Command(BaseCommand):
    help = (
        "Ingest Markdown, text, PDF, HTML or EPUB books: chunks, mentions and embeddings. "
        "PATH may be files, directories (searched recursively; unsupported files are "
        "skipped with a note) or glob patterns."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH")
        parser.add_argument("--title", default="", help="default: the file name (one file only)")
        parser.add_argument("--author", default="", help="one file only")
        # Checked by the service, not argparse: a bad value gets our one-line error
        # rather than the usage text.
        parser.add_argument(
            "--extractor", default=None, help=f"one of {', '.join(EXTRACTORS)} (default: settings)"
        )
        parser.add_argument("--sync", action="store_true", help="run here, not in a worker")

    def handle(self, *args, **options) -> None:
        files, notes = expand_paths(options["paths"])
        for note in notes:
            self.stderr.write(note)
        if not files:
            raise CommandError(
                "No supported file to ingest (.md, .txt, .rst, .pdf, .html, .epub, .man, .1-.8)."
            )
        if len(files) > 1 and (options["title"] or options["author"]):
            raise CommandError("--title and --author name one book: give a single file.")
        titles = default_titles(files)
        failures = 0
        show = sys.stderr.isatty() and len(files) > 1
        bar = None
        if show:
            from tqdm import tqdm  # deferred: only a terminal gets a bar

            bar = tqdm(total=len(files), desc="files", unit="file")
        try:
            for path in files:
                try:
                    self._one(path, {**options, "title": options["title"] or titles[path]})
                except DomainError as exc:
                    if len(files) == 1:
                        raise CommandError(exc.message) from None
                    failures += 1
                    self.stderr.write(f"{path}: {exc.message}")
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        if failures:
            raise CommandError(f"{failures} of {len(files)} files could not be ingested")

    def _one(self, path: Path, options: dict) -> None:
        if options["sync"]:
            bar = _Bar(sys.stderr.isatty())
            try:
                job, result = book_ingest_now(
                    path=path,
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
            path=path,
            filename="",
            title=options["title"],
            author=options["author"],
            extractor=options["extractor"],
        )
        job.refresh_from_db()
        if job.status == job.Status.FAILED:  # the queue refused it (its broker is down)
            raise DomainError(f"job {job.pk} failed: {job.error}")
        self.stdout.write(f"job {job.pk} {job.status}: {job.title!r}")
