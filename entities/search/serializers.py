"""Serializers of the entities.search API: request and response shapes, one place per app."""

from __future__ import annotations

from rest_framework import serializers

from kgsite.errors import InvalidInput

from ..models import Fact
from ..names import normalize_type
from ..serializers import ALL_SCOPES_HELP, SCOPE_HELP, StrictSerializer
from . import ranking


class ScopeFieldsMixin(serializers.Serializer):
    scope = serializers.CharField(
        required=False, allow_blank=True, max_length=128, default="", help_text=SCOPE_HELP
    )
    all_scopes = serializers.BooleanField(required=False, default=False, help_text=ALL_SCOPES_HELP)


class EntitySearchRequestSerializer(StrictSerializer, ScopeFieldsMixin):
    entities = serializers.ListField(
        child=serializers.CharField(max_length=512, allow_blank=False),
        min_length=1,
        max_length=20,
        help_text="Entity names, aliases or ids to search memories about (1 to 20).",
    )
    entityTypes = serializers.ListField(  # noqa: N815 - the API's published field name
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=20,
        help_text="Only resolve and count entities of these types.",
    )
    matchMode = serializers.ChoiceField(  # noqa: N815
        choices=ranking.MATCH_MODES,
        default="any",
        help_text="any: rank every candidate; all: keep only facts naming every entity.",
    )
    topK = serializers.IntegerField(min_value=1, max_value=50, default=10)  # noqa: N815
    minScore = serializers.FloatField(min_value=0, max_value=1, default=0.2)  # noqa: N815
    includeContent = serializers.BooleanField(default=False)  # noqa: N815
    boostExactMatch = serializers.FloatField(  # noqa: N815
        min_value=1,
        max_value=10,
        default=1.3,
        help_text="Score multiplier for a fact naming every query entity (partial: "
        "proportionally less).",
    )

    def validate_entityTypes(self, value: list[str]) -> list[str]:  # noqa: N802 - field name
        try:
            return [normalize_type(v) for v in value]
        except InvalidInput as exc:
            raise serializers.ValidationError(exc.message) from None


INDEX_COMPLETE_HELP = (
    "False while the vector index is being rebuilt in the background (it was missing and "
    "the store is large): results come from the facts indexed so far."
)


class CandidateEntitySerializer(serializers.Serializer):
    id = serializers.CharField()
    canonical_name = serializers.CharField()
    type = serializers.CharField()


class QueryEntitySerializer(serializers.Serializer):
    name = serializers.CharField()
    canonical_id = serializers.CharField(allow_null=True)
    canonical_name = serializers.CharField(allow_null=True)
    entity_type = serializers.CharField(allow_null=True)
    resolved = serializers.BooleanField()
    candidates = CandidateEntitySerializer(many=True)


class EntitySearchHitSerializer(serializers.Serializer):
    memory_id = serializers.IntegerField(help_text="The fact's id.")
    score = serializers.FloatField()
    similarity = serializers.FloatField(help_text="Cosine similarity to the query names.")
    entity_overlap = serializers.FloatField(help_text="Jaccard of query and fact entities.")
    matched_entities = serializers.ListField(child=serializers.CharField())
    content = serializers.CharField(required=False, help_text="Only with includeContent.")


class EntitySearchResponseSerializer(serializers.Serializer):
    results = EntitySearchHitSerializer(many=True)
    detected_query_entities = QueryEntitySerializer(many=True)
    total_candidates = serializers.IntegerField()
    index_complete = serializers.BooleanField(help_text=INDEX_COMPLETE_HELP)
    search_time_ms = serializers.FloatField()


class FactSearchQuerySerializer(ScopeFieldsMixin):
    q = serializers.CharField(max_length=2000, help_text="What the facts should be about.")
    k = serializers.IntegerField(min_value=1, max_value=50, default=10)
    entity = serializers.CharField(
        required=False,
        max_length=255,
        help_text="Only facts linked to this entity (its id, or an imported memory's).",
    )
    status = serializers.ChoiceField(
        choices=[*Fact.Status.values, ranking.STATUS_ALL], default="active"
    )
    source = serializers.CharField(required=False, max_length=255)
    kind = serializers.ChoiceField(
        choices=Fact.Kind.values,
        required=False,
        help_text="Only facts of this kind (a goal, a decision, ...), as MCP facts_search.",
    )
    minScore = serializers.FloatField(min_value=0, max_value=1, default=0.0)  # noqa: N815


class FactSearchEntitySerializer(CandidateEntitySerializer):
    role = serializers.CharField()


class FactSearchHitSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    score = serializers.FloatField(help_text="Cosine similarity to q.")
    text = serializers.CharField()
    status = serializers.CharField()
    source = serializers.CharField()
    confidence = serializers.FloatField()
    kind = serializers.ChoiceField(choices=Fact.Kind.values)
    scope = serializers.CharField(help_text="Its project (empty: global memory).")
    entities = FactSearchEntitySerializer(many=True)


class FactSearchResponseSerializer(serializers.Serializer):
    results = FactSearchHitSerializer(many=True)
    index_complete = serializers.BooleanField(help_text=INDEX_COMPLETE_HELP)
    search_time_ms = serializers.FloatField()
