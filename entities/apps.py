from __future__ import annotations

from django.apps import AppConfig


class EntitiesConfig(AppConfig):
    name = "entities"

    def ready(self) -> None:
        """Keep the vector indexes in step with saved facts and entities."""
        from . import services, tasks

        if tasks.fact_saved_enqueue not in services.FACT_SAVED_HOOKS:
            services.FACT_SAVED_HOOKS.append(tasks.fact_saved_enqueue)
        if tasks.entity_saved_enqueue not in services.ENTITY_SAVED_HOOKS:
            services.ENTITY_SAVED_HOOKS.append(tasks.entity_saved_enqueue)
