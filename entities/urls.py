from __future__ import annotations

from django.urls import path

from . import editing, views
from . import merging_pages as merging

app_name = "entities"

urlpatterns = [
    path("", views.entity_list, name="list"),
    path("new", editing.entity_new, name="new"),
    path("merges/<int:merge_id>/undo", merging.merge_undo, name="merge-undo"),
    path("duplicates/", merging.duplicate_queue, name="duplicates"),
    path("duplicates/<int:suggestion_id>/dismiss", merging.duplicate_dismiss, name="dismiss"),
    path("duplicates/<int:suggestion_id>/undismiss", merging.duplicate_undismiss, name="undismiss"),
    path("facts/<int:fact_id>/", editing.fact_edit, name="fact"),
    path("facts/<int:fact_id>/retract", editing.fact_retract, name="fact-retract"),
    path("facts/<int:fact_id>/supersede", editing.fact_supersede, name="fact-supersede"),
    path("<str:entity_id>/", views.entity_detail, name="detail"),
    path("<str:entity_id>/edit", editing.entity_edit, name="edit"),
    path("<str:entity_id>/facts/add", editing.fact_add, name="fact-add"),
    path("<str:entity_id>/aliases/add", views.alias_add, name="alias-add"),
    path("<str:entity_id>/aliases/remove", views.alias_remove, name="alias-remove"),
    path("<str:entity_id>/aliases/restore", editing.alias_restore, name="alias-restore"),
    path("<str:entity_id>/merge/candidates", merging.merge_candidates, name="merge-candidates"),
    path("<str:entity_id>/merge/preview", merging.merge_preview, name="merge-preview"),
    path("<str:entity_id>/merge", merging.merge, name="merge"),
    path(
        "<str:entity_id>/confirmations/<int:confirmation_id>/undo",
        views.confirmation_undo,
        name="confirmation-undo",
    ),
]
