from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from entities.graph.edges import edges_rebuild
from entities.graph.models import KGEModel
from entities.graph.services import kge_train


class Command(BaseCommand):
    help = (
        "Train TransE on the current edges and store the model with its metrics and "
        "calibrated thresholds; the APIs then use it."
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

    def handle(self, *args, **options):
        if options["dim"] < 2 or options["epochs"] < 1:
            raise CommandError("--dim must be at least 2 and --epochs at least 1")
        if options["rebuild_edges"]:
            self.stdout.write(f"edges rebuilt from {edges_rebuild()} facts")
        bar = None if options["no_progress"] else tqdm(total=options["epochs"], unit="epoch")

        def progress(epoch: int, total: int, record: dict) -> None:
            if bar is not None:
                bar.total = total
                bar.update(epoch - bar.n)
                if "valid_mrr" in record:
                    bar.set_postfix(valid_mrr=f"{record['valid_mrr']:.3f}")

        config = {"dim": options["dim"], "epochs": options["epochs"], "seed": options["seed"]}
        try:
            row = kge_train(config=config, init_names=options["init_names"], progress=progress)
        except Exception as exc:  # noqa: BLE001 - one readable line, not a traceback
            raise CommandError(f"training failed: {type(exc).__name__}: {exc}") from None
        finally:
            if bar is not None:
                bar.close()
        if row.status != KGEModel.Status.READY:
            raise CommandError(row.error or "training failed")
        valid = row.metrics.get("valid", {})
        self.stdout.write(
            f"model {row.pk}: {row.entity_count} entities, {row.relation_count} relations, "
            f"{row.triple_count} triples, {row.metrics['epochs']} epochs in "
            f"{row.metrics['seconds']} s; held-out MRR {valid.get('mrr', 0):.3f}, "
            f"Hits@10 {valid.get('hits_at_10', 0):.3f}"
        )
