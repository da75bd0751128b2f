from __future__ import annotations

from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    name = "integrity"

    def ready(self) -> None:
        """Widen fact_store's duplicate check and check every new fact in the background."""
        from entities import services as entity_services

        from . import services

        if services.fact_find_near_duplicate not in entity_services.DUPLICATE_FINDERS:
            entity_services.DUPLICATE_FINDERS.append(services.fact_find_near_duplicate)
        if services.fact_check_enqueue not in entity_services.FACT_SAVED_HOOKS:
            entity_services.FACT_SAVED_HOOKS.append(services.fact_check_enqueue)
