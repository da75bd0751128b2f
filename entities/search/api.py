"""Search endpoints: entity-aware memory search and semantic fact search."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from kgsite.api import Reader
from kgsite.schema import ErrorResponseSerializer, bad_request

from .. import selectors
from ..scopes import ScopeFilter
from . import ranking
from .serializers import (
    EntitySearchRequestSerializer,
    EntitySearchResponseSerializer,
    FactSearchQuerySerializer,
    FactSearchResponseSerializer,
)


class EntitySearchView(GenericAPIView):
    """A search is a read: open to readers, like every GET."""

    permission_classes = [Reader]
    throttle_scope = "search"
    serializer_class = EntitySearchRequestSerializer

    @extend_schema(
        operation_id="search_by_entities",
        request=EntitySearchRequestSerializer,
        responses={
            200: EntitySearchResponseSerializer,
            400: bad_request("topK", "topK: Ensure this value is less than or equal to 50."),
        },
        summary="Memories (facts) about these entities, ranked by meaning and entity overlap",
    )
    def post(self, request):
        serializer = EntitySearchRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = ranking.search_by_entities(
            entities=data["entities"],
            entity_types=data.get("entityTypes") or None,
            match_mode=data["matchMode"],
            top_k=data["topK"],
            min_score=data["minScore"],
            include_content=data["includeContent"],
            boost_exact_match=data["boostExactMatch"],
            scopes=ScopeFilter.of(data["scope"], data["all_scopes"]),
        )
        return Response(result)


def _known_entity(entity_id: str) -> str:
    """The ``entity`` filter as the fact list takes it (our id or an imported memory's):
    an unknown id is a 404 naming the field (a merged-away one says where it went), not
    an empty answer."""
    return selectors.entity_named(entity_id=entity_id, field="entity").pk


class FactSearchView(GenericAPIView):
    throttle_scope = "search"
    serializer_class = FactSearchResponseSerializer
    pagination_class = None

    @extend_schema(
        operation_id="facts_search",
        parameters=[FactSearchQuerySerializer],
        responses={
            200: FactSearchResponseSerializer,
            400: bad_request("k", "k: Ensure this value is less than or equal to 50."),
            404: OpenApiResponse(ErrorResponseSerializer, description="An unknown entity id."),
        },
        summary="Facts closest in meaning to a text (facts by topic)",
        description="An unknown or merged-away `entity` is a 404 naming the field (a "
        "merged one says where it went), not an empty list.",
    )
    def get(self, request):
        serializer = FactSearchQuerySerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        entity = data.get("entity")
        result = ranking.fact_search(
            q=data["q"],
            k=data["k"],
            entity=_known_entity(entity) if entity else None,
            status=data["status"],
            source=data.get("source"),
            min_score=data["minScore"],
            scopes=ScopeFilter.of(data["scope"], data["all_scopes"]),
            kinds=[data["kind"]] if data.get("kind") else None,
        )
        return Response(result)
