"""Serializers of the integrity API: request and response shapes, one place per app."""

from __future__ import annotations

from rest_framework import serializers

from entities.serializers import StrictSerializer
from integrity.detection.tokens import LANGS

from . import selectors
from .models import Contradiction
from .resolution import MAX_NOTE


class PairCheckSerializer(StrictSerializer):
    existing = serializers.CharField(trim_whitespace=False, max_length=selectors.MAX_PAIR_TEXT)
    new = serializers.CharField(trim_whitespace=False, max_length=selectors.MAX_PAIR_TEXT)
    lang = serializers.ChoiceField(
        choices=list(LANGS),
        required=False,
        allow_null=True,
        default=None,
        help_text="Language of both texts; guessed when absent.",
    )


class VerdictSerializer(serializers.Serializer):
    label = serializers.ChoiceField(
        choices=["contradiction", "duplicate", "compatible", "uncertain"],
        help_text="uncertain: probably the same subject and attribute, but no clear "
        "verdict; a curator should check (the background check raises a LOW notification).",
    )
    kind = serializers.ChoiceField(
        choices=Contradiction.Kind.values,
        allow_null=True,
        help_text="What conflicts, for a contradiction.",
    )
    confidence = serializers.FloatField()
    explanation = serializers.CharField()


class FactBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    status = serializers.CharField()
    valid_to = serializers.DateTimeField(allow_null=True)


class ContradictionSerializer(serializers.ModelSerializer):
    fact_a = FactBriefSerializer(help_text="The older fact (“the first”).")
    fact_b = FactBriefSerializer(help_text="The newer fact (“the second”).")
    resolved_by = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="The curator who resolved it; null while it is open.",
    )

    class Meta:
        model = Contradiction
        fields = [
            "id",
            "fact_a",
            "fact_b",
            "kind",
            "confidence",
            "explanation",
            "status",
            "resolution",
            "note",
            "resolved_by",
            "resolved_at",
            "created_at",
        ]


class ResolveSerializer(StrictSerializer):
    resolution = serializers.ChoiceField(
        choices=Contradiction.Resolution.values,
        help_text="keep_first (the older fact), keep_second, both_true (needs a note), drop_both.",
    )
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=MAX_NOTE)
