from __future__ import annotations

from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate

from .search.fulltext import fulltext_install


class EntitiesConfig(AppConfig):
    name = "entities"

    def ready(self) -> None:
        """Register the fact and entity kinds of the vectors room, and keep them and the
        cached gazetteer in step with writes (see ``entities.hooks``)."""
        from kgsite.pages import dashboard_panel, undo_action
        from kgsite.warmup import warmer

        from . import auditing, hooks, merging_pages, tasks, views
        from .extraction import gazetteer
        from .graph import edges
        from .imports import merging as import_merging
        from .recall import kinds as recall_kinds
        from .recall import merging as recall_merging
        from .search import kinds

        kinds.kinds_register()
        recall_kinds.episodes_kind_register()
        recall_kinds.crosslingual_kind_register()
        hooks.on_entity_saved(gazetteer.gazetteer_invalidate)
        hooks.on_entities_ingested(tasks.entities_ingested_scan)
        hooks.merge_mover(
            hooks.MergeMover(
                name="recall",
                count=recall_merging.recall_refs_count,
                move=recall_merging.recall_refs_move,
                problems=recall_merging.recall_refs_problems,
                undo=recall_merging.recall_refs_undo,
            )
        )
        hooks.merge_mover(
            hooks.MergeMover(
                name="imported_ids",
                count=import_merging.source_ids_count,
                move=import_merging.source_ids_move,
                problems=import_merging.source_ids_problems,
                undo=import_merging.source_ids_undo,
            )
        )
        hooks.on_fact_saved(edges.fact_saved_edges)
        # The facts' vector index (read from disk or the database) before the first write.
        warmer("facts index", lambda: kinds.similar_facts("warm-up", k=1))
        dashboard_panel(views.HOME_PANEL)
        undo_action(merging_pages.MERGE_UNDO)
        auditing.audit_register()
        post_migrate.connect(_fulltext_triggers, sender=self)


def _fulltext_triggers(sender, using: str = "default", **kwargs) -> None:
    """SQLite loses a table's triggers when a migration rebuilds it: put the full-text
    index's back after every migrate (idempotent)."""
    fulltext_install(connections[using])
