from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("integrity/check", api.PairCheckView.as_view(), name="integrity-check"),
    path(
        "integrity/contradictions/",
        api.ContradictionListView.as_view(),
        name="contradiction-list",
    ),
    path(
        "integrity/contradictions/<id:contradiction_id>/",
        api.ContradictionDetailView.as_view(),
        name="contradiction-detail",
    ),
    path(
        "integrity/contradictions/<id:contradiction_id>/resolve",
        api.ContradictionResolveView.as_view(),
        name="contradiction-resolve",
    ),
    path(
        "integrity/contradictions/<id:contradiction_id>/undo",
        api.ContradictionUndoView.as_view(),
        name="contradiction-undo",
    ),
]
