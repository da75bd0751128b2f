"""Serializers of the books API: request and response shapes, one place per app."""

from __future__ import annotations

from rest_framework import serializers

from entities.serializers import StrictSerializer
from kgsite.converters import MAX_ID

from .extraction.registry import EXTRACTORS
from .models import Book, Chunk, IngestJob, Mention


class BookSerializer(serializers.ModelSerializer):
    class Meta:
        model = Book
        fields = [
            "id",
            "title",
            "author",
            "source_name",
            "content_hash",
            "format",
            "status",
            "extractor",
            "char_count",
            "word_count",
            "chunk_count",
            "ingested_at",
            "created_at",
            "updated_at",
        ]


class BookRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Book
        fields = ["id", "title", "author", "source_name"]


class JobSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = IngestJob
        fields = [
            "id",
            "book",
            "title",
            "author",
            "source_name",
            "extractor",
            "status",
            "phase",
            "done",
            "total",
            "progress",
            "error",
            "warnings",
            "result",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_progress(self, job: IngestJob) -> float:
        """Fraction of the current phase done (1.0 once the job is done)."""
        if job.status == IngestJob.Status.DONE:
            return 1.0
        return round(job.done / job.total, 4) if job.total else 0.0


class UploadSerializer(StrictSerializer):
    file = serializers.FileField()
    title = serializers.CharField(required=False, allow_blank=True, max_length=512)
    author = serializers.CharField(required=False, allow_blank=True, max_length=512)
    extractor = serializers.ChoiceField(choices=EXTRACTORS, required=False)


class ChunkRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Chunk
        fields = ["id", "ordinal", "heading_path", "start", "end"]


class MentionSerializer(serializers.ModelSerializer):
    book = BookRefSerializer(read_only=True)
    chunk = ChunkRefSerializer(read_only=True)

    class Meta:
        model = Mention
        fields = [
            "id",
            "entity",
            "mention_type",
            "surface",
            "start",
            "end",
            "count",
            "context",
            "book",
            "chunk",
        ]


class BookMentionsSerializer(serializers.Serializer):
    book = BookRefSerializer()
    mentions = serializers.IntegerField()
    defines = serializers.IntegerField()
    first_start = serializers.IntegerField()


class EntityRefSerializer(serializers.Serializer):
    id = serializers.CharField()
    canonical_name = serializers.CharField()
    type = serializers.CharField()


# Where a scored chunk sits (an object with a ``chunk``): the fields both result shapes
# open with. A comment, not a docstring: subclasses would show it as their description.
class _ChunkPlaceSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="chunk.id")
    book = BookRefSerializer(source="chunk.book")
    ordinal = serializers.IntegerField(source="chunk.ordinal")
    heading_path = serializers.ListField(child=serializers.CharField(), source="chunk.heading_path")


class RelatedChunkSerializer(_ChunkPlaceSerializer):
    text = serializers.CharField(source="chunk.text")
    score = serializers.FloatField()
    shared = EntityRefSerializer(many=True)


class ChunkSearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=2000, help_text="What the passages should be about.")
    k = serializers.IntegerField(min_value=1, max_value=50, default=10)
    book = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ID,
        help_text="Only chunks of this book (its id).",
    )

    def validate_book(self, value: int) -> int:
        if not Book.objects.filter(pk=value).exists():
            raise serializers.ValidationError(f"No book {value}.")
        return value


class ChunkHitSerializer(_ChunkPlaceSerializer):
    excerpt = serializers.CharField(help_text="The chunk's opening, as plain text.")
    score = serializers.FloatField(help_text="Cosine similarity to q.")


class ChunkSearchResponseSerializer(serializers.Serializer):
    results = ChunkHitSerializer(many=True)
    index_complete = serializers.BooleanField(
        help_text="False while a book's chunks are still waiting for their vectors (being "
        "embedded, or a run that died is being retried): passages of it may be missing."
    )


class DeleteSummarySerializer(serializers.Serializer):
    book_id = serializers.IntegerField()
    title = serializers.CharField()
    chunks = serializers.IntegerField()
    entities_removed = serializers.IntegerField()
    entities_kept = serializers.IntegerField()


# --- views -----------------------------------------------------------------------------
