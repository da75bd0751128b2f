"""Read-side queries for notifications: pending by urgency, unread counts, chat digest."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Q, QuerySet

from entities.scopes import ScopeFilter
from kgsite.errors import NotFound
from kgsite.pages import is_curator
from kgsite.times import timestamp

from .models import Notification

URGENCIES = Notification.Urgency.values  # high, medium, low: the order clients show them in
PENDING_LIMIT = 100  # per urgency; the unread count tells how many more there are
DIGEST_HIGH_LIMIT = 20


def visible_to(user) -> Q:
    """A user's own notifications, plus the broadcasts (addressed to every curator) when
    the user is a curator. ``None`` is the system itself (a command, a task): the
    broadcasts. An anonymous caller sees nothing."""
    if user is None:
        return Q(recipient__isnull=True)
    if not getattr(user, "is_authenticated", False):
        return Q(pk__in=[])
    if is_curator(user):
        return Q(recipient__isnull=True) | Q(recipient=user)
    return Q(recipient=user)


def _visible(user, scopes: ScopeFilter | None = None) -> QuerySet[Notification]:
    """What ``user`` may see; with ``scopes``, only notices of that view of the memory."""
    qs = Notification.objects.filter(visible_to(user))
    return qs if scopes is None else qs.filter(scopes.q())


def notification_get(*, notification_id: int, user=None) -> Notification:
    try:
        return _visible(user).get(pk=notification_id)
    except Notification.DoesNotExist:
        raise NotFound(f"no notification with id {notification_id}", field="id") from None


def notification_pending(
    *, user=None, limit: int = PENDING_LIMIT, scopes: ScopeFilter | None = None
) -> dict[str, list[Notification]]:
    """Unread notifications grouped by urgency, newest first within each group."""
    unread = _visible(user, scopes).filter(read=False).order_by("-created_at", "-id")
    return {urgency: list(unread.filter(urgency=urgency)[:limit]) for urgency in URGENCIES}


def notification_unread_count(*, user=None, scopes: ScopeFilter | None = None) -> dict[str, int]:
    rows = _visible(user, scopes).filter(read=False).values("urgency").annotate(n=Count("id"))
    counts = {urgency: 0 for urgency in URGENCIES}
    for row in rows:
        counts[row["urgency"]] = row["n"]
    return {"total": sum(counts.values()), **counts}


@dataclass
class Digest:
    """What a chat client shows before its next answer.

    HIGH items are shown in full; MEDIUM ones become one question; LOW ones only a badge.
    Nothing is marked read here: the client marks what it showed.
    """

    high: list[Notification] = field(default_factory=list)
    high_count: int = 0
    medium_count: int = 0
    low_count: int = 0

    @property
    def question(self) -> str:
        n = self.medium_count
        if n == 0:
            return ""
        if n == 1:
            return "I have 1 notification; show it?"
        return f"I have {n} notifications; show them?"


def notification_digest(*, user=None, scopes: ScopeFilter | None = None) -> Digest:
    counts = notification_unread_count(user=user, scopes=scopes)
    high = (
        _visible(user, scopes)
        .filter(read=False, urgency=Notification.Urgency.HIGH)
        .order_by("created_at", "id")[:DIGEST_HIGH_LIMIT]
    )
    return Digest(
        high=list(high),
        high_count=counts["high"],
        medium_count=counts["medium"],
        low_count=counts["low"],
    )


def _brief(notification: Notification) -> dict:
    return {
        "id": notification.pk,
        "type": notification.type,
        "title": notification.title,
        "link": notification.link,
        "created_at": timestamp(notification.created_at),
    }


def notification_high_pending(*, scopes: ScopeFilter | None = None) -> list[dict]:
    """Unread broadcast HIGH notifications of the reader's view, oldest first
    (session-start recall; default: global memory's)."""
    return [_brief(n) for n in notification_digest(scopes=scopes or ScopeFilter()).high]


def _full(notification: Notification) -> dict:
    """A notification with every field GET /notifications/digest shows (HIGH items are
    shown in full: the payload holds what a contradiction is about)."""
    return {
        **_brief(notification),
        "urgency": notification.urgency,
        "payload": notification.payload,
        "read": notification.read,
        "scope": notification.scope,
    }


def notification_digest_dict(*, scopes: ScopeFilter | None = None) -> dict:
    """The chat digest of the reader's view as plain data, its HIGH items as full as
    the REST digest's (the MCP server's ``notifications_digest`` tool; default: global
    memory's)."""
    digest = notification_digest(scopes=scopes or ScopeFilter())
    return {
        "high": [_full(n) for n in digest.high],
        "high_count": digest.high_count,
        "medium": {"count": digest.medium_count, "question": digest.question},
        "badge": digest.low_count,
    }
