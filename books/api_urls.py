"""Routes of the books API.

The read routes are named without a trailing slash, as the issue gives them; the same
view also answers with one (``/mentions/``) instead of a 404, undocumented in the
schema so each operation is listed once.
"""

from __future__ import annotations

from django.urls import URLPattern, path
from drf_spectacular.utils import extend_schema

from . import api


def _both(route: str, view: type, name: str) -> list[URLPattern]:
    slashed = extend_schema(exclude=True)(type(f"{view.__name__}Slash", (view,), {}))
    return [path(route, view.as_view(), name=name), path(f"{route}/", slashed.as_view())]


urlpatterns = [
    path("books/", api.BookListView.as_view(), name="book-list"),
    path("books/<id:book_id>/", api.BookDetailView.as_view(), name="book-detail"),
    path("jobs/", api.JobListView.as_view(), name="job-list"),
    path("jobs/<id:job_id>/", api.JobDetailView.as_view(), name="job-detail"),
    *_both("entities/<str:entity_id>/mentions", api.EntityMentionsView, "entity-mentions"),
    *_both("entities/<str:entity_id>/books", api.EntityBooksView, "entity-books"),
    *_both("chunks/search", api.ChunkSearchView, "chunk-search"),
    *_both("chunks/<id:chunk_id>/related", api.ChunkRelatedView, "chunk-related"),
]
