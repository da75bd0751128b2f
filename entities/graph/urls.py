from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("graph/entity/<str:entity_id>/", views.entity_graph_page, name="entity-graph"),
]
