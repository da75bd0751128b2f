"""The pages every app shares: the dashboard (panels from each app), the audit log, the
error pages, the favicon and the offline ReDoc script."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.staticfiles import finders
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from .errors import DomainError
from .models import AuditEntry
from .pages import (
    audit_action_label,
    audit_action_labels,
    audit_rows,
    back_url,
    curator_required,
    dashboard_panels,
    is_curator,
    render_page,
    swap_target,
    undo_for,
)

RECENT_ACTIONS = 10
AUDIT_PAGE_SIZE = 50


def _panels(request) -> list[dict]:
    return [
        {"template": panel.template, "context": panel.context(request)}
        for panel in dashboard_panels()
    ]


@require_GET
@curator_required
def home(request):
    """The dashboard: one panel per app that registered one, and recent curator actions.
    Its counts refresh by themselves (``dashboard_panels``, polled)."""
    recent = AuditEntry.objects.select_related("actor")[:RECENT_ACTIONS]
    return render_page(
        request,
        "home.html",
        {
            "panels": _panels(request),
            "recent": audit_rows(recent, can_write=False, reader=request.user),
        },
    )


@require_GET
@curator_required
def dashboard_counts(request):
    """The dashboard's panels alone: what the page polls while it is open."""
    return render(request, "_panels.html", {"panels": _panels(request)})


def _audit_filters(request) -> dict[str, str]:
    return {
        key: request.GET.get(key, "").strip()
        for key in ("action", "target", "type")
        if request.GET.get(key, "").strip()
    }


@require_GET
@curator_required
def audit_log(request):
    """Who did what and when, newest first, with names and links to what was touched, and
    undo where the action supports it."""
    filters = _audit_filters(request)
    entries = AuditEntry.objects.select_related("actor")
    if "action" in filters:
        entries = entries.filter(action=filters["action"])
    if "target" in filters:
        entries = entries.filter(target_id=filters["target"])
    if "type" in filters:  # ids of different tables coincide (fact 5, contradiction 5)
        entries = entries.filter(target_type=filters["type"])
    page = Paginator(entries, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))
    actions = AuditEntry.objects.order_by("action").values_list("action", flat=True).distinct()
    narrowed = ""
    if "target" in filters:  # one thing's history: the page says whose, and how to leave it
        probe = AuditEntry(
            pk=0, action="", target_type=filters.get("type", ""), target_id=filters["target"]
        )
        described = audit_rows([probe], can_write=False, reader=request.user)[0]["name"]
        narrowed = described or filters["target"]
    return render_page(
        request,
        "audit/log.html",
        {
            "page": page,
            "rows": audit_rows(
                page.object_list, can_write=is_curator(request.user), reader=request.user
            ),
            "actions": [(a, audit_action_label(a)) for a in actions],
            "action": filters.get("action", ""),
            "target": filters.get("target", ""),
            "target_type": filters.get("type", ""),
            "query": urlencode(filters),
            "narrowed": narrowed,
            "labels": audit_action_labels(),
        },
        partial="audit/_rows.html",
    )


@require_POST
@curator_required
def audit_undo(request, entry_id: int):
    """Undo one action from the log; the answer says in words what was undone, and the
    log comes back with the filters it had."""
    entry = get_object_or_404(AuditEntry, pk=entry_id)
    action = undo_for(entry)
    what = audit_rows([entry], can_write=False)[0]["summary"]
    if action is None:
        messages.error(request, _("“%(what)s” cannot be undone any more.") % {"what": what})
    else:
        try:
            action.undo(entry, request.user)
        except DomainError as exc:
            messages.error(request, exc.translated)
        else:
            messages.success(request, _("Undone: %(what)s.") % {"what": what})
    return redirect(back_url(request, reverse("audit")))


# --- error pages, favicon, offline API docs -----------------------------------------------


def permission_denied(request, exception=None):
    if getattr(request, "htmx", False):  # a card's button: the refusal goes in the card
        return render(request, "_denied.html", {"target": swap_target(request)}, status=403)
    return render(request, "403.html", status=403)


def csrf_failure(request, reason: str = ""):
    """A form or button of a page drawn before the user logged in again (the token
    changed): say to reload, in the swapped element for HTMX; nothing was changed."""
    if getattr(request, "htmx", False):
        context = {"target": swap_target(request)}
        return render(request, "_stale_token.html", context, status=403)
    return render(request, "403_csrf.html", status=403)


@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request):
    """Browsers ask for /favicon.ico whatever the page links: send them to ours."""
    return redirect(static("favicon.svg"), permanent=True)


REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@lru_cache(maxsize=1)
def _redoc_source() -> bytes:
    found = finders.find("drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js")
    if not found:
        raise Http404("ReDoc is not installed")
    text = Path(found).read_text(encoding="utf-8")
    # ReDoc draws its maker's logo from a CDN on every docs page: ours is served here.
    return text.replace(REDOC_LOGO, static("favicon.svg")).encode("utf-8")


@require_GET
@cache_control(max_age=86400, public=True)
def redoc_script(request):
    """The sidecar's ReDoc bundle without the one request it makes to a CDN."""
    return HttpResponse(_redoc_source(), content_type="application/javascript")
