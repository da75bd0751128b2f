from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"

    def ready(self) -> None:
        """Let recall (session start, the MCP digest tool) read pending notifications, and
        close the notices of a fact deleted for good."""
        from entities import hooks

        from . import selectors, services

        hooks.high_notices(selectors.notification_high_pending)
        hooks.on_fact_saved(services.notifications_of_deleted_fact_close)
        hooks.notification_digest(selectors.notification_digest_dict)
