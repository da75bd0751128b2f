"""Books come in through an upload or ``ingest_book`` and leave through ``book_delete``:
the admin shows them, and deletes through the service, but makes none by hand."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db import transaction
from django.utils.translation import gettext as _

from kgsite.admin import ReadOnlyAdmin
from kgsite.text import normalize

from . import services
from .models import Book, Chunk, IngestJob, Mention


@admin.register(Book)
class BookAdmin(ReadOnlyAdmin):
    list_display = ["title", "author", "format", "status", "chunk_count", "ingested_at"]
    list_filter = ["status", "format"]
    search_fields = ["title", "author", "source_name"]

    def get_search_results(self, request, queryset, search_term):
        # Titles also by their normalised column and term: "ÖLÇÜLER" or a decomposed
        # "Ölçüler" finds "Ölçüler" (SQLite's LIKE folds ASCII letters only).
        found, duplicates = super().get_search_results(request, queryset, search_term)
        term = normalize(search_term)
        if term:
            found = found | queryset.filter(title_norm__contains=term)
        return found, duplicates

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("books.delete_book")

    def get_deleted_objects(self, objs, request):
        # Chunks, mentions and jobs go with their book (by the service), though none of
        # them may be deleted on its own.
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request, obj):
        summary = services.book_delete(book=obj, actor=request.user)
        messages.info(request, _("%(n)s chunks removed.") % {"n": summary["chunks"]})

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            for book in queryset:
                services.book_delete(book=book, actor=request.user)


@admin.register(Chunk)
class ChunkAdmin(ReadOnlyAdmin):
    list_display = ["book", "ordinal", "heading_path", "start", "end"]
    list_select_related = ["book"]
    search_fields = ["text"]


@admin.register(Mention)
class MentionAdmin(ReadOnlyAdmin):
    list_display = ["entity", "mention_type", "book", "chunk", "count"]
    list_filter = ["mention_type"]
    list_select_related = ["entity", "book", "chunk"]


@admin.register(IngestJob)
class IngestJobAdmin(ReadOnlyAdmin):
    list_display = ["id", "title", "status", "phase", "done", "total", "created_at"]
    list_filter = ["status"]
