from __future__ import annotations

from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    name = "integrity"

    def ready(self) -> None:
        """Widen fact_store's duplicate check and check every new fact in the background."""
        from entities import hooks

        from . import services, tasks

        hooks.duplicate_finder(services.fact_find_near_duplicate)
        hooks.on_fact_saved(tasks.fact_check_enqueue)
