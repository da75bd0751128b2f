"""Integrity endpoints: classify a pair, list contradictions, resolve and undo them."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from entities.api import SCOPE_PARAMETERS, scopes_from_params
from kgsite.api import Reader, paginated_response

from . import resolution, selectors
from .models import Contradiction
from .serializers import (
    ContradictionSerializer,
    PairCheckSerializer,
    ResolveSerializer,
    VerdictSerializer,
)


class PairCheckView(GenericAPIView):
    """Stores nothing, so any client may ask (throttled like every endpoint)."""

    serializer_class = PairCheckSerializer
    permission_classes = [Reader]
    throttle_scope = "extract"

    @extend_schema(
        request=PairCheckSerializer,
        responses=VerdictSerializer,
        summary="Classify one pair: contradiction, duplicate, compatible or uncertain",
    )
    def post(self, request):
        serializer = PairCheckSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        verdict = selectors.pair_classify(
            existing=data["existing"], new=data["new"], lang=data["lang"]
        )
        return Response(
            {
                "label": verdict.label,
                "kind": verdict.kind,
                "confidence": verdict.confidence,
                "explanation": verdict.explanation,
            }
        )


class ContradictionListView(GenericAPIView):
    serializer_class = ContradictionSerializer

    def get_queryset(self):
        p = self.request.query_params
        return selectors.contradiction_list(
            status=p.get("status"),
            kind=p.get("kind"),
            fact=p.get("fact"),
            scopes=scopes_from_params(p),
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=Contradiction.Status.values),
            OpenApiParameter("kind", OpenApiTypes.STR, enum=Contradiction.Kind.values),
            OpenApiParameter("fact", OpenApiTypes.INT, description="Involving this fact id."),
            *SCOPE_PARAMETERS,
        ],
        operation_id="contradictions_list",
        responses=ContradictionSerializer(many=True),
    )
    def get(self, request):
        return paginated_response(
            view=self, queryset=self.get_queryset(), serializer_class=ContradictionSerializer
        )


class ContradictionDetailView(GenericAPIView):
    serializer_class = ContradictionSerializer

    @extend_schema(
        parameters=SCOPE_PARAMETERS,
        description="A contradiction about a fact of another project than `scope` (global "
        "memory when absent) answers 404 unless `all_scopes` is true.",
    )
    def get(self, request, contradiction_id: int):
        contradiction = selectors.contradiction_get(
            contradiction_id=contradiction_id, scopes=scopes_from_params(request.query_params)
        )
        return Response(ContradictionSerializer(contradiction).data)


class ContradictionResolveView(GenericAPIView):
    serializer_class = ResolveSerializer

    @extend_schema(
        request=ResolveSerializer,
        responses=ContradictionSerializer,
        summary="Resolve: the losing fact is superseded (retracted for drop_both)",
    )
    def post(self, request, contradiction_id: int):
        contradiction = selectors.contradiction_get(contradiction_id=contradiction_id)
        serializer = ResolveSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        resolution.contradiction_resolve(
            contradiction=contradiction,
            resolution=data["resolution"],
            note=data["note"],
            actor=request.user,
        )
        contradiction = selectors.contradiction_get(contradiction_id=contradiction_id)
        return Response(ContradictionSerializer(contradiction).data)


class ContradictionUndoView(GenericAPIView):
    serializer_class = ContradictionSerializer

    @extend_schema(
        request=None,
        responses=ContradictionSerializer,
        summary="Undo a resolution: both facts get their previous state back",
    )
    def post(self, request, contradiction_id: int):
        contradiction = selectors.contradiction_get(contradiction_id=contradiction_id)
        resolution.contradiction_undo(contradiction=contradiction, actor=request.user)
        contradiction = selectors.contradiction_get(contradiction_id=contradiction_id)
        return Response(ContradictionSerializer(contradiction).data)
