from __future__ import annotations

from django.urls import path

from . import views

app_name = "entities"

urlpatterns = [
    path("", views.entity_list, name="list"),
    path("merges/<int:merge_id>/undo", views.merge_undo, name="merge-undo"),
    path("duplicates/", views.duplicate_queue, name="duplicates"),
    path("duplicates/<int:suggestion_id>/dismiss", views.duplicate_dismiss, name="dismiss"),
    path("<str:entity_id>/", views.entity_detail, name="detail"),
    path("<str:entity_id>/aliases/add", views.alias_add, name="alias-add"),
    path("<str:entity_id>/aliases/remove", views.alias_remove, name="alias-remove"),
    path("<str:entity_id>/merge/candidates", views.merge_candidates, name="merge-candidates"),
    path("<str:entity_id>/merge/preview", views.merge_preview, name="merge-preview"),
    path("<str:entity_id>/merge", views.merge, name="merge"),
    path(
        "<str:entity_id>/confirmations/<int:confirmation_id>/undo",
        views.confirmation_undo,
        name="confirmation-undo",
    ),
]
