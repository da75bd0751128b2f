"""``manage.py check_pending_facts``: run the contradiction checks that could not be queued."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from integrity.models import PendingFactCheck
from integrity.services import fact_checks_pending_run


class Command(BaseCommand):
    help = (
        "Check every fact whose background contradiction check could not be queued "
        "(the job broker was down when it was saved)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        waiting = PendingFactCheck.objects.count()
        done = fact_checks_pending_run()
        left = PendingFactCheck.objects.count()
        self.stdout.write(f"checked {done} of {waiting} pending facts; {left} left")
