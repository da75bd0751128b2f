from __future__ import annotations

from django.urls import path

from . import views

app_name = "integrity"

urlpatterns = [
    path("", views.inbox, name="inbox"),
    path("count", views.open_count, name="count"),
    path("contradictions/<int:contradiction_id>/", views.detail, name="detail"),
    path("contradictions/<int:contradiction_id>/resolve", views.resolve, name="resolve"),
    path("contradictions/<int:contradiction_id>/undo", views.undo, name="undo"),
]
