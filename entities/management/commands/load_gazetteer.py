from __future__ import annotations

import csv
from collections import OrderedDict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from entities.services import gazetteer_load
from kgsite.errors import DomainError


class Command(BaseCommand):
    help = "Load surface_form<TAB>canonical_id<TAB>entity_type rows as entities and aliases."

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path: str, **options):
        file = Path(path)
        if not file.is_file():
            raise CommandError(f"no such file: {path}")
        groups: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
        with file.open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t")
            for lineno, row in enumerate(reader, start=1):
                if not row or row[0].startswith("#"):
                    continue
                if lineno == 1 and row[:2] == ["surface_form", "canonical_id"]:
                    continue
                if len(row) < 3:
                    raise CommandError(f"{path}:{lineno}: expected 3 tab-separated columns")
                surface, key, entity_type = (c.strip() for c in row[:3])
                groups.setdefault((key, entity_type), []).append(surface)
        try:
            stats = gazetteer_load(groups=list(groups.items()))
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"{stats['entities_created']} entities created, {stats['aliases_created']} aliases "
            f"created, {stats['unchanged']} rows already present"
        )
