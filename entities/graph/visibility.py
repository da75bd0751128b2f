"""What of the graph a reader may see: edges count only the facts of the reader's scope.

Edges are shared by every project (one row per head, relation, tail), but each support
is a fact with a project scope. A reader sees an edge only when at least one of its
supporting facts is visible, and its weight and fact count are summed over those facts
alone, so another project's facts never show through a weight, a path or a fact id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db.models import Count, Q, Sum

from ..models import Fact
from ..scopes import ScopeFilter
from .models import EdgeFact


def visible_fact_ids(scopes: ScopeFilter):
    """A subquery of the ids of the facts ``scopes`` may see."""
    return Fact.objects.filter(scopes.q()).values("pk")


def support_q(scopes: ScopeFilter) -> Q:
    """The condition on EdgeFact rows whose fact is visible."""
    if scopes.all_scopes:
        return Q()
    return Q(fact_id__in=visible_fact_ids(scopes))


def edge_q(scopes: ScopeFilter, prefix: str = "") -> Q:
    """The condition on Edge rows (``prefix`` for a relation) with a visible support."""
    if scopes.all_scopes:
        return Q()
    supported = EdgeFact.objects.filter(support_q(scopes)).values("edge_id")
    return Q(**{f"{prefix}pk__in": supported})


def edge_support(scopes: ScopeFilter, edge_ids: Iterable[int]) -> dict[int, tuple[float, int]]:
    """(weight, fact count) of each edge over its visible supports (absent: none)."""
    ids = list(edge_ids)
    if not ids:
        return {}
    rows = (
        EdgeFact.objects.filter(support_q(scopes), edge_id__in=ids)
        .values("edge_id")
        .annotate(total=Sum("weight"), n=Count("id"))
    )
    return {row["edge_id"]: (float(row["total"] or 0.0), int(row["n"])) for row in rows}


def edge_fact_ids(scopes: ScopeFilter, edge_ids: Iterable[int]) -> dict[int, list[int]]:
    """The visible supporting fact ids of each edge, ascending."""
    support: dict[int, list[int]] = defaultdict(list)
    rows = EdgeFact.objects.filter(support_q(scopes), edge_id__in=list(edge_ids))
    for edge_id, fact_id in rows.values_list("edge_id", "fact_id"):
        support[edge_id].append(fact_id)
    return {k: sorted(v) for k, v in support.items()}


def fact_ids_visible(scopes: ScopeFilter, ids: Iterable[int]) -> list[int]:
    """``ids`` without the facts ``scopes`` may not see, in their order."""
    wanted = [i for i in ids if isinstance(i, int)]
    if scopes.all_scopes:
        return wanted
    seen = set(Fact.objects.filter(scopes.q(), pk__in=wanted).values_list("pk", flat=True))
    return [i for i in wanted if i in seen]
