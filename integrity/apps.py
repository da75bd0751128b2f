from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import post_delete


class IntegrityConfig(AppConfig):
    name = "integrity"

    def ready(self) -> None:
        """Widen fact_store's duplicate check, check every new fact in the background, and
        plug the contradiction pages into the dashboard, the bell and the curators' log."""
        from entities import hooks
        from kgsite.pages import audit_action, audit_target, dashboard_panel, undo_action
        from kgsite.warmup import warmer
        from notifications.views import notification_page, notification_title

        from . import restates, services, tasks, views

        hooks.duplicate_finder(services.fact_find_near_duplicate)
        hooks.pair_judge(restates.pair_restates)
        hooks.on_fact_saved(tasks.fact_check_enqueue)
        post_delete.connect(
            tasks.contradiction_deleted, sender=self.get_model("Contradiction"), dispatch_uid="kg"
        )
        # The pair model and the word lists its reader consults, before the first write.
        warmer("pair model", lambda: services.classify(
            existing="The warm-up took 5 minutes.", new="The warm-up took 6 minutes.",
            use_judge=False,
        ))  # fmt: skip
        # Pages: the dashboard panel, the bell's link to the inbox, undo from the audit log.
        dashboard_panel(views.HOME_PANEL)
        notification_page("contradiction", views.contradiction_page)
        notification_title("contradiction", views.contradiction_title)
        notification_title("duplicate", views.duplicate_title)
        notification_title("job_failed", views.check_queue_title)
        hooks.fact_notes(views.fact_contradictions)
        undo_action(views.RESOLUTION_UNDO)
        audit_target(
            "integrity.contradiction",
            views.describe_contradictions,
            hidden=views.hidden_contradictions,
        )
        for action, label in views.AUDIT_LABELS.items():
            audit_action(action, label)
