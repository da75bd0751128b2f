from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("kge/validate", api.ValidateView.as_view(), name="kge-validate"),
    path("kge/infer-relation", api.InferRelationView.as_view(), name="kge-infer-relation"),
    path("kge/related", api.RelatedView.as_view(), name="kge-related"),
    path("kge/models", api.KGEModelListView.as_view(), name="kge-models"),
    path("graph/entity/<str:entity_id>", api.EntityGraphView.as_view(), name="graph-entity"),
    path("graph/neighbors/<str:entity_id>", api.NeighborsView.as_view(), name="graph-neighbors"),
    path("graph/ppr", api.PPRView.as_view(), name="graph-ppr"),
]
