"""Curator pages of the entity graph (see ``kgsite.pages`` for what pages share)."""

from __future__ import annotations

from django.http import HttpRequest

from kgsite.pages import Panel

from .models import Entity, Fact


def home_panel_context(request: HttpRequest) -> dict:
    return {
        "entity_count": Entity.objects.count(),
        "fact_count": Fact.objects.filter(status=Fact.Status.ACTIVE).count(),
        "recent_entities": Entity.objects.order_by("-created_at")[:10],
    }


HOME_PANEL = Panel(name="entities", template="entities/panel_home.html", context=home_panel_context)
