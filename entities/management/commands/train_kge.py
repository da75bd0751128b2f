from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from entities.graph.edges import edges_rebuild
from entities.graph.models import KGEModel
from entities.graph.services import DIM_MAX, DIM_MIN, EPOCHS_MAX, SEED_MAX, kge_train
from entities.models import Fact
from entities.scopes import ScopeFilter
from kgsite.errors import InvalidInput


def _progress(bar):
    def progress(epoch: int, total: int, record: dict) -> None:
        if bar is not None:
            bar.total = total
            bar.update(epoch - bar.n)
            if "valid_mrr" in record:
                bar.set_postfix(valid_mrr=f"{record['valid_mrr']:.3f}")

    return progress


class Command(BaseCommand):
    help = (
        "Train TransE on the current edges of one view of the memory (default: global "
        "memory only) and store the model with its metrics and calibrated thresholds; "
        "readers of that view are then answered by it."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dim", type=int, default=64)
        parser.add_argument("--epochs", type=int, default=200)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--init-names", action="store_true", help="start entity vectors from name embeddings"
        )
        parser.add_argument(
            "--rebuild-edges",
            action="store_true",
            help="first rebuild every edge from the facts (after a load that bypassed hooks)",
        )
        parser.add_argument("--no-progress", action="store_true")
        view = parser.add_mutually_exclusive_group()
        view.add_argument("--scope", default="", help="a project: its facts plus global ones")
        view.add_argument(
            "--all-scopes", action="store_true", help="every project (for all_scopes readers)"
        )
        view.add_argument(
            "--every-scope",
            action="store_true",
            help="one model for global memory and one per project that has facts",
        )

    def handle(self, *args, **options):
        # The API's bounds: a model the API refuses is not trained here either.
        if not DIM_MIN <= options["dim"] <= DIM_MAX:
            raise CommandError(
                f"--dim must be between {DIM_MIN} and {DIM_MAX}, not {options['dim']}"
            )
        if not 1 <= options["epochs"] <= EPOCHS_MAX:
            raise CommandError(
                f"--epochs must be between 1 and {EPOCHS_MAX}, not {options['epochs']}"
            )
        if not 0 <= options["seed"] <= SEED_MAX:  # as the API's: refused mid-run otherwise
            raise CommandError(f"--seed must be between 0 and {SEED_MAX}, not {options['seed']}")
        if options["rebuild_edges"]:
            self.stdout.write(f"edges rebuilt from {edges_rebuild()} facts")
        bar = None if options["no_progress"] else tqdm(total=options["epochs"], unit="epoch")
        progress = _progress(bar)
        try:
            views = self._views(options)
        except InvalidInput as exc:
            raise CommandError(f"--scope: {exc.message}") from None
        config = {"dim": options["dim"], "epochs": options["epochs"], "seed": options["seed"]}
        failed = []
        for scopes in views:
            try:
                row = kge_train(
                    config=config,
                    init_names=options["init_names"],
                    progress=progress,
                    scopes=scopes,
                )
            except Exception as exc:  # noqa: BLE001 - one readable line, not a traceback
                raise CommandError(f"training failed: {type(exc).__name__}: {exc}") from None
            finally:
                if bar is not None:
                    bar.reset()
            if row.status != KGEModel.Status.READY:
                failed.append(f"{scopes.describe()}: {row.error or 'training failed'}")
                continue
            self._report(row, scopes)
        if bar is not None:
            bar.close()
        if failed:
            raise CommandError("; ".join(failed))

    def _views(self, options) -> list[ScopeFilter]:
        if options["all_scopes"]:
            return [ScopeFilter(all_scopes=True)]
        if options["every_scope"]:
            projects = Fact.objects.exclude(scope="").values_list("scope", flat=True).distinct()
            return [ScopeFilter(), *(ScopeFilter(scope=p) for p in sorted(projects))]
        return [ScopeFilter.of(options["scope"])]

    def _report(self, row: KGEModel, scopes: ScopeFilter) -> None:
        valid = row.metrics.get("valid", {})
        self.stdout.write(
            f"model {row.pk} ({scopes.describe()}): {row.entity_count} entities, "
            f"{row.relation_count} relations, "
            f"{row.triple_count} triples, {row.metrics['epochs']} epochs in "
            f"{row.metrics['seconds']} s; held-out MRR {valid.get('mrr', 0):.3f}, "
            f"Hits@10 {valid.get('hits_at_10', 0):.3f}"
        )
