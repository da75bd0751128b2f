from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from kgsite.vectors.index import KINDS
from kgsite.vectors.service import vector_index, vector_rebuild


class Command(BaseCommand):
    help = "Re-embed every row of a kind (default: all kinds) into a fresh vector index."

    def add_arguments(self, parser):
        parser.add_argument("--kind", action="append", help="facts, entities, ... (repeatable)")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args, kind: list[str] | None = None, no_progress: bool = False, **options):
        kinds = kind or sorted(KINDS)
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            raise CommandError(
                f"unknown kind '{unknown[0]}'; known kinds: {', '.join(sorted(KINDS))}"
            )
        # The command's own stderr (call_command may pass one); the bar only on a terminal.
        stream = getattr(self.stderr, "_out", self.stderr)
        show = not no_progress and self.stderr.isatty()
        for name in kinds:
            bar = None
            if show:
                from tqdm import tqdm  # deferred: only a terminal gets a bar

                bar = tqdm(desc=name, unit="item", file=stream)

            def progress(done: int, total: int, bar=bar) -> None:
                if bar is not None:
                    bar.total = total
                    bar.n = done
                    bar.refresh()

            try:
                count = vector_rebuild(name, progress=progress)
            except Exception as exc:  # one readable line, not a traceback
                raise CommandError(f"rebuilding {name} failed: {exc}") from exc
            finally:
                if bar is not None:
                    bar.close()
            self.stdout.write(f"{name}: {count} items indexed in {vector_index(name).location}")
