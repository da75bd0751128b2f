"""Edges kept in step with facts (registered on ``entities.hooks.on_fact_saved``).

An active fact with a subject, a predicate and an object entity supports one edge; its
confidence is the support's weight, and an edge's weight is the sum of its supports.
Retracting, superseding or deleting the fact (or editing its predicate) removes that
support: the edge weakens, and goes when nothing supports it any more.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Count, Sum

from ..models import Fact
from .models import Edge, EdgeFact, Relation
from .relations import SPECS, Resolved, predicate_resolve


def relation_ensure(resolved: Resolved) -> Relation:
    """The relation row for a resolved predicate: a default one, or a new one (race-safe)."""
    found = Relation.objects.filter(name=resolved.name).first()
    if found is not None:
        return found
    spec = SPECS.get(resolved.name)
    fields = {}
    if spec is not None:
        fields = {
            "inverse": spec.inverse,
            "symmetric": spec.symmetric,
            "domain": spec.domain,
            "range": spec.range,
            "builtin": True,
        }
    try:
        with transaction.atomic():
            return Relation.objects.create(name=resolved.name, **fields)
    except IntegrityError:
        return Relation.objects.get(name=resolved.name)


def relations_seed() -> int:
    """Create the default relations that are missing; returns how many were added."""
    added = 0
    for name in SPECS:
        if not Relation.objects.filter(name=name).exists():
            relation_ensure(Resolved(name, False, SPECS[name]))
            added += 1
    return added


def triple_of(fact: Fact) -> tuple[str, Relation, str] | None:
    """(head id, relation, tail id) an active fact states, or None."""
    if fact.status != Fact.Status.ACTIVE or not fact.subject_id or not fact.object_entity_id:
        return None
    if fact.subject_id == fact.object_entity_id:
        return None
    resolved = predicate_resolve(fact.predicate)
    if resolved is None:
        return None
    relation = relation_ensure(resolved)
    head, tail = fact.subject_id, fact.object_entity_id
    if resolved.flipped:
        head, tail = tail, head
    if relation.symmetric and tail < head:
        head, tail = tail, head
    return head, relation, tail


def _edge_ensure(head: str, relation: Relation, tail: str) -> Edge:
    edge = Edge.objects.filter(head_id=head, relation=relation, tail_id=tail).first()
    if edge is not None:
        return edge
    try:
        with transaction.atomic():
            return Edge.objects.create(head_id=head, relation=relation, tail_id=tail)
    except IntegrityError:
        return Edge.objects.get(head_id=head, relation=relation, tail_id=tail)


def edges_reweigh(edge_ids: set[int]) -> None:
    """Recompute weight and fact count from the supports; drop unsupported edges."""
    if not edge_ids:
        return
    totals = {
        row["edge_id"]: row
        for row in EdgeFact.objects.filter(edge_id__in=edge_ids)
        .values("edge_id")
        .annotate(total=Sum("weight"), n=Count("id"))
    }
    gone = [pk for pk in edge_ids if pk not in totals]
    if gone:
        Edge.objects.filter(pk__in=gone).delete()
    for pk, row in totals.items():
        Edge.objects.filter(pk=pk).update(weight=row["total"], fact_count=row["n"])


@transaction.atomic
def edges_sync_fact(*, fact_id: int) -> Edge | None:
    """Make the edges say what fact ``fact_id`` says now; returns its edge, if any."""
    affected = set(EdgeFact.objects.filter(fact_id=fact_id).values_list("edge_id", flat=True))
    EdgeFact.objects.filter(fact_id=fact_id).delete()
    fact = Fact.objects.filter(pk=fact_id).first()
    triple = triple_of(fact) if fact is not None else None
    edge = None
    if triple is not None:
        edge = _edge_ensure(*triple)
        EdgeFact.objects.create(edge=edge, fact_id=fact_id, weight=float(fact.confidence))
        affected.add(edge.pk)
    edges_reweigh(affected)
    return edge


def fact_saved_edges(fact_id: int, action: str) -> None:
    """The ``on_fact_saved`` hook: every action may change the fact's edge.

    Most facts are plain statements that support no edge and state no triple: two reads
    tell, and the save then opens no second write transaction (on SQLite, a second turn
    at the write lock for every fact written)."""
    if not _may_have_edge(fact_id, created=action == "created"):
        return
    edges_sync_fact(fact_id=fact_id)


def _may_have_edge(fact_id: int, *, created: bool = False) -> bool:
    """Whether the fact states a triple, or supported an edge (never for a fact just
    created: one read fewer per write)."""
    states_triple = Fact.objects.filter(
        pk=fact_id,
        status=Fact.Status.ACTIVE,
        subject__isnull=False,
        object_entity__isnull=False,
    ).exists()
    return states_triple or (not created and EdgeFact.objects.filter(fact_id=fact_id).exists())


def edges_rebuild() -> int:
    """Rebuild every edge from the facts (after a bulk load that bypassed the hooks)."""
    EdgeFact.objects.all().delete()
    Edge.objects.all().delete()
    count = 0
    facts = Fact.objects.filter(
        status=Fact.Status.ACTIVE, subject__isnull=False, object_entity__isnull=False
    ).exclude(predicate="")
    for fact_id in facts.order_by("pk").values_list("pk", flat=True).iterator():
        if edges_sync_fact(fact_id=fact_id) is not None:
            count += 1
    return count
