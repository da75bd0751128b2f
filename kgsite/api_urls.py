"""Version 1 of the API: each app contributes its own routes."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("", include("entities.api_urls")),
    path("", include("entities.search.urls")),
    path("", include("entities.recall.api_urls")),
    path("", include("notifications.api_urls")),
    path("", include("integrity.api_urls")),
    path("", include("entities.extraction.urls")),
    path("", include("entities.graph.api_urls")),
    path("", include("books.api_urls")),
]
