"""``manage.py check_pending_facts``: run the contradiction checks that could not be queued."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from integrity.models import PendingFactCheck
from integrity.services import fact_checks_pending_run


class Command(BaseCommand):
    help = (
        "Check every fact whose background contradiction check could not be queued "
        "(the job broker was down when it was saved)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        waiting = PendingFactCheck.objects.count()
        failures: list[tuple[int, str]] = []
        done = fact_checks_pending_run(failures=failures)
        left = PendingFactCheck.objects.count()
        summary = f"checked {done} of {waiting} pending facts; {left} left"
        if failures:  # kept for the next run; the operator hears why, in one line
            fact_id, error = failures[0]
            raise CommandError(
                f"{summary}: {len(failures)} could not be checked (fact {fact_id}: {error})"
            )
        self.stdout.write(summary)
