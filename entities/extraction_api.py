"""HTTP endpoint for entity detection: parse the body, call ``extract_entities``, render."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from kgsite.api import Reader
from kgsite.errors import InvalidInput
from kgsite.schema import bad_request

from .extraction import extract_entities, group_by_type
from .services import normalize_type


class ExtractRequestSerializer(serializers.Serializer):
    # Whitespace is kept: offsets in the answer refer to the text exactly as sent.
    text = serializers.CharField(
        max_length=settings.KGSITE_MAX_EXTRACT_CHARS,
        trim_whitespace=False,
        help_text=f"At most {settings.KGSITE_MAX_EXTRACT_CHARS} characters "
        "(KGSITE_MAX_EXTRACT_CHARS); upload longer texts as a book.",
    )
    includeUnknown = serializers.BooleanField(default=False)  # noqa: N815 - API name
    groupByType = serializers.BooleanField(default=False)  # noqa: N815 - API name
    types = serializers.ListField(
        child=serializers.CharField(max_length=64), required=False, max_length=50
    )

    def validate_types(self, value: list[str]) -> list[str]:
        try:
            return [normalize_type(v) for v in value]
        except InvalidInput as exc:
            raise serializers.ValidationError(exc.message) from None


class CandidateSerializer(serializers.Serializer):
    id = serializers.CharField()
    canonical_name = serializers.CharField()
    type = serializers.CharField()


class DetectedEntitySerializer(serializers.Serializer):
    surface_form = serializers.CharField()
    canonical_id = serializers.CharField(allow_null=True, help_text="null: unknown or ambiguous")
    canonical_name = serializers.CharField()
    entity_type = serializers.CharField(help_text='"ambiguous" when candidates are listed')
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    candidates = CandidateSerializer(many=True)


class ExtractResponseSerializer(serializers.Serializer):
    entities = DetectedEntitySerializer(many=True, required=False)
    groups = serializers.DictField(child=DetectedEntitySerializer(many=True), required=False)
    count = serializers.IntegerField()


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
