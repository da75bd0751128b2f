"""The entity graph page: the API's graph drawn with vis-network (served from static/)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from kgsite.pages import checked_get, curator_required

from ..models import Entity
from ..scopes import page_scopes
from ..selectors import entity_redirect_target
from . import selectors


@require_GET
@curator_required
def entity_graph_page(request: HttpRequest, entity_id: str) -> HttpResponse:
    """The graph around an entity; a merged-away id opens the survivor's, as its page does."""
    try:
        entity, _can_write = checked_get(request, Entity, entity_id)
    except Http404:
        target = entity_redirect_target(entity_id=entity_id)
        if not target:
            raise
        return redirect("entity-graph", entity_id=target)
    try:
        depth = min(max(int(request.GET.get("depth", 1)), 1), selectors.GRAPH_DEPTH_MAX)
        # Two at least: the entity alone draws no edge, and the page would say it has none.
        max_nodes = min(max(int(request.GET.get("max_nodes", 60)), 2), selectors.GRAPH_NODES_MAX)
    except ValueError:
        depth, max_nodes = 1, 60
    graph = selectors.entity_graph(
        entity_id=entity.pk, depth=depth, max_nodes=max_nodes, scopes=page_scopes(request.user)
    )
    labels = {n["id"]: n["label"] for n in graph["nodes"]}
    edges = [
        {**e, "source": labels.get(e["source"], ""), "target": labels.get(e["target"], "")}
        for e in graph["edges"]
    ]
    return render(
        request,
        "entities/graph.html",
        {
            "entity": entity,
            "graph": graph,
            "edges": edges,
            "depth": depth,
            "max_nodes": max_nodes,
            "depths": range(1, selectors.GRAPH_DEPTH_MAX + 1),
        },
    )
