from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("notifications/", api.NotificationPendingView.as_view(), name="notification-pending"),
    path(
        "notifications/unread-count",
        api.NotificationUnreadCountView.as_view(),
        name="notification-unread-count",
    ),
    path("notifications/digest", api.NotificationDigestView.as_view(), name="notification-digest"),
    path("notifications/read", api.NotificationMarkReadView.as_view(), name="notification-read"),
    path(
        "notifications/<id:notification_id>/read",
        api.NotificationReadOneView.as_view(),
        name="notification-read-one",
    ),
]
