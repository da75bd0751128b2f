"""HTTP endpoint for entity detection: parse the body, call ``extract_entities``, render."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from kgsite.api import Reader
from kgsite.schema import bad_request

from .gazetteer import extract_entities, group_by_type
from .serializers import (
    ExtractRequestSerializer,
    ExtractResponseSerializer,
)


class ExtractEntitiesView(GenericAPIView):
    """Detection is a read, sent as POST only because texts are long: open to readers."""

    permission_classes = [Reader]
    throttle_scope = "extract"
    serializer_class = ExtractRequestSerializer

    @extend_schema(
        request=ExtractRequestSerializer,
        responses={
            200: ExtractResponseSerializer,
            400: bad_request("text", "text: This field is required."),
        },
        operation_id="extract_entities",
        summary="Find the known (and optionally unknown) entities a text mentions",
    )
    def post(self, request):
        serializer = ExtractRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        params = serializer.validated_data
        found = extract_entities(
            params["text"], include_unknown=params["includeUnknown"], types=params.get("types")
        )
        if params["groupByType"]:
            groups = {
                key: [d.as_dict() for d in items] for key, items in group_by_type(found).items()
            }
            return Response({"groups": groups, "count": len(found)})
        return Response({"entities": [d.as_dict() for d in found], "count": len(found)})
