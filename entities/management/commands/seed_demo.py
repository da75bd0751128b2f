"""``manage.py seed_demo``: the demo curator and the sample data, loaded once.

``make run`` calls it on every start, so a second run must add nothing: no entity, no
fact (nor a confirmation of one: that would raise its confidence on each start), no
book and no ingest job. Each sample item is looked up first and skipped when present, so
an interrupted first run is completed by the next one. It prints one summary line and
the login; ``-v 2`` adds what each step said.
"""

from __future__ import annotations

import contextlib
import csv
import logging
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from entities.management.commands.load_gazetteer import read_gazetteer
from entities.models import Entity, Fact
from entities.services import fact_store, gazetteer_load
from kgsite.text import normalize
from kgsite.vectors.service import vector_batch

SAMPLE_DIR = Path(settings.BASE_DIR) / "data" / "sample"


class Command(BaseCommand):
    help = (
        "Create a demo curator account and load the sample gazetteer, facts and books "
        "(once: a second run adds nothing)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="curator")
        parser.add_argument("--password", default="curator-demo")
        parser.add_argument("--no-books", action="store_true", help="Skip the sample books.")

    def handle(self, *args, username: str, password: str, **options):
        try:
            User.username_validator(username)
        except ValidationError as exc:
            raise CommandError(f"--username {username!r}: {' '.join(exc.messages)}") from None
        if not password.strip():
            raise CommandError("--password must not be empty")
        self.detail = StringIO()
        # One vector-index job per kind for everything saved here, not one per row; the
        # other per-fact jobs (integrity checks) and those of the batch's end are queued
        # without a log line each.
        with _quiet_queue_log(), vector_batch():
            created = _curator(username=username, password=password)
            added = self._sample_data(books=not options["no_books"])
        if options["verbosity"] >= 2:
            self.stdout.write(self.detail.getvalue().rstrip())
        if any(added.values()):
            what = ", ".join(f"{count} {name}" for name, count in added.items())
            self.stdout.write(f"Sample data loaded: {what}.")
        else:
            self.stdout.write("Sample data already loaded: nothing added.")
        if created:
            self.stdout.write(f"Demo curator: username '{username}', password '{password}'")
        else:
            self.stdout.write(f"Demo curator '{username}' already exists (password unchanged)")

    def _sample_data(self, *, books: bool) -> dict[str, int]:
        before = Entity.objects.count()
        stats = gazetteer_load(
            groups=list(read_gazetteer(SAMPLE_DIR / "tech_entity_kb.tsv").items())
        )
        added = {
            "entities": stats["entities_created"],
            "aliases": stats["aliases_created"],
            "facts": _sample_facts(),
            "books": 0,
        }
        if books and apps.is_installed("books"):
            added["books"] = self._sample_books()
        # The books' structure makes entities of its own (the conditions, the spells).
        added["entities"] = Entity.objects.count() - before
        return added

    def _sample_books(self) -> int:
        """Two SRD excerpts (CC-BY-4.0, see data/sample/books/LICENSE-and-SOURCE.md):
        spells that reference conditions defined in the other book. A book is looked up
        by its title (the file's name) before ``ingest_book``, which would record an
        "unchanged" job on every run."""
        book_model = apps.get_model("books", "Book")
        added = 0
        for path in sorted((SAMPLE_DIR / "books").glob("*.md")):
            if path.name.startswith("LICENSE"):
                continue
            if book_model.objects.filter(title_norm=normalize(path.stem)).exists():
                continue
            call_command("ingest_book", str(path), "--sync", stdout=self.detail)
            added += 1
        return added


def _curator(*, username: str, password: str) -> bool:
    """The demo curator, in the curators group with the graph's model permissions (staff
    curators use the admin too); True when it was created here."""
    with transaction.atomic():
        user, created = User.objects.get_or_create(
            username=username, defaults={"is_staff": True, "email": "curator@example.com"}
        )
        if created:
            user.set_password(password)
            user.save()
        user.groups.add(Group.objects.get(name="curators"))
        user.user_permissions.add(
            *Permission.objects.filter(
                content_type__app_label__in=["entities", "books", "integrity", "notifications"]
            )
        )
    return created


def _sample_facts() -> int:
    """Store the sample facts not stored yet (whatever their status since: a retracted
    sample fact stays retracted); the number stored."""
    stored = 0
    with (SAMPLE_DIR / "facts.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            subject = _entity(row["subject"])
            present = Fact.objects.filter(source=row["source"], text_norm=normalize(row["text"]))
            if subject is not None:
                present = present.filter(subject=subject)
            if present.exists():
                continue
            fact_store(
                text=row["text"],
                subject=subject,
                predicate=row["predicate"],
                object_entity=_entity(row["object"]) if row["object"] else None,
                source=row["source"],
            )
            stored += 1
    return stored


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
