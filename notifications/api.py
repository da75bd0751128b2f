"""Notification endpoints: pending list, unread count, chat digest, mark read."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from entities.api import SCOPE_PARAMETERS, scopes_from_params
from entities.scopes import ScopeFilter
from kgsite.api import Recipient
from kgsite.schema import ErrorResponseSerializer

from . import selectors, services
from .serializers import (
    DigestSerializer,
    MarkReadResultSerializer,
    MarkReadSerializer,
    NotificationSerializer,
    PendingSerializer,
    UnreadCountSerializer,
)


def _scopes(request):
    """A view of the memory when the client names one (``scope`` or ``all_scopes``);
    without either, every notification the user may see (a curator's inbox)."""
    params = request.query_params
    if "scope" not in params and "all_scopes" not in params:
        return None
    return scopes_from_params(params)


SCOPED = (
    "With `scope` (or `all_scopes`), only notifications about that project's facts and "
    "global memory; without either, every notification the user may see."
)


class NotificationPendingView(GenericAPIView):
    permission_classes = [Recipient]
    serializer_class = PendingSerializer
    pagination_class = None

    @extend_schema(
        parameters=SCOPE_PARAMETERS,
        responses=PendingSerializer,
        operation_id="notifications_pending",
        summary="Unread notifications grouped by urgency",
        description=SCOPED,
    )
    def get(self, request):
        scopes = _scopes(request)
        groups = selectors.notification_pending(user=request.user, scopes=scopes)
        body = {u: NotificationSerializer(items, many=True).data for u, items in groups.items()}
        body["counts"] = selectors.notification_unread_count(user=request.user, scopes=scopes)
        return Response(body)


class NotificationUnreadCountView(GenericAPIView):
    permission_classes = [Recipient]
    serializer_class = UnreadCountSerializer

    @extend_schema(
        parameters=SCOPE_PARAMETERS,
        responses=UnreadCountSerializer,
        summary="Unread notifications by urgency",
        description=SCOPED,
    )
    def get(self, request):
        return Response(
            selectors.notification_unread_count(user=request.user, scopes=_scopes(request))
        )


class NotificationDigestView(GenericAPIView):
    permission_classes = [Recipient]
    serializer_class = DigestSerializer

    @extend_schema(
        parameters=SCOPE_PARAMETERS,
        responses=DigestSerializer,
        summary="For chat clients: HIGH items to show, one question for MEDIUM, a LOW badge",
        description=SCOPED,
    )
    def get(self, request):
        digest = selectors.notification_digest(user=request.user, scopes=_scopes(request))
        return Response(
            {
                "high": NotificationSerializer(digest.high, many=True).data,
                "high_count": digest.high_count,
                "medium": {"count": digest.medium_count, "question": digest.question},
                "badge": digest.low_count,
            }
        )


class NotificationMarkReadView(GenericAPIView):
    permission_classes = [Recipient]
    serializer_class = MarkReadSerializer

    @extend_schema(
        request=MarkReadSerializer,
        responses={
            200: MarkReadResultSerializer,
            404: OpenApiResponse(
                ErrorResponseSerializer, description="No notification of this user has that id."
            ),
        },
        operation_id="notifications_mark_read",
        summary="Mark the given notifications read, or all (optionally of one urgency)",
    )
    def post(self, request):
        serializer = MarkReadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        scoped = "scope" in data or "all_scopes" in data
        marked = services.notification_mark_read(
            user=request.user,
            ids=data.get("ids"),
            urgency=data["urgency"],
            everything=data["all"],
            scopes=ScopeFilter.of(data.get("scope", ""), data.get("all_scopes", False))
            if scoped
            else None,
        )
        return Response({"marked": marked})


class NotificationReadOneView(GenericAPIView):
    permission_classes = [Recipient]
    serializer_class = NotificationSerializer

    @extend_schema(
        request=None,
        responses={
            200: NotificationSerializer,
            404: OpenApiResponse(
                ErrorResponseSerializer, description="No notification of this user has that id."
            ),
        },
        operation_id="notification_mark_one_read",
        summary="Mark one read",
    )
    def post(self, request, notification_id: int):
        # Fetched first: an unknown id is a 404 naming the address's ``id``.
        selectors.notification_get(notification_id=notification_id, user=request.user)
        services.notification_mark_read(user=request.user, ids=[notification_id])
        notification = selectors.notification_get(
            notification_id=notification_id, user=request.user
        )
        return Response(NotificationSerializer(notification).data)
