"""HTTP endpoints of the books app: parse input, call one service or selector, render."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from entities.selectors import entity_named
from kgsite.api import paginated_response
from kgsite.converters import MAX_ID
from kgsite.errors import InvalidInput

from . import selectors, services
from .models import Mention
from .serializers import (
    BookMentionsSerializer,
    BookSerializer,
    ChunkHitSerializer,
    ChunkSearchQuerySerializer,
    ChunkSearchResponseSerializer,
    DeleteSummarySerializer,
    JobSerializer,
    MentionSerializer,
    RelatedChunkSerializer,
    UploadSerializer,
)


def _int_param(request, name: str, *, default: int | None = None) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    # ASCII digits only: int() also reads "1_0", " 5" and full-width digits.
    if not (raw.isascii() and raw.isdigit()):
        raise InvalidInput(f"{name} must be an integer", field=name)
    value = int(raw)
    if not 0 <= value <= MAX_ID:
        raise InvalidInput(f"{name} is out of range", field=name)
    return value


class BookListView(GenericAPIView):
    serializer_class = BookSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return selectors.book_list()

    @extend_schema(operation_id="books_list", responses=BookSerializer(many=True))
    def get(self, request):
        return paginated_response(
            view=self, queryset=self.get_queryset(), serializer_class=BookSerializer
        )

    @extend_schema(
        operation_id="books_upload",
        request={"multipart/form-data": UploadSerializer},
        responses={202: JobSerializer},
        summary=(
            "Upload a .md, .txt, .rst, .pdf, .html or .epub file or a manual page to ingest; "
            "returns the queued job"
        ),
    )
    def post(self, request):
        serializer = UploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        upload = data["file"]
        limit = settings.KGSITE_MAX_UPLOAD_BYTES
        if upload.size > limit:
            raise InvalidInput(f"The file is larger than {limit} bytes.", field="file")
        try:
            job = services.ingest_job_create(
                filename=upload.name or "",
                data=upload.read(),
                title=data.get("title", ""),
                author=data.get("author", ""),
                extractor=data.get("extractor"),
            )
        except InvalidInput as exc:
            if exc.field == "format":  # chosen by the file's extension: the body's "file"
                exc.field = "file"
            raise
        job.refresh_from_db()
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class BookDetailView(GenericAPIView):
    serializer_class = BookSerializer

    @extend_schema(responses=BookSerializer)
    def get(self, request, book_id: int):
        return Response(BookSerializer(selectors.book_get(book_id=book_id)).data)

    # 200 with what was removed (spectacular would document a bare 204 for a DELETE).
    @extend_schema(responses={200: DeleteSummarySerializer})
    def delete(self, request, book_id: int):
        summary = services.book_delete(book=selectors.book_get(book_id=book_id), actor=request.user)
        return Response(summary)


class JobListView(GenericAPIView):
    serializer_class = JobSerializer

    def get_queryset(self):
        return selectors.job_list()

    @extend_schema(operation_id="book_jobs_list", responses=JobSerializer(many=True))
    def get(self, request):
        return paginated_response(
            view=self, queryset=self.get_queryset(), serializer_class=JobSerializer
        )


class JobDetailView(GenericAPIView):
    serializer_class = JobSerializer

    @extend_schema(responses=JobSerializer, summary="An ingest job's status and progress")
    def get(self, request, job_id: int):
        return Response(JobSerializer(selectors.job_get(job_id=job_id)).data)


def _entity(entity_id: str):
    """The entity of the address; a merged-away id is a 404 that says where it went (as
    GET /entities/<id>/ answers 301 to it), not a plain "no entity"."""
    return entity_named(entity_id=entity_id, field="id")


class EntityMentionsView(GenericAPIView):
    serializer_class = MentionSerializer

    @extend_schema(
        operation_id="entity_mentions_list",
        parameters=[
            OpenApiParameter(
                "book", OpenApiTypes.INT, description="Only this book (an unknown id is a 400)."
            ),
            OpenApiParameter("mention_type", OpenApiTypes.STR, enum=list(Mention.Type.values)),
        ],
        responses=MentionSerializer(many=True),
        summary="Where an entity is mentioned, defining chunks first",
    )
    def get(self, request, entity_id: str):
        entity = _entity(entity_id)
        book_id = _int_param(request, "book")
        # As the chunk search: a book that is not there is an error, not an empty list.
        if book_id is not None and not selectors.book_list().filter(pk=book_id).exists():
            raise InvalidInput(f"No book {book_id}.", field="book")
        mentions = selectors.entity_mentions(
            entity=entity,
            book_id=book_id,
            mention_type=request.query_params.get("mention_type") or None,
        )
        return paginated_response(view=self, queryset=mentions, serializer_class=MentionSerializer)


class EntityBooksView(GenericAPIView):
    serializer_class = BookMentionsSerializer
    pagination_class = None

    @extend_schema(
        operation_id="entity_books_list",
        responses=BookMentionsSerializer(many=True),
        summary="The books that mention an entity (where else does it appear)",
    )
    def get(self, request, entity_id: str):
        books = selectors.entity_books(entity=_entity(entity_id))
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
    throttle_scope = "search"
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
        return Response(
            {
                "results": ChunkHitSerializer(hits, many=True).data,
                "index_complete": not services.books_missing_vectors(),
            }
        )
