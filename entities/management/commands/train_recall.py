"""``manage.py train_recall ../shared/eval/recall_dev.json ../shared/eval/recall_dev_b.json``:
learn the recall triggers' relevance scorers and write them to the repository."""

from __future__ import annotations

import pickle
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test.utils import override_settings

from entities.recall import scorer
from entities.recall.evaluation import (
    RecallFileError,
    recall_evaluate,
    recall_file_load,
    scratch_database,
)
from entities.recall.training import (
    model_fit,
    model_write,
    project_cv,
    rows_collect,
    simulated,
)


class Command(BaseCommand):
    help = (
        "Learn one relevance scorer per recall trigger (logistic regression over the hybrid "
        "candidates' general features, and the probability at which each shows a memory) "
        "from recall sets, write them with the embedder's signature, and print each file's "
        "eval_recall table in-sample beside leave-one-file-out cross-validation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", help="recall sets (JSON); two or more for CV")
        parser.add_argument(
            "--out", default=str(scorer.MODEL_PATH), help="where the model goes (JSON)"
        )
        parser.add_argument("--no-eval", action="store_true", help="skip the product runs")
        parser.add_argument(
            "--rows", help="keep the collected candidates in this file and reuse them (pickle)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            loaded = [(p, recall_file_load(p)) for p in options["paths"]]
        except RecallFileError as exc:
            raise CommandError(str(exc)) from exc
        out = Path(options["out"])
        if not out.parent.is_dir():  # said now, not after minutes of collecting
            raise CommandError(f"cannot write {out}: no folder {out.parent}")
        sets = {Path(p).stem: data for p, data in loaded}
        signature = scorer.model_signature()
        self.stdout.write(f"embedder: {signature}")
        rows = self._rows(sets, Path(options["rows"]) if options["rows"] else None)
        if not rows:
            raise CommandError("the queries gave no candidates to train on: no model written")
        model = model_fit(rows, signature)
        try:
            model_write(model, out)
        except OSError as exc:
            raise CommandError(f"cannot write {out}: {exc.strerror or exc}") from None
        scorer.model_clear()
        self.stdout.write(f"written: {options['out']}")
        folds = {}
        if len(sets) > 1:
            for name in sets:
                folds[name] = model_fit([r for r in rows if r.group != name], signature)
        self._simulated(sets, rows, model, folds)
        self.stdout.write("\nleave one project out (hit rate / precision, ranking only):")
        for trigger, (rate, precision) in sorted(project_cv(rows, signature).items()):
            self.stdout.write(f"  {trigger:<10} {rate:.2f} / {precision:.2f}")
        if options["no_eval"]:
            return
        self._evaluated(sets, model, folds)

    def _rows(self, sets: dict, cache: Path | None) -> list:
        if cache is not None and cache.exists():
            try:
                rows = pickle.loads(cache.read_bytes())  # noqa: S301 - our own file
            except (OSError, pickle.UnpicklingError, EOFError, ValueError, AttributeError) as exc:
                raise CommandError(
                    f"--rows {cache}: not a rows file this command wrote ({exc}); "
                    "delete it to collect again"
                ) from None
            if not isinstance(rows, list):
                raise CommandError(f"--rows {cache}: not a rows file this command wrote")
            return rows
        rows = []
        for name, data in sets.items():
            with scratch_database():
                rows += rows_collect(data, name)
        if cache is not None:
            cache.write_bytes(pickle.dumps(rows))
        return rows

    def _simulated(self, sets, rows, model, folds) -> None:
        self.stdout.write("\nranking only (hit rate / precision), in-sample | held-out file:")
        for name in sets:
            mine = [r for r in rows if r.group == name]
            ins = simulated(mine, model)
            cv = simulated(mine, folds[name]) if name in folds else {}
            for trigger, (rate, prec) in sorted(ins.items()):
                held = cv.get(trigger)
                held_text = f"{held[0]:.2f} / {held[1]:.2f}" if held else "-"
                self.stdout.write(
                    f"  {name:<16} {trigger:<10} {rate:.2f} / {prec:.2f} | {held_text}"
                )

    def _evaluated(self, sets, model, folds) -> None:
        for name, data in sets.items():
            tables = {"in-sample": self._run(data, model)}
            if name in folds:
                tables["held out"] = self._run(data, folds[name])
            self.stdout.write(f"\n== {name}: hit rate (recall, leaks) ==")
            self.stdout.write(f"{'endpoint':<14} " + " ".join(f"{t:>22}" for t in tables))
            by = {t: {row[0]: row for row in table} for t, table in tables.items()}
            for endpoint in by["in-sample"]:
                cells = []
                for t in tables:
                    _e, hits, n, rate, recall, leaks = by[t][endpoint]
                    cells.append(f"{rate:.2f} {hits:>3}/{n:<3} ({recall:.2f}, {leaks})")
                self.stdout.write(f"{endpoint:<14} " + " ".join(f"{c:>22}" for c in cells))

    def _run(self, data, model) -> list:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "model.json"
            model_write(model, path)
            scorer.model_clear()
            with override_settings(KGSITE_RECALL_MODEL=str(path)), scratch_database():
                report = recall_evaluate(data)
            scorer.model_clear()
        return report.table()
