from __future__ import annotations

import contextlib
import csv
import logging
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from entities.models import Entity
from entities.services import fact_store
from kgsite.text import normalize
from kgsite.vectors.service import vector_batch

SAMPLE_DIR = Path(settings.BASE_DIR) / "data" / "sample"


class Command(BaseCommand):
    help = "Create a demo curator account and load the sample gazetteer and facts (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="curator")
        parser.add_argument("--password", default="curator-demo")
        parser.add_argument("--no-books", action="store_true", help="Skip the sample books.")

    def handle(self, *args, username: str, password: str, **options):
        # One vector-index job per kind for everything saved here, not one per row; the
        # other per-fact jobs (integrity checks) are queued without a log line each.
        with vector_batch(), _quiet_queue_log():
            self._seed(username=username, password=password, books=not options["no_books"])

    def _seed(self, *, username: str, password: str, books: bool) -> None:
        with transaction.atomic():
            user, created = User.objects.get_or_create(
                username=username, defaults={"is_staff": True, "email": "curator@example.com"}
            )
            if created:
                user.set_password(password)
                user.save()
            user.groups.add(Group.objects.get(name="curators"))
            # Staff curators use the admin too: give them the graph's model permissions.
            user.user_permissions.add(
                *Permission.objects.filter(
                    content_type__app_label__in=["entities", "books", "integrity", "notifications"]
                )
            )
        call_command("load_gazetteer", str(SAMPLE_DIR / "tech_entity_kb.tsv"), stdout=self.stdout)
        stored = 0
        with (SAMPLE_DIR / "facts.tsv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                subject = _entity(row["subject"])
                obj = _entity(row["object"]) if row["object"] else None
                result = fact_store(
                    text=row["text"],
                    subject=subject,
                    predicate=row["predicate"],
                    object_entity=obj,
                    source=row["source"],
                )
                stored += result.action == "created"
        self.stdout.write(f"{stored} sample facts stored")
        if books:
            # Two SRD excerpts (CC-BY-4.0, see data/sample/books/LICENSE-and-SOURCE.md):
            # spells that reference conditions defined in the other book.
            books = sorted((SAMPLE_DIR / "books").glob("*.md"))
            for book in (b for b in books if not b.name.startswith("LICENSE")):
                call_command("ingest_book", str(book), "--sync", stdout=self.stdout)
        if created:
            self.stdout.write(f"Demo curator: username '{username}', password '{password}'")
        else:
            self.stdout.write(f"Demo curator '{username}' already exists (password unchanged)")


@contextlib.contextmanager
def _quiet_queue_log() -> Iterator[None]:
    """django-q logs "Enqueued [kgsite] N" at INFO for every job."""
    queue_log = logging.getLogger("django-q")
    level = queue_log.level
    queue_log.setLevel(max(level, logging.WARNING))
    try:
        yield
    finally:
        queue_log.setLevel(level)


def _entity(name: str) -> Entity | None:
    return Entity.objects.filter(name_norm=normalize(name)).first()
