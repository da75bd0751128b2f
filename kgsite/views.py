from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from .pages import dashboard_panels


@require_GET
def home(request):
    """The home page: one panel per app that registered one (``kgsite.pages``)."""
    panels = [
        {"template": panel.template, "context": panel.context(request)}
        for panel in dashboard_panels()
    ]
    return render(request, "home.html", {"panels": panels})
