"""HTTP endpoints of the entity graph: parse input, call one service or selector, render."""

from __future__ import annotations

from django.db import transaction
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from kgsite.api import paginated_response, validated
from kgsite.errors import DomainError, InvalidInput, NotFound
from kgsite.schema import ErrorResponseSerializer

from . import confirmations, selectors, services
from .graph import selectors as graph_selectors
from .models import Fact
from .scopes import ScopeFilter
from .serializers import (
    AliasSerializer,
    AliasWriteSerializer,
    DuplicateSuggestionSerializer,
    EntityMovedSerializer,
    EntitySerializer,
    EntityUpdateSerializer,
    EntityWriteSerializer,
    FactConfirmationUndoResponseSerializer,
    FactDetailSerializer,
    FactRefSerializer,
    FactSerializer,
    FactStoreResponseSerializer,
    FactUpdateSerializer,
    FactWriteSerializer,
    LookupQuerySerializer,
    LookupResponseSerializer,
    MergePreviewSerializer,
    MergeRequestSerializer,
    MergeResponseSerializer,
    MergeSerializer,
    MergeUndoResponseSerializer,
    ScopeQuerySerializer,
)


def scopes_from_params(params) -> ScopeFilter:
    data = validated(ScopeQuerySerializer, params)
    return ScopeFilter.of(data["scope"], data["all_scopes"])


SCOPE_PARAMETERS = [
    OpenApiParameter("scope", OpenApiTypes.STR, description=ScopeQuerySerializer.SCOPE_HELP),
    OpenApiParameter(
        "all_scopes", OpenApiTypes.BOOL, description=ScopeQuerySerializer.ALL_SCOPES_HELP
    ),
]


