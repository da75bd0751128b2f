"""Serializers of the notifications API: request and response shapes, one place per app."""

from __future__ import annotations

from rest_framework import serializers

from entities.serializers import ALL_SCOPES_HELP, SCOPE_HELP, StrictSerializer
from kgsite.converters import MAX_ID

from .models import Notification


class NotificationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Notification
        fields = [
            "id",
            "type",
            "urgency",
            "title",
            "payload",
            "link",
            "read",
            "scope",
            "created_at",
        ]


class PendingSerializer(serializers.Serializer):
    high = NotificationSerializer(many=True)
    medium = NotificationSerializer(many=True)
    low = NotificationSerializer(many=True)
    counts = serializers.DictField(child=serializers.IntegerField())


class UnreadCountSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    high = serializers.IntegerField()
    medium = serializers.IntegerField()
    low = serializers.IntegerField()


class DigestMediumSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    question = serializers.CharField(help_text='"I have N notifications; show them?" or empty.')


class DigestSerializer(serializers.Serializer):
    high = NotificationSerializer(many=True, help_text="Show these before the next answer.")
    high_count = serializers.IntegerField()
    medium = DigestMediumSerializer()
    badge = serializers.IntegerField(help_text="Unread LOW notifications.")


class MarkReadSerializer(StrictSerializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        allow_empty=False,
        max_length=1000,
    )
    all = serializers.BooleanField(required=False, default=False)
    urgency = serializers.ChoiceField(
        choices=Notification.Urgency.values, required=False, allow_null=True, default=None
    )
    # As the reads' query parameters: only notices of that view of the memory are marked.
    scope = serializers.CharField(
        required=False, allow_blank=True, max_length=128, help_text=SCOPE_HELP
    )
    all_scopes = serializers.BooleanField(required=False, help_text=ALL_SCOPES_HELP)

    def validate(self, attrs):
        if "ids" not in attrs and not attrs["all"]:
            raise serializers.ValidationError({"ids": "give ids, or all=true"})
        return super().validate(attrs)


class MarkReadResultSerializer(serializers.Serializer):
    marked = serializers.IntegerField()
