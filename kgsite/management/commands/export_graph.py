"""``manage.py export_graph PATH``: the whole graph as JSON Lines (``kgsite.graph_io``)."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from kgsite.graph_io import graph_counts, graph_export


class Command(BaseCommand):
    help = "Write every table of the graph to PATH as JSON Lines ('-' for standard output)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")

    def handle(self, *args, path: str, **options) -> None:
        total = sum(graph_counts().values())
        bar = tqdm(total=total, unit="rows", file=sys.stderr, disable=options["verbosity"] < 1)
        with bar:
            if path == "-":
                graph_export(out=sys.stdout, progress=bar.update)
                sys.stdout.flush()
                return
            counts = _export_to(Path(path), bar.update)
        self.stdout.write(f"{sum(counts.values())} rows written to {path}")


def _export_to(path: Path, progress) -> dict[str, int]:
    """Written beside ``path`` and moved over it once whole: a failed export (a full disk,
    an interrupt) leaves the previous backup there as it was, not a truncated file."""
    if path.is_dir():
        raise CommandError(f"cannot write {path}: Is a directory")
    # A symbolic link (to a backup disk) is followed: replacing the link itself left the
    # file it points to at the last export before the link was made.
    target = Path(os.path.realpath(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            counts = graph_export(out=out, progress=progress)
        os.chmod(temporary, _mode_for(target))
        os.replace(temporary, target)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return counts


def _mode_for(path: Path) -> int:
    """The previous backup's permissions (an operator's chmod 600 on a file holding the
    audit log and usernames outlives the nightly export), else what open() would give."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
