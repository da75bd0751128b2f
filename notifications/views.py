"""The notification bell on every page: unread badge (polled), the panel grouped by
urgency, mark read, and the banner for a HIGH item.

Notifications do not know the pages of the apps that raise them: an app registers, per
notification type, how to turn one into a link to its page (``notification_page``)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from entities.models import Entity, EntityFact
from kgsite.converters import parse_id
from kgsite.errors import DomainError, InvalidInput, NotFound
from kgsite.pages import back_url, curator_required, is_curator

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


_page_titles: dict[str, list[PageLink]] = {}


def notification_title(type: str, title: PageLink) -> PageLink:  # noqa: A002
    """Say how the bell words notifications of ``type`` in the page's language (the
    stored title is the API's, in English); call from ``ready()``. Several apps may word
    one type: the first that answers (not "") is shown."""
    _page_titles.setdefault(type, []).append(title)
    return title


def page_title(notification: Notification) -> str:
    for make in _page_titles.get(notification.type, []):
        try:
            if title := make(notification):
                return title
        except (KeyError, TypeError, ValueError):
            continue  # a payload without what this wording needs: another's, or stored
    return notification.title


def _fact_ids(notification: Notification) -> list[int]:
    payload = notification.payload if isinstance(notification.payload, dict) else {}
    ids = []
    for key in ("fact_a", "fact_b"):
        brief = payload.get(key)
        if isinstance(brief, dict) and isinstance(brief.get("id"), int):
            ids.append(brief["id"])
    return ids


def page_link(notification: Notification) -> str:
    make = _page_links.get(notification.type)
    if make is not None:
        try:
            return make(notification)
        except (KeyError, TypeError, ValueError):
            pass  # a payload without the id the page needs: fall back to the stored link
    link = notification.link or ""
    if link.startswith("/api/"):
        facts = _fact_ids(notification)  # a pair of facts to check: the newer one's page
        return reverse("entities:fact", args=[facts[-1]]) if facts else ""
    return link


SUBJECTS_PER_ITEM = 3


def notification_subjects(notifications: list[Notification]) -> dict[int, list[Entity]]:
    """The entities each notification is about (those of the facts it names), so the
    bell says what an alert concerns and links there; one query for the panel."""
    wanted = {n.pk: _fact_ids(n) for n in notifications}
    links = EntityFact.objects.filter(
        fact_id__in={i for ids in wanted.values() for i in ids}
    ).select_related("entity")
    by_fact: dict[int, list[Entity]] = {}
    for link in links.order_by("role", "entity_id"):
        by_fact.setdefault(link.fact_id, []).append(link.entity)
    subjects: dict[int, list[Entity]] = {}
    for pk, ids in wanted.items():
        seen: dict[str, Entity] = {}
        for fact_id in ids:
            for entity in by_fact.get(fact_id, []):
                seen.setdefault(entity.pk, entity)
        subjects[pk] = list(seen.values())[:SUBJECTS_PER_ITEM]
    return subjects


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
    about = notification_subjects([high]).get(high.pk, []) if high else []
    return render(
        request,
        "notifications/_badge.html",
        {
            "counts": counts,
            "high": high,
            "high_link": page_link(high) if high else "",
            "high_title": page_title(high) if high else "",
            "high_about": about,
            "can_write": is_curator(request.user),  # marking read is a curator's write
        },
    )


def _panel_context(request, error: str = "") -> dict:
    pending = selectors.notification_pending(user=request.user, limit=20)
    subjects = notification_subjects([n for items in pending.values() for n in items])
    groups = [
        {
            "urgency": urgency,
            "items": [
                {
                    "n": n,
                    "link": page_link(n),
                    "title": page_title(n),
                    "about": subjects.get(n.pk, []),
                }
                for n in items
            ],
        }
        for urgency, items in pending.items()
    ]
    return {
        "groups": groups,
        # "Mark all read" marks what the panel shows, not a notice raised or reopened
        # since (an urgent one would be read before anyone saw it).
        "shown": [n.pk for items in pending.values() for n in items],
        "counts": selectors.notification_unread_count(user=request.user),
        "error": error,
        "can_write": is_curator(request.user),  # readers see no button they may not use
    }


@require_GET
@curator_required
def panel(request):
    return render(request, "notifications/_panel.html", _panel_context(request))


def _shown(request) -> list[int] | None:
    """The notices the panel showed (its "Mark all read"); None when it names none."""
    raw = request.POST.getlist("shown")
    ids = [parse_id(value) for value in raw]
    if None in ids:
        raise InvalidInput(_("choose a notification"), field="shown")
    return ids or None


@require_POST
@curator_required
def mark_read(request):
    """Mark one notification (``id``), or every unread one (``all``), read."""
    error = ""
    try:
        if request.POST.get("all"):
            services.notification_mark_read(
                user=request.user, everything=True, among=_shown(request)
            )
        else:
            raw = request.POST.get("id", "")
            notification_id = parse_id(raw)
            if notification_id is None:
                raise InvalidInput(_("choose a notification"), field="id")
            try:
                services.notification_mark_read(user=request.user, ids=[notification_id])
            except NotFound:  # the service's sentence is the API's, in English
                error = _("no notification with id %(id)s") % {"id": notification_id}
    except DomainError as exc:
        error = exc.message
    if not request.htmx:
        if error:  # said on the page it returns to, as the panel says it inline
            messages.error(request, error)
        return HttpResponseRedirect(back_url(request, reverse("home")))  # a path, not a name
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
