from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from entities.models import Entity, Fact


@require_GET
def home(request):
    return render(
        request,
        "home.html",
        {
            "entity_count": Entity.objects.count(),
            "fact_count": Fact.objects.filter(status=Fact.Status.ACTIVE).count(),
            "recent_entities": Entity.objects.order_by("-created_at")[:10],
        },
    )
