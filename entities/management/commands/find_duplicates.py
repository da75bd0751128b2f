from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from entities.models import Entity
from entities.services import duplicate_scan_request, duplicate_scan_run
from entities.tasks import duplicate_scan_enqueue


class Command(BaseCommand):
    help = (
        "Look for likely duplicate entities and queue them as suggestions for curators "
        "(all entities, or the ones given); runs here unless --queue is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("entity_ids", nargs="*", help="Only pairs involving these ids.")
        parser.add_argument(
            "--queue", action="store_true", help="Hand the scan to the django-q2 worker."
        )

    def handle(self, *args, entity_ids: list[str], queue: bool, **options):
        ids = entity_ids or None
        if ids:
            asked = [pk for pk in ids if "\x00" not in pk]  # no id holds a NUL (PostgreSQL)
            known = set(Entity.objects.filter(pk__in=asked).values_list("pk", flat=True))
            unknown = [pk for pk in ids if pk not in known]
            if unknown:
                raise CommandError(f"no entity with id {unknown[0]!r}")
        if queue:
            scan = duplicate_scan_enqueue(entity_ids=ids)
            self.stdout.write(f"duplicate scan {scan.pk} queued")
            return
        scan, _new = duplicate_scan_request(entity_ids=ids)
        scan = duplicate_scan_run(scan_id=scan.pk)
        r = scan.result
        self.stdout.write(
            f"duplicate scan {scan.pk}: {r['found']} pairs found, {r['created']} new, "
            f"{r['updated']} updated, {r['kept_decided']} already decided, "
            f"{r['withdrawn']} withdrawn"
        )
