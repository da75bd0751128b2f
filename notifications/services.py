"""Write services for notifications: create (idempotent by key) and mark read."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from entities.scopes import ScopeFilter, scope_clean
from kgsite.errors import InvalidInput, NotFound

from .models import Notification
from .selectors import visible_to


def _choice(value: object, choices: list[str], field: str) -> str:
    if not isinstance(value, str) or value not in choices:
        raise InvalidInput(f"{field} must be one of {', '.join(choices)}", field=field)
    return value


def _series_lock(series: str) -> None:
    """Writers of one series take turns until their transaction ends, so two events at
    once do not both find no unread notice and both raise one. PostgreSQL: an advisory
    lock on the series; SQLite's IMMEDIATE transactions already let one writer in."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [series])


@transaction.atomic
def notification_create(
    *,
    type: str,  # noqa: A002 - the product's own field name
    urgency: str,
    title: str,
    payload: dict | None = None,
    link: str = "",
    recipient=None,
    key: str = "",
    series: str = "",
    scope: str = "",
) -> Notification:
    """Record a notification; with a ``key``, a second call returns the first row.

    With a ``series`` (a prefix of ``key``), a call while a notification of the series
    is still unread returns that one instead: one notice per outage, not one per event.
    Other apps call this (books: ``type="job_failed"``); ``recipient=None`` addresses
    every curator. ``scope`` is the project of the facts it is about (default global).
    """
    _choice(type, Notification.Type.values, "type")
    _choice(urgency, Notification.Urgency.values, "urgency")
    if not isinstance(title, str) or not title.strip():
        raise InvalidInput("title must not be empty", field="title")
    if payload is not None and not isinstance(payload, dict):
        raise InvalidInput("payload must be an object", field="payload")
    key = key[:128]
    if series:
        if not key.startswith(series):
            raise InvalidInput("key must start with its series", field="key")
        _series_lock(series)
        unread = Notification.objects.filter(key__startswith=series, read=False).first()
        if unread is not None:
            return unread
    if key:
        existing = Notification.objects.filter(key=key).first()
        if existing is not None:
            return existing
    fields = {
        "type": type,
        "urgency": urgency,
        "title": title.strip()[:255],
        "payload": payload or {},
        "link": link[:512],
        "recipient": recipient,
        "key": key,
        "scope": scope_clean(scope),
    }
    try:
        with transaction.atomic():
            return Notification.objects.create(**fields)
    except IntegrityError:
        if key:  # another writer stored the same key first
            return Notification.objects.get(key=key)
        raise


@transaction.atomic
def notification_mark_read(
    *,
    user,
    ids: Iterable[int] | None = None,
    urgency: str | None = None,
    everything: bool = False,
    scopes: ScopeFilter | None = None,
    among: Iterable[int] | None = None,
) -> int:
    """Mark notifications read: the given ids, or all unread ones (optionally one urgency);
    with ``scopes``, only notices of that view of the memory (as the reads filter); with
    ``among``, only those ids (what a panel showed: not a notice raised or reopened since,
    and no error for one gone meanwhile).

    Returns how many changed; an id the user cannot see is a 404 naming it.
    """
    qs = Notification.objects.filter(visible_to(user))
    if scopes is not None:
        qs = qs.filter(scopes.q())
    if ids is not None:
        ids = list(ids)
        found = set(qs.filter(pk__in=set(ids)).values_list("pk", flat=True))
        for i, pk in enumerate(ids):
            if pk not in found:  # named as the list's item, as every list of the API is
                raise NotFound(f"no notification with id {pk}", field=f"ids.{i}")
        qs = qs.filter(pk__in=found)
    elif not everything:
        raise InvalidInput("give ids, or all=true", field="ids")
    if urgency is not None:
        qs = qs.filter(urgency=_choice(urgency, Notification.Urgency.values, "urgency"))
    if among is not None:
        qs = qs.filter(pk__in=set(among))
    return qs.filter(read=False).update(read=True, read_at=timezone.now())


@transaction.atomic
def notification_mark_read_by_key(*, key: str, prefix: bool = False) -> int:
    """Close the notification about something that has been dealt with (a resolution);
    with ``prefix``, every unread one whose key starts with ``key`` (a whole series)."""
    if prefix and not key:
        raise InvalidInput("a key prefix must not be empty", field="key")
    match = Q(key__startswith=key) if prefix else Q(key=key)
    return Notification.objects.filter(match, read=False).update(read=True, read_at=timezone.now())


@transaction.atomic
def notification_mark_unread_by_key(*, key: str, payload: dict | None = None) -> int:
    """Raise the notification about something again (an undone resolution reopens it, a
    retried job that fails again), with what it is about now when ``payload`` is given."""
    fields = {"read": False, "read_at": None}
    if payload is not None:
        if not isinstance(payload, dict):
            raise InvalidInput("payload must be an object", field="payload")
        fields["payload"] = payload
    return Notification.objects.filter(key=key, read=True).update(**fields)


def notifications_of_deleted_fact_close(fact_id: int, action: str) -> int:
    """``on_fact_saved`` hook: a fact deleted for good takes the unread notices naming it
    (a possible duplicate, a pair to check) with it; they led to a page that is gone.
    Contradiction notices close with their contradiction row already."""
    if action != "deleted":
        return 0
    about = Q(payload__fact_a__id=fact_id) | Q(payload__fact_b__id=fact_id)
    return Notification.objects.filter(about, read=False).update(read=True, read_at=timezone.now())
