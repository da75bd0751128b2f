from __future__ import annotations

from django.apps import AppConfig


class BooksConfig(AppConfig):
    name = "books"

    def ready(self) -> None:
        """Chunks are a kind of the vectors room, like facts and entities; mentions hold
        on to their entities when the entity graph collects garbage, follow them through
        a merge (and its undo), and show on the entity's page."""
        from entities import hooks
        from kgsite.pages import audit_action, audit_target, dashboard_panel, undo_action
        from kgsite.vectors.index import register_model_kind
        from notifications.views import notification_page, notification_title

        from . import models, selectors, services, views

        register_model_kind("chunks", models.Chunk)
        hooks.entity_referrers(selectors.entities_mentioned)
        hooks.merge_mover(
            hooks.MergeMover(
                name="mentions",
                count=services.mentions_count,
                move=services.mentions_merge,
                problems=services.mentions_merge_problems,
                undo=services.mentions_merge_undo,
            )
        )
        hooks.mention_reader(selectors.entity_mention_groups)
        # Pages: the dashboard's books and jobs, the bell's link to a failed job.
        dashboard_panel(views.HOME_PANEL)
        notification_page("job_failed", views.job_page)
        notification_title("job_failed", views.job_failed_title)
        undo_action(views.REJECT_UNDO)
        audit_target("books.book", views.describe_books)
        audit_target("books.ingestjob", views.describe_jobs)
        for action, label in views.AUDIT_LABELS.items():
            audit_action(action, label)
        hooks.passage_links(selectors.chunk_links)
