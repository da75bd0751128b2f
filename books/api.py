"""HTTP endpoints of the books app: parse input, call one service or selector, render."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from entities.selectors import entity_get
from kgsite.errors import InvalidInput

from . import selectors, services
from .extraction.base import EXTRACTORS
from .models import Book, Chunk, IngestJob, Mention

MAX_UPLOAD_BYTES = 50 * 1024 * 1024

# --- serializers -----------------------------------------------------------------------


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


class UploadSerializer(serializers.Serializer):
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
        required=False, min_value=1, help_text="Only chunks of this book (its id)."
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


class DeleteSummarySerializer(serializers.Serializer):
    book_id = serializers.IntegerField()
    title = serializers.CharField()
    chunks = serializers.IntegerField()
    entities_removed = serializers.IntegerField()
    entities_kept = serializers.IntegerField()


# --- views -----------------------------------------------------------------------------


def _int_param(request, name: str, *, default: int | None = None) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError:
        raise InvalidInput(f"{name} must be an integer", field=name) from None


class BookListView(GenericAPIView):
    serializer_class = BookSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return selectors.book_list()

    @extend_schema(operation_id="books_list", responses=BookSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(BookSerializer(page, many=True).data)

    @extend_schema(
        operation_id="books_upload",
        request={"multipart/form-data": UploadSerializer},
        responses={202: JobSerializer},
        summary="Upload a .md, .txt, .pdf, .html or .epub file to ingest; returns the queued job",
    )
    def post(self, request):
        serializer = UploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        upload = data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise InvalidInput("The file is larger than 50 MB.", field="file")
        job = services.ingest_job_create(
            filename=upload.name or "",
            data=upload.read(),
            title=data.get("title", ""),
            author=data.get("author", ""),
            extractor=data.get("extractor"),
        )
        job.refresh_from_db()
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class BookDetailView(GenericAPIView):
    serializer_class = BookSerializer

    @extend_schema(responses=BookSerializer)
    def get(self, request, book_id: int):
        return Response(BookSerializer(selectors.book_get(book_id=book_id)).data)

    @extend_schema(responses=DeleteSummarySerializer)
    def delete(self, request, book_id: int):
        summary = services.book_delete(book=selectors.book_get(book_id=book_id), actor=request.user)
        return Response(summary)


class JobListView(GenericAPIView):
    serializer_class = JobSerializer

    def get_queryset(self):
        return selectors.job_list()

    @extend_schema(operation_id="book_jobs_list", responses=JobSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(JobSerializer(page, many=True).data)


class JobDetailView(GenericAPIView):
    serializer_class = JobSerializer

    @extend_schema(responses=JobSerializer, summary="An ingest job's status and progress")
    def get(self, request, job_id: int):
        return Response(JobSerializer(selectors.job_get(job_id=job_id)).data)


class EntityMentionsView(GenericAPIView):
    serializer_class = MentionSerializer

    @extend_schema(
        operation_id="entity_mentions_list",
        parameters=[
            OpenApiParameter("book", OpenApiTypes.INT, description="Only this book."),
            OpenApiParameter("mention_type", OpenApiTypes.STR, enum=list(Mention.Type.values)),
        ],
        responses=MentionSerializer(many=True),
        summary="Where an entity is mentioned, defining chunks first",
    )
    def get(self, request, entity_id: str):
        mentions = selectors.entity_mentions(
            entity=entity_get(entity_id=entity_id),
            book_id=_int_param(request, "book"),
            mention_type=request.query_params.get("mention_type") or None,
        )
        page = self.paginate_queryset(mentions)
        return self.get_paginated_response(MentionSerializer(page, many=True).data)


class EntityBooksView(GenericAPIView):
    serializer_class = BookMentionsSerializer
    pagination_class = None

    @extend_schema(
        operation_id="entity_books_list",
        responses=BookMentionsSerializer(many=True),
        summary="The books that mention an entity (where else does it appear)",
    )
    def get(self, request, entity_id: str):
        books = selectors.entity_books(entity=entity_get(entity_id=entity_id))
        return Response(BookMentionsSerializer(books, many=True).data)


class ChunkRelatedView(GenericAPIView):
    serializer_class = RelatedChunkSerializer
    pagination_class = None

    @extend_schema(
        operation_id="chunk_related_list",
        parameters=[OpenApiParameter("limit", OpenApiTypes.INT, description="Default 10.")],
        responses=RelatedChunkSerializer(many=True),
        summary="Chunks of other books that mention the same entities, best first",
    )
    def get(self, request, chunk_id: int):
        limit = _int_param(request, "limit", default=10)
        if limit is None or not 1 <= limit <= 100:
            raise InvalidInput("limit must be between 1 and 100", field="limit")
        related = selectors.chunk_related(chunk=selectors.chunk_get(chunk_id=chunk_id), limit=limit)
        return Response(RelatedChunkSerializer(related, many=True).data)


class ChunkSearchView(GenericAPIView):
    serializer_class = ChunkSearchResponseSerializer
    pagination_class = None

    @extend_schema(
        operation_id="chunks_search",
        parameters=[ChunkSearchQuerySerializer],
        responses=ChunkSearchResponseSerializer,
        summary="Book passages closest in meaning to a text (semantic search over chunks)",
    )
    def get(self, request):
        serializer = ChunkSearchQuerySerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        hits = selectors.chunk_search(q=data["q"], k=data["k"], book_id=data.get("book"))
        return Response({"results": ChunkHitSerializer(hits, many=True).data})
