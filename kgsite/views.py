"""The pages every app shares: the dashboard (panels from each app) and the audit log."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_GET, require_POST

from .errors import DomainError
from .models import AuditEntry
from .pages import curator_required, dashboard_panels, is_curator, render_page, undo_for

RECENT_ACTIONS = 10
AUDIT_PAGE_SIZE = 50


def _audit_rows(entries, *, can_write: bool) -> list[dict]:
    return [{"entry": e, "undo": can_write and undo_for(e) is not None} for e in entries]


@require_GET
@curator_required
def home(request):
    """The dashboard: one panel per app that registered one, and recent curator actions."""
    panels = [
        {"template": panel.template, "context": panel.context(request)}
        for panel in dashboard_panels()
    ]
    recent = AuditEntry.objects.select_related("actor")[:RECENT_ACTIONS]
    return render_page(
        request,
        "home.html",
        {"panels": panels, "recent": _audit_rows(recent, can_write=False)},
    )


@require_GET
@curator_required
def audit_log(request):
    """Who did what and when, newest first, with undo where the action supports it."""
    entries = AuditEntry.objects.select_related("actor")
    action = request.GET.get("action", "").strip()
    if action:
        entries = entries.filter(action=action)
    page = Paginator(entries, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))
    actions = AuditEntry.objects.order_by("action").values_list("action", flat=True).distinct()
    return render_page(
        request,
        "audit/log.html",
        {
            "page": page,
            "rows": _audit_rows(page.object_list, can_write=is_curator(request.user)),
            "actions": list(actions),
            "action": action,
            "query": urlencode({"action": action}) if action else "",
        },
        partial="audit/_rows.html",
    )


@require_POST
@curator_required
def audit_undo(request, entry_id: int):
    entry = get_object_or_404(AuditEntry, pk=entry_id)
    action = undo_for(entry)
    if action is None:
        messages.error(request, f"“{entry.action}” #{entry.pk} cannot be undone (any more).")
    else:
        try:
            action.undo(entry, request.user)
        except DomainError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"Undone: {entry.action} #{entry.pk}.")
    return redirect("audit")
