"""Serializers of the entities.extraction API: request and response shapes, one place per app."""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from kgsite.errors import InvalidInput

from ..names import normalize_type
from ..serializers import StrictSerializer

NO_SCOPE_HELP = "Accepted as on every read; entity names are shared by every project."


class ExtractRequestSerializer(StrictSerializer):
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
    # Taken as every read takes them; entities belong to no project, so any view
    # answers the same.
    scope = serializers.CharField(
        required=False, allow_blank=True, max_length=128, help_text=NO_SCOPE_HELP
    )
    all_scopes = serializers.BooleanField(required=False, help_text=NO_SCOPE_HELP)

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