class EntityLookupView(GenericAPIView):
    serializer_class = LookupResponseSerializer
    throttle_scope = "suggest"

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
        params = validated(LookupQuerySerializer, request.query_params)
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
        ).prefetch_related("aliases", "external_ids", "external_facts")

    @extend_schema(
        parameters=[
            OpenApiParameter("type", OpenApiTypes.STR),
            OpenApiParameter("prefix", OpenApiTypes.STR, description="Name prefix."),
            *SCOPE_PARAMETERS,
        ],
        operation_id="entities_list",
        description="Entities belong to no project: every view of the memory lists the "
        "same ones. `scope` and `all_scopes` are taken (and checked) as on every read, so "
        "a client that sends its project with each call is not refused here.",
        responses=EntitySerializer(many=True),
    )
    def get(self, request):
        scopes_from_params(request.query_params)  # a malformed scope is a 400 here too
        return paginated_response(
            view=self, queryset=self.get_queryset(), serializer_class=EntitySerializer
        )

    @extend_schema(
        request=EntityWriteSerializer, responses={200: EntitySerializer, 201: EntitySerializer}
    )
    def post(self, request):
        data = validated(EntityWriteSerializer, request.data)
        with transaction.atomic():
            try:
                entity, created = services.entity_store(
                    name=data["canonical_name"],
                    type=data["type"],
                    description=data["description"],
                    actor=request.user,
                )
            except DomainError as exc:
                _rename_field(exc, "name", "canonical_name")  # the body's field
                raise
            for i, alias in enumerate(data["aliases"]):
                try:
                    services.alias_add(entity=entity, alias=alias, actor=request.user)
                except DomainError as exc:
                    exc.field = f"aliases.{i}"  # the body's list item (it has no "alias")
                    raise
        return Response(
            EntitySerializer(entity).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


def _rename_field(exc: DomainError, service_field: str, body_field: str) -> None:
    """A service's error about ``service_field`` named as the body calls it, in its
    field and in its message ("name must not be empty" for ``canonical_name``)."""
    if exc.field != service_field:
        return
    exc.field = body_field
    if exc.message.startswith(f"{service_field} "):
        exc.message = body_field + exc.message[len(service_field) :]


class EntityDetailView(GenericAPIView):
    serializer_class = EntitySerializer

    @extend_schema(
        parameters=SCOPE_PARAMETERS,
        responses={200: EntitySerializer, 301: EntityMovedSerializer},
        description="An id merged into another entity answers 301 to the survivor, with "
        "`merged_into` in the body.",
    )
    def get(self, request, entity_id: str):
        try:
            entity = selectors.entity_get(entity_id=entity_id)
        except NotFound:
            target = selectors.entity_redirect_target(entity_id=entity_id)
            if target is None:
                raise
            location = reverse("entity-detail", args=[target])
            body = {"id": entity_id, "merged_into": target, "location": location}
            return Response(
                body, status=status.HTTP_301_MOVED_PERMANENTLY, headers={"Location": location}
            )
        scopes = scopes_from_params(request.query_params)
        return Response(EntitySerializer(entity, context={"scopes": scopes}).data)

    @extend_schema(request=EntityUpdateSerializer, responses=EntitySerializer)
    def patch(self, request, entity_id: str):
        entity = selectors.entity_named(entity_id=entity_id, field="id")
        data = validated(EntityUpdateSerializer, request.data)
        entity = services.entity_update(entity=entity, actor=request.user, **data)
        return Response(EntitySerializer(entity).data)


class AliasListView(GenericAPIView):
    serializer_class = AliasSerializer
    pagination_class = None

    @extend_schema(responses=AliasSerializer(many=True))
    def get(self, request, entity_id: str):
        entity = selectors.entity_named(entity_id=entity_id, field="id")
        return Response(AliasSerializer(entity.aliases.all(), many=True).data)

    @extend_schema(
        request=AliasWriteSerializer, responses={200: AliasSerializer, 201: AliasSerializer}
    )
    def post(self, request, entity_id: str):
        entity = selectors.entity_named(entity_id=entity_id, field="id")
        data = validated(AliasWriteSerializer, request.data)
        alias, created = services.alias_add(entity=entity, alias=data["alias"], actor=request.user)
        return Response(
            AliasSerializer(alias).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class AliasDetailView(GenericAPIView):
    serializer_class = AliasSerializer

    @extend_schema(responses={204: None})
    def delete(self, request, entity_id: str, alias: str):
        entity = selectors.entity_named(entity_id=entity_id, field="id")
        services.alias_remove(entity=entity, alias=alias, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _entity_or_none(entity_id: str | None, field: str, *, known: dict | None = None):
    """An entity referenced from a request body: its id, an imported id, or its canonical
    name or alias, as MCP's ``fact_store`` takes it (the same resolver); a value that is
    none of them is a 400 naming the field, never a guess. ``known``: entities already
    read by id (``_entities_known``), so a body naming several costs one read."""
    if not entity_id:
        return None
    if known and entity_id in known:
        return known[entity_id]
    try:
        return selectors.entity_named(entity_id=entity_id, field=field)
    except NotFound as exc:  # says where a merged-away id went
        if selectors.entity_redirect_target(entity_id=entity_id.strip()) is None:
            by_name = graph_selectors.entity_resolve(entity_id, field=field)
            if by_name is not None:
                return by_name
        raise InvalidInput(exc.message, field=field) from None


def _entities_known(ids) -> dict:
    """The entities of these ids, read at once; an id not among them (an imported
    memory's id, an unknown one) is left to ``_entity_or_none``."""
    return selectors.entities_by_pk(ids=[pk for pk in ids if pk])


class FactListView(GenericAPIView):
    serializer_class = FactSerializer

    def get_queryset(self):
        p = self.request.query_params
        entity = (p.get("entity") or "").strip()  # as GET /facts/search reads it
        if entity:  # an unknown or merged-away id is an error, not an empty list
            # Our id, or an imported memory's (as the entity's own address takes).
            entity = selectors.entity_named(entity_id=entity, field="entity").pk
        return selectors.fact_list(
            entity=entity,
            status=p.get("status"),
            source=p.get("source"),
            kind=p.get("kind"),
            scopes=scopes_from_params(p),
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
        description="An unknown or merged-away `entity` is a 404 naming the field (a "
        "merged one says where it went), not an empty list.",
        responses=FactSerializer(many=True),
    )
    def get(self, request):
        return paginated_response(
            view=self, queryset=self.get_queryset(), serializer_class=FactSerializer
        )

    @extend_schema(
        request=FactWriteSerializer,
        responses={200: FactStoreResponseSerializer, 201: FactStoreResponseSerializer},
    )
    def post(self, request):
        data = validated(FactWriteSerializer, request.data)
        known = _entities_known([*data["entities"], data["subject"], data["object_entity"]])
        entities = [
            _entity_or_none(eid, f"entities.{i}", known=known)
            for i, eid in enumerate(data["entities"])
        ]
        result = services.fact_store(
            text=data["text"],
            subject=_entity_or_none(data["subject"], "subject", known=known),
            predicate=data["predicate"],
            object_entity=_entity_or_none(data["object_entity"], "object_entity", known=known),
            object_value=data["object_value"],
            entities=entities,
            confidence=data["confidence"],
            source=data["source"],
            # As the caller says: never derived from its token (a secret).
            client=data["client"],
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
        selectors.facts_links_load(facts=[result.fact])
        body = {"action": result.action, "fact": FactSerializer(result.fact).data}
        code = status.HTTP_201_CREATED if result.action == "created" else status.HTTP_200_OK
        return Response(body, status=code)


class FactRefsView(GenericAPIView):
    """Facts by id: ours, or fact ids of an imported memory (``import_entity_kg``)."""

    serializer_class = FactRefSerializer
    pagination_class = None

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "ids",
                OpenApiTypes.STR,
                required=True,
                description="Comma-separated: our fact ids or an imported memory's fact ids "
                f"(at most {selectors.MAX_FACT_REFS}).",
            ),
            *SCOPE_PARAMETERS,
        ],
        responses=FactRefSerializer(many=True),
        summary="Resolve fact ids, ours or an imported memory's, in the order asked",
        description="An imported id resolves to the fact it became, else to an external "
        "reference (`external: true`, the entities it was linked to); an id outside the "
        "reader's scope or unknown answers `found: false`.",
    )
    def get(self, request):
        raw = request.query_params.get("ids", "")
        ids = [part.strip() for part in raw.split(",") if part.strip()]
        resolved = selectors.fact_refs_resolve(
            ids=ids, scopes=scopes_from_params(request.query_params)
        )
        for row in resolved:
            row["fact"] = FactSerializer(row["fact"]).data if row["fact"] is not None else None
        return Response(resolved)


class FactDetailView(GenericAPIView):
    """Read or edit one fact. There is no DELETE (405): facts are retracted
    (``status: retracted``), never silently lost."""

    serializer_class = FactDetailSerializer

    @extend_schema(
        parameters=SCOPE_PARAMETERS,
        description="A fact of another project than `scope` (global memory when absent) "
        "answers 404 unless `all_scopes` is true.",
    )
    def get(self, request, fact_id: int):
        fact = selectors.fact_get(fact_id=fact_id, scopes=scopes_from_params(request.query_params))
        return Response(FactDetailSerializer(fact).data)

    @extend_schema(
        request=FactUpdateSerializer,
        responses=FactSerializer,
        summary="Edit a fact's text, literal, confidence, source, status or validity",
    )
    def patch(self, request, fact_id: int):
        fact = selectors.fact_get(fact_id=fact_id)
        data = validated(FactUpdateSerializer, request.data)
        fact = services.fact_update(fact=fact, actor=request.user, **data)
        return Response(FactSerializer(selectors.fact_get(fact_id=fact.pk)).data)


class FactConfirmationUndoView(GenericAPIView):
    """Curators only (a write): the swallowed statement becomes a fact of its own."""

    serializer_class = FactConfirmationUndoResponseSerializer

    @extend_schema(
        request=None,
        responses={201: FactConfirmationUndoResponseSerializer},
        summary="Undo a confirmation: store the statement it folded in as its own fact",
    )
    def post(self, request, fact_id: int, confirmation_id: int):
        confirmation = confirmations.fact_confirmation_get(confirmation_id=confirmation_id)
        if confirmation.fact_id != fact_id:
            raise NotFound(f"fact {fact_id} has no confirmation {confirmation_id}", field="id")
        restored = confirmations.fact_confirmation_undo(
            confirmation_id=confirmation_id, actor=request.user
        )
        old = selectors.fact_get(fact_id=fact_id)
        body = {"fact": FactSerializer(old).data, "restored": FactSerializer(restored).data}
        return Response(body, status=status.HTTP_201_CREATED)


# --- merges and duplicate suggestions ---------------------------------------------------


def _entities_by_id(ids: list[str], field: str) -> list:
    """Entities named in a request's list (a merge's duplicates): our ids or an imported
    memory's, as the entity's own address takes; an unknown id is a 404 naming its item
    (``duplicates.2``), a merged-away one says where it went."""
    found = selectors.entities_by_pk(ids=ids)
    return [
        found.get(pk) or selectors.entity_named(entity_id=pk, field=f"{field}.{i}")
        for i, pk in enumerate(ids)
    ]


class EntityMergeView(GenericAPIView):
    serializer_class = MergeResponseSerializer

    @extend_schema(
        request=MergeRequestSerializer,
        responses={
            200: PolymorphicProxySerializer(
                component_name="MergeAnswer",
                serializers=[MergeResponseSerializer, MergePreviewSerializer],
                resource_type_field_name=None,
            ),
            404: OpenApiResponse(ErrorResponseSerializer, description="An unknown entity id."),
        },
        summary="Merge duplicates into a survivor, or preview what would move",
        description="With `preview: true` nothing is written and the answer is the "
        "preview. Unknown ids are a 404, the survivor among the duplicates a 400, "
        "entities of another type without `allow_cross_type` a 409.",
    )
    def post(self, request):
        data = validated(MergeRequestSerializer, request.data)
        survivor = selectors.entity_named(entity_id=data["survivor"], field="survivor")
        duplicates = _entities_by_id(data["duplicates"], "duplicates")
        try:
            outcome = services.entity_merge(
                survivor=survivor,
                duplicates=duplicates,
                actor=request.user,
                allow_cross_type=data["allow_cross_type"],
                preview=data["preview"],
            )
        except DomainError as exc:
            at = [i for i, d in enumerate(duplicates) if d.pk == survivor.pk]
            if exc.field == "duplicates" and at:  # the item that names the survivor
                exc.field = f"duplicates.{at[0]}"
            raise
        plan = outcome.plan.as_dict()
        if outcome.merge is None:
            return Response(plan)
        survivor = selectors.entity_get(entity_id=survivor.pk)
        return Response(
            {
                "merge": MergeSerializer(outcome.merge).data,
                "survivor": EntitySerializer(survivor).data,
                "conflicts": plan["conflicts"],
            }
        )


class MergeListView(GenericAPIView):
    serializer_class = MergeSerializer

    @extend_schema(operation_id="merges_list", responses=MergeSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(selectors.merge_list())
        return self.get_paginated_response(MergeSerializer(page, many=True).data)


class MergeUndoView(GenericAPIView):
    serializer_class = MergeUndoResponseSerializer

    @extend_schema(
        request=None,
        responses=MergeUndoResponseSerializer,
        summary="Undo a merge exactly (409 naming what changed if that is impossible)",
    )
    def post(self, request, merge_id: int):
        merge = services.entity_merge_undo(
            merge=selectors.merge_get(merge_id=merge_id), actor=request.user
        )
        restored = selectors.entity_list().filter(pk__in=merge.duplicate_ids)
        return Response(
            {
                "merge": MergeSerializer(merge).data,
                "restored": EntitySerializer(restored.prefetch_related("aliases"), many=True).data,
            }
        )


class DuplicateListView(GenericAPIView):
    serializer_class = DuplicateSuggestionSerializer

    @extend_schema(
        parameters=[OpenApiParameter("entity", OpenApiTypes.STR, description="Entity id.")],
        operation_id="entities_duplicates_list",
        responses=DuplicateSuggestionSerializer(many=True),
        summary="Likely duplicate pairs waiting for a curator, best evidence first",
        description="An unknown or merged-away `entity` is a 404 naming the field (a "
        "merged one says where it went), as for the fact list.",
    )
    def get(self, request):
        entity_id = (request.query_params.get("entity") or "").strip()
        entity = selectors.entity_named(entity_id=entity_id, field="entity") if entity_id else None
        page = self.paginate_queryset(selectors.duplicate_suggestions_pending(entity=entity))
        return self.get_paginated_response(DuplicateSuggestionSerializer(page, many=True).data)


class DuplicateDismissView(GenericAPIView):
    serializer_class = DuplicateSuggestionSerializer

    @extend_schema(request=None, responses=DuplicateSuggestionSerializer)
    def post(self, request, suggestion_id: int):
        suggestion = selectors.duplicate_suggestion_get(suggestion_id=suggestion_id)
        suggestion = services.duplicate_dismiss(suggestion=suggestion, actor=request.user)
        return Response(DuplicateSuggestionSerializer(suggestion).data)
