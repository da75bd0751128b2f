from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("books/", api.BookListView.as_view(), name="book-list"),
    path("books/<int:book_id>/", api.BookDetailView.as_view(), name="book-detail"),
    path("jobs/", api.JobListView.as_view(), name="job-list"),
    path("jobs/<int:job_id>/", api.JobDetailView.as_view(), name="job-detail"),
    path(
        "entities/<str:entity_id>/mentions",
        api.EntityMentionsView.as_view(),
        name="entity-mentions",
    ),
    path("entities/<str:entity_id>/books", api.EntityBooksView.as_view(), name="entity-books"),
    path("chunks/search", api.ChunkSearchView.as_view(), name="chunk-search"),
    path("chunks/<int:chunk_id>/related", api.ChunkRelatedView.as_view(), name="chunk-related"),
]
