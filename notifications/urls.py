from __future__ import annotations

from django.urls import path

from . import views

app_name = "notifications"

urlpatterns = [
    path("badge", views.badge, name="badge"),
    path("panel", views.panel, name="panel"),
    path("read", views.mark_read, name="read"),
    path("<int:notification_id>/", views.open_notification, name="open"),
]
