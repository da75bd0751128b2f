from __future__ import annotations

from django.apps import AppConfig


class EntitiesConfig(AppConfig):
    name = "entities"

    def ready(self) -> None:
        """Register the fact and entity kinds of the vectors room, and keep them and the
        cached gazetteer in step with writes (see ``entities.hooks``)."""
        from kgsite.pages import dashboard_panel

        from . import hooks, views
        from .extraction import gazetteer
        from .graph import edges
        from .search import kinds

        kinds.kinds_register()
        hooks.on_entity_saved(gazetteer.gazetteer_invalidate)
        hooks.on_fact_saved(edges.fact_saved_edges)
        hooks.on_entities_merged(edges.entities_merged_edges)
        dashboard_panel(views.HOME_PANEL)
