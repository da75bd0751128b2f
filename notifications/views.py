"""The notification bell on every page: unread badge (polled), the panel grouped by
urgency, mark read, and the banner for a HIGH item.

Notifications do not know the pages of the apps that raise them: an app registers, per
notification type, how to turn one into a link to its page (``notification_page``)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from kgsite.errors import DomainError, InvalidInput, NotFound
from kgsite.pages import curator_required

from . import selectors, services
from .models import Notification

PageLink = Callable[[Notification], str]
_page_links: dict[str, PageLink] = {}
EVENT = "kg:notifications"  # the body event the bell listens to


def notification_page(type: str, link: PageLink) -> PageLink:  # noqa: A002
    """Say where the bell sends a curator for notifications of ``type``; call from
    ``ready()``. Without one, the bell shows the notification's own link if it is a page."""
    _page_links[type] = link
    return link


def page_link(notification: Notification) -> str:
    make = _page_links.get(notification.type)
    if make is not None:
        try:
            return make(notification)
        except (KeyError, TypeError, ValueError):
            pass  # a payload without the id the page needs: fall back to the stored link
    link = notification.link or ""
    return "" if link.startswith("/api/") else link


def _banner(user) -> Notification | None:
    pending = selectors.notification_pending(user=user, limit=1)
    high = pending[Notification.Urgency.HIGH]
    return high[0] if high else None


@require_GET
@curator_required
def badge(request):
    """The unread count (polled every 10 s), with the HIGH banner swapped out of band."""
    counts = selectors.notification_unread_count(user=request.user)
    high = _banner(request.user)
    return render(
        request,
        "notifications/_badge.html",
        {"counts": counts, "high": high, "high_link": page_link(high) if high else ""},
    )


def _panel_context(request, error: str = "") -> dict:
    pending = selectors.notification_pending(user=request.user, limit=20)
    groups = [
        {
            "urgency": urgency,
            "items": [{"n": n, "link": page_link(n)} for n in items],
        }
        for urgency, items in pending.items()
    ]
    return {
        "groups": groups,
        "counts": selectors.notification_unread_count(user=request.user),
        "error": error,
    }


@require_GET
@curator_required
def panel(request):
    return render(request, "notifications/_panel.html", _panel_context(request))


@require_POST
@curator_required
def mark_read(request):
    """Mark one notification (``id``), or every unread one (``all``), read."""
    error = ""
    try:
        if request.POST.get("all"):
            services.notification_mark_read(user=request.user, everything=True)
        else:
            raw = request.POST.get("id", "")
            if not raw.isdigit():
                raise InvalidInput("choose a notification", field="id")
            services.notification_mark_read(user=request.user, ids=[int(raw)])
    except DomainError as exc:
        error = exc.message
    if not request.htmx:
        return redirect(request.POST.get("next") or "home")
    response = render(
        request,
        "notifications/_panel.html",
        _panel_context(request, error),
        status=400 if error else 200,
    )
    if not error:
        response["HX-Trigger"] = EVENT
    return response


@require_GET
@curator_required
def open_notification(request, notification_id: int) -> HttpResponse:
    """Follow a notification to its page (it stays unread until dealt with)."""
    try:
        notification = selectors.notification_get(
            notification_id=notification_id, user=request.user
        )
    except NotFound as exc:
        raise Http404(exc.message) from None
    return redirect(page_link(notification) or "home")
