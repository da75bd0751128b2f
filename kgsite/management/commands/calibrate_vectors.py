from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from kgsite.vectors.calibrate import calibrate, calibration_save
from kgsite.vectors.index import KINDS
from kgsite.vectors.service import vector_index


class Command(BaseCommand):
    help = (
        "Measure recall@k of a vector index at growing ef_search and keep the smallest value "
        "that reaches the target (read by every process that opens the index afterwards)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--kind", action="append", help="facts, entities, ... (default: facts)")
        parser.add_argument("--target", type=float, default=0.95, help="recall@k to reach")
        parser.add_argument("--k", type=int, default=10, help="neighbours per query")
        parser.add_argument("--queries", type=int, default=200, help="probe queries")
        parser.add_argument("--dry-run", action="store_true", help="measure, keep nothing")

    def handle(self, *args, kind=None, target=0.95, k=10, queries=200, dry_run=False, **opts):
        kinds = kind or ["facts"]
        unknown = [name for name in kinds if name not in KINDS]
        if unknown:
            raise CommandError(
                f"unknown kind '{unknown[0]}'; known kinds: {', '.join(sorted(KINDS))}"
            )
        if not 0 < target <= 1:
            raise CommandError(f"--target must be above 0 and at most 1, not {target}")
        if k < 1 or queries < 1:
            raise CommandError("--k and --queries must be at least 1")
        for name in kinds:
            index = vector_index(name)
            try:
                result = calibrate(index, target=target, k=k, queries=queries)
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
            self.stdout.write(
                f"{name}: {result.live:,} vectors, {result.backend}, recall@{result.k}"
            )
            self.stdout.write(f"  {'ef_search':>9}  {'recall':>6}  {'p50 ms':>7}")
            for ef, (recall, ms) in result.steps.items():
                self.stdout.write(f"  {ef:>9}  {recall:>6.3f}  {ms:>7.3f}")
            verdict = "reaches" if result.reached else "does NOT reach (largest tried kept)"
            self.stdout.write(
                f"  ef_search {result.ef_search} {verdict} recall {target:g} "
                f"({result.seconds:.1f} s)"
            )
            if not dry_run:
                path = calibration_save(result)
                index.ef_search = result.ef_search
                self.stdout.write(f"  kept in {path}")
