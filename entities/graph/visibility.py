"""What of the graph a reader may see: edges count only the facts of the reader's scope.

Edges are shared by every project (one row per head, relation, tail), but each support
is a fact with a project scope. A reader sees an edge only when at least one of its
supporting facts is visible, and its weight and fact count are summed over those facts
alone, so another project's facts never show through a weight, a path or a fact id.

The filtering happens after the candidate edges are fetched (their supports by edge id,
then the visible facts by primary key, in batches): a condition "fact in the reader's
scope" nested inside the edge query made SQLite read every fact of the scope per query.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.db.models import Q

from ..models import Fact
from ..scopes import ScopeFilter
from .models import EdgeFact

# Ids per IN list: within SQLite's variable limit, and small enough for index lookups.
BATCH = 2000


def _batches(ids: list) -> Iterator[list]:
    for start in range(0, len(ids), BATCH):
        yield ids[start : start + BATCH]


def fact_ids_visible(scopes: ScopeFilter, ids: Iterable[int]) -> list[int]:
    """``ids`` without the facts ``scopes`` may not see, in their order."""
    wanted = [i for i in ids if isinstance(i, int) and not isinstance(i, bool)]
    if scopes.all_scopes:
        return wanted
    seen: set[int] = set()
    for batch in _batches(sorted(set(wanted))):
        # By primary key, the scope checked here: with "scope = ..." in the query SQLite
        # walked the scope index (every fact of global memory) instead.
        rows = Fact.objects.filter(pk__in=batch).values_list("pk", "scope")
        seen.update(pk for pk, scope in rows if scopes.sees(scope))
    return [i for i in wanted if i in seen]


def supports_visible(scopes: ScopeFilter, rows: Iterable[tuple]) -> list[tuple]:
    """Rows whose second column is a fact id, keeping those of visible facts."""
    rows = list(rows)
    visible = set(fact_ids_visible(scopes, [row[1] for row in rows]))
    return [row for row in rows if row[1] in visible]


def _supports(scopes: ScopeFilter, edge_ids: Iterable[int]) -> list[tuple[int, int, float]]:
    rows: list[tuple[int, int, float]] = []
    for batch in _batches(list(dict.fromkeys(edge_ids))):
        rows += EdgeFact.objects.filter(edge_id__in=batch).values_list(
            "edge_id", "fact_id", "weight"
        )
    return supports_visible(scopes, rows)


def edge_support(scopes: ScopeFilter, edge_ids: Iterable[int]) -> dict[int, tuple[float, int]]:
    """(weight, fact count) of each edge over its visible supports (absent: none)."""
    totals: dict[int, list] = {}
    for edge_id, _fact_id, weight in _supports(scopes, edge_ids):
        total = totals.setdefault(edge_id, [0.0, 0])
        total[0] += float(weight)
        total[1] += 1
    return {k: (v[0], v[1]) for k, v in totals.items()}


def edge_fact_ids(scopes: ScopeFilter, edge_ids: Iterable[int]) -> dict[int, list[int]]:
    """The visible supporting fact ids of each edge, ascending."""
    support: dict[int, list[int]] = defaultdict(list)
    for edge_id, fact_id, _weight in _supports(scopes, edge_ids):
        support[edge_id].append(fact_id)
    return {k: sorted(v) for k, v in support.items()}


def support_q(scopes: ScopeFilter) -> Q:
    """The condition on EdgeFact rows whose fact is visible (for one-off queries such as
    the training set; reads filter fetched rows with ``supports_visible``)."""
    if scopes.all_scopes:
        return Q()
    return Q(fact_id__in=Fact.objects.filter(scopes.q()).values("pk"))
