from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("entities/lookup", api.EntityLookupView.as_view(), name="entity-lookup"),
    path("entities/merge", api.EntityMergeView.as_view(), name="entity-merge"),
    path("entities/duplicates", api.DuplicateListView.as_view(), name="duplicate-list"),
    path(
        "entities/duplicates/<int:suggestion_id>/dismiss",
        api.DuplicateDismissView.as_view(),
        name="duplicate-dismiss",
    ),
    path("merges/", api.MergeListView.as_view(), name="merge-list"),
    path("merges/<int:merge_id>/undo", api.MergeUndoView.as_view(), name="merge-undo"),
    path("entities/", api.EntityListView.as_view(), name="entity-list"),
    path("entities/<str:entity_id>/", api.EntityDetailView.as_view(), name="entity-detail"),
    path("entities/<str:entity_id>/aliases/", api.AliasListView.as_view(), name="alias-list"),
    path(
        # path: an alias may contain "/" ("TCP/IP").
        "entities/<str:entity_id>/aliases/<path:alias>/",
        api.AliasDetailView.as_view(),
        name="alias-detail",
    ),
    path("facts/", api.FactListView.as_view(), name="fact-list"),
    path("facts/refs", api.FactRefsView.as_view(), name="fact-refs"),
    path("facts/<id:fact_id>/", api.FactDetailView.as_view(), name="fact-detail"),
    path(
        "facts/<id:fact_id>/confirmations/<id:confirmation_id>/undo",
        api.FactConfirmationUndoView.as_view(),
        name="fact-confirmation-undo",
    ),
]
