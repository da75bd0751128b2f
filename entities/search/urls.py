from __future__ import annotations

from django.urls import path

from . import api as search_api

urlpatterns = [
    path("search/entities", search_api.EntitySearchView.as_view(), name="search-entities"),
    path("facts/search", search_api.FactSearchView.as_view(), name="fact-search"),
]
