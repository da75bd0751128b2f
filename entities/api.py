"""HTTP endpoints of the entity graph: parse input, call one service or selector, render."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from kgsite.errors import InvalidInput, NotFound

from . import selectors, services
from .models import Fact
from .scopes import ScopeFilter
from .serializers import (
    AliasSerializer,
    AliasWriteSerializer,
    EntitySerializer,
    EntityUpdateSerializer,
    EntityWriteSerializer,
    FactSerializer,
    FactStoreResponseSerializer,
    FactUpdateSerializer,
    FactWriteSerializer,
    LookupQuerySerializer,
    LookupResponseSerializer,
    ScopeQuerySerializer,
)


def _validated(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _scopes(params) -> ScopeFilter:
    data = _validated(ScopeQuerySerializer, params)
    return ScopeFilter.of(data["scope"], data["all_scopes"])


SCOPE_PARAMETERS = [
    OpenApiParameter("scope", OpenApiTypes.STR, description=ScopeQuerySerializer.SCOPE_HELP),
    OpenApiParameter(
        "all_scopes", OpenApiTypes.BOOL, description=ScopeQuerySerializer.ALL_SCOPES_HELP
    ),
]


class EntityLookupView(GenericAPIView):
    serializer_class = LookupResponseSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "name",
                OpenApiTypes.STR,
                required=True,
                description="Canonical name or alias, any case or Unicode form.",
            ),
            OpenApiParameter("type", OpenApiTypes.STR, description="Narrow to one type."),
            *SCOPE_PARAMETERS,
        ],
        responses=LookupResponseSerializer,
        summary="Resolve a name to one entity, or say honestly that none matches",
    )
    def get(self, request):
        params = _validated(LookupQuerySerializer, request.query_params)
        result = selectors.entity_lookup(
            name=params["name"],
            type=params.get("type"),
            scopes=ScopeFilter.of(params["scope"], params["all_scopes"]),
        )
        return Response(result.as_dict())


class EntityListView(GenericAPIView):
    serializer_class = EntitySerializer

    def get_queryset(self):
        return selectors.entity_list(
            type=self.request.query_params.get("type"),
            prefix=self.request.query_params.get("prefix"),
        ).prefetch_related("aliases")

    @extend_schema(
        parameters=[
            OpenApiParameter("type", OpenApiTypes.STR),
            OpenApiParameter("prefix", OpenApiTypes.STR, description="Name prefix."),
        ],
        operation_id="entities_list",
        responses=EntitySerializer(many=True),
    )
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(EntitySerializer(page, many=True).data)

    @extend_schema(
        request=EntityWriteSerializer, responses={200: EntitySerializer, 201: EntitySerializer}
    )
    def post(self, request):
        data = _validated(EntityWriteSerializer, request.data)
        with transaction.atomic():
            entity, created = services.entity_store(
                name=data["canonical_name"],
                type=data["type"],
                description=data["description"],
                actor=request.user,
            )
            for alias in data["aliases"]:
                services.alias_add(entity=entity, alias=alias, actor=request.user)
        return Response(
            EntitySerializer(entity).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class EntityDetailView(GenericAPIView):
    serializer_class = EntitySerializer

    def get(self, request, entity_id: str):
        return Response(EntitySerializer(selectors.entity_get(entity_id=entity_id)).data)

    @extend_schema(request=EntityUpdateSerializer, responses=EntitySerializer)
    def patch(self, request, entity_id: str):
        entity = selectors.entity_get(entity_id=entity_id)
        data = _validated(EntityUpdateSerializer, request.data)
        entity = services.entity_update(entity=entity, actor=request.user, **data)
        return Response(EntitySerializer(entity).data)


class AliasListView(GenericAPIView):
    serializer_class = AliasSerializer
    pagination_class = None

    def get(self, request, entity_id: str):
        entity = selectors.entity_get(entity_id=entity_id)
        return Response(AliasSerializer(entity.aliases.all(), many=True).data)

    @extend_schema(
        request=AliasWriteSerializer, responses={200: AliasSerializer, 201: AliasSerializer}
    )
    def post(self, request, entity_id: str):
        entity = selectors.entity_get(entity_id=entity_id)
        data = _validated(AliasWriteSerializer, request.data)
        alias, created = services.alias_add(entity=entity, alias=data["alias"], actor=request.user)
        return Response(
            AliasSerializer(alias).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class AliasDetailView(GenericAPIView):
    serializer_class = AliasSerializer

    @extend_schema(responses={204: None})
    def delete(self, request, entity_id: str, alias: str):
        entity = selectors.entity_get(entity_id=entity_id)
        services.alias_remove(entity=entity, alias=alias, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _entity_or_none(entity_id: str | None, field: str):
    """An entity referenced from a request body: an unknown id is a 400 naming the field."""
    if not entity_id:
        return None
    try:
        return selectors.entity_get(entity_id=entity_id)
    except NotFound as exc:
        raise InvalidInput(exc.message, field=field) from None


class FactListView(GenericAPIView):
    serializer_class = FactSerializer

    def get_queryset(self):
        p = self.request.query_params
        return selectors.fact_list(
            entity=p.get("entity"),
            status=p.get("status"),
            source=p.get("source"),
            kind=p.get("kind"),
            scopes=_scopes(p),
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("entity", OpenApiTypes.STR, description="Entity id."),
            OpenApiParameter("status", OpenApiTypes.STR, enum=Fact.Status.values),
            OpenApiParameter("source", OpenApiTypes.STR),
            OpenApiParameter("kind", OpenApiTypes.STR, enum=Fact.Kind.values),
            *SCOPE_PARAMETERS,
        ],
        operation_id="facts_list",
        responses=FactSerializer(many=True),
    )
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(FactSerializer(page, many=True).data)

    @extend_schema(
        request=FactWriteSerializer,
        responses={200: FactStoreResponseSerializer, 201: FactStoreResponseSerializer},
    )
    def post(self, request):
        data = _validated(FactWriteSerializer, request.data)
        entities = [_entity_or_none(eid, "entities") for eid in data["entities"]]
        result = services.fact_store(
            text=data["text"],
            subject=_entity_or_none(data["subject"], "subject"),
            predicate=data["predicate"],
            object_entity=_entity_or_none(data["object_entity"], "object_entity"),
            object_value=data["object_value"],
            entities=entities,
            confidence=data["confidence"],
            source=data["source"],
            client=data["client"] or getattr(request.auth, "key", "")[:8],
            valid_from=data["valid_from"],
            valid_to=data["valid_to"],
            kind=data["kind"],
            goal_status=data["goal_status"],
            resolved_by=data["resolved_by"],
            domain=data["domain"],
            scope=data["scope"],
            ai_id=data["ai_id"],
            session_id=data["session_id"],
            actor=request.user,
        )
        body = {"action": result.action, "fact": FactSerializer(result.fact).data}
        code = status.HTTP_201_CREATED if result.action == "created" else status.HTTP_200_OK
        return Response(body, status=code)


class FactDetailView(GenericAPIView):
    """Read or edit one fact. There is no DELETE (405): facts are retracted
    (``status: retracted``), never silently lost."""

    serializer_class = FactSerializer

    def get(self, request, fact_id: int):
        return Response(FactSerializer(selectors.fact_get(fact_id=fact_id)).data)

    @extend_schema(
        request=FactUpdateSerializer,
        responses=FactSerializer,
        summary="Edit a fact's text, literal, confidence, source, status or validity",
    )
    def patch(self, request, fact_id: int):
        fact = selectors.fact_get(fact_id=fact_id)
        data = _validated(FactUpdateSerializer, request.data)
        fact = services.fact_update(fact=fact, actor=request.user, **data)
        return Response(FactSerializer(selectors.fact_get(fact_id=fact.pk)).data)
