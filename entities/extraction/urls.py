from __future__ import annotations

from django.urls import path

from . import api as extraction_api

urlpatterns = [
    path("extract/entities", extraction_api.ExtractEntitiesView.as_view(), name="extract-entities"),
]
