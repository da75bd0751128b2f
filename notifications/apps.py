from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"

    def ready(self) -> None:
        """Let recall (session start, the MCP digest tool) read pending notifications."""
        from entities import hooks

        from . import selectors

        hooks.high_notices(selectors.notification_high_pending)
        hooks.notification_digest(selectors.notification_digest_dict)
