from __future__ import annotations

from django.contrib import admin

from .models import Book, Chunk, IngestJob, Mention


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ["title", "author", "format", "status", "chunk_count", "ingested_at"]
    list_filter = ["status", "format"]
    search_fields = ["title", "author", "source_name"]
    readonly_fields = ["content_hash", "char_count", "word_count", "chunk_count", "ingested_at"]


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ["book", "ordinal", "heading_path", "start", "end"]
    list_select_related = ["book"]
    raw_id_fields = ["book"]
    search_fields = ["text"]


@admin.register(Mention)
class MentionAdmin(admin.ModelAdmin):
    list_display = ["entity", "mention_type", "book", "chunk", "count"]
    list_filter = ["mention_type"]
    list_select_related = ["entity", "book", "chunk"]
    raw_id_fields = ["entity", "book", "chunk"]


@admin.register(IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "status", "phase", "done", "total", "created_at"]
    list_filter = ["status"]
    readonly_fields = ["warnings", "result", "error"]
