"""Reads of the graph room: TransE answers (validate, infer a relation, related
entities), the entity graph around one entity, neighbours.

Every read takes the reader's ``scopes``: edges, weights and fact ids count only the
facts of that view (``visibility``), and TransE answers come from a model trained on
that view or on global memory (``kge.model_current``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.db.models import Q

from kgsite.errors import Conflict, InvalidInput
from kgsite.text import normalize
from kgsite.vectors.service import search_vector

from ..models import Entity, EntityFact, Fact
from ..names import normalize_type, validate_name
from ..scopes import ScopeFilter
from ..selectors import entity_by_external_id, entity_not_found, entity_redirect_target
from . import kge
from .models import Edge, EdgeFact, Relation
from .relations import predicate_resolve
from .visibility import edge_fact_ids, edge_support, fact_ids_visible

TOP_K_MAX = 100
GRAPH_DEPTH_MAX = 3
GRAPH_NODES_MAX = 500
# hnswlib candidates fetched per answer asked for (rescored exactly, filtered after).
OVERFETCH = 4


# --- resolving names ---------------------------------------------------------------------


def entity_resolve(value: object, *, field: str) -> Entity | None:
    """An entity by id, canonical name or alias (like lookup, without suggestions).

    None when nothing matches; a name shared by entities of several types is a 409
    listing them, as in lookup. An id a merge took away stands for the survivor, as
    the duplicate's name (now the survivor's alias) does."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{field} must not be empty", field=field)
    by_id = Entity.objects.filter(pk=value.strip()).first()
    if by_id is not None:
        return by_id
    norm = normalize(validate_name(value, field=field))
    by_name = Entity.objects.filter(name_norm=norm)
    by_alias = Entity.objects.filter(aliases__alias_norm=norm).exclude(name_norm=norm)
    found = list(by_name.order_by().union(by_alias.order_by(), all=True).order_by("type")[:20])
    if not found:
        return entity_by_external_id(value) or _merged_into(value.strip())
    canonical = [e for e in found if e.name_norm == norm]
    if len({e.type for e in found}) > 1:
        raise Conflict(
            f"'{value}' names entities of several types",
            field=field,
            extra={
                "candidates": [
                    {"id": e.id, "canonical_name": e.canonical_name, "type": e.type}
                    for e in canonical + [e for e in found if e not in canonical]
                ]
            },
        )
    return canonical[0] if canonical else found[0]


def _merged_into(entity_id: str) -> Entity | None:
    target = entity_redirect_target(entity_id=entity_id)
    return Entity.objects.filter(pk=target).first() if target else None


def entity_by_id(entity_id: str, *, field: str = "id") -> Entity:
    """The entity an address (or an id filter) names; a 404 naming ``field`` otherwise,
    which says where a merged-away id went (as the entity's own address and the fact
    list do)."""
    entity = Entity.objects.filter(pk=entity_id).first()
    if entity is None:
        raise entity_not_found(entity_id, field=field)
    return entity


@dataclass
class RelationRef:
    """A relation as asked: its stored name, and whether head and tail swap."""

    asked: str
    name: str
    flipped: bool
    symmetric: bool


def relation_resolve(value: object, *, field: str) -> RelationRef:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{field} must not be empty", field=field)
    resolved = predicate_resolve(value)
    if resolved is None:
        raise InvalidInput(f"{field} has no words", field=field)
    symmetric = bool(resolved.spec.symmetric) if resolved.spec else False
    if resolved.spec is None:
        symmetric = Relation.objects.filter(name=resolved.name, symmetric=True).exists()
    return RelationRef(value, resolved.name, resolved.flipped, symmetric)


def types_normalize(types: list[str]) -> list[str]:
    """The entity types a graph is filtered on, as stored; a bad one is an error naming
    ``types`` (the argument), in the REST API and the MCP tool alike."""
    try:
        return [normalize_type(t) for t in types if t.strip()]
    except InvalidInput as exc:
        raise InvalidInput(exc.message.replace("type", "types", 1), field="types") from None


def entity_brief(entity: Entity) -> dict:
    return {"id": entity.id, "canonical_name": entity.canonical_name, "type": entity.type}


# TransE scores an entity against itself by the relation vector's length alone (h + r - h
# = r): the shortest relation read "valid" for any entity, as kge/related never offers
# an entity as its own answer.
SAME_ENTITY = "the same entity on both sides"


def _unknown(reason: str, **extra) -> dict:
    return {"known": False, "reason": reason, **extra}


# --- validate ------------------------------------------------------------------------------


def _edge_facts(
    head: str, relation: str, tail: str, symmetric: bool, scopes: ScopeFilter
) -> list[int]:
    pairs = Q(edge__head_id=head, edge__tail_id=tail)
    if symmetric:
        pairs |= Q(edge__head_id=tail, edge__tail_id=head)
    ids = EdgeFact.objects.filter(pairs, edge__relation__name=relation).values_list(
        "fact_id", flat=True
    )
    return sorted(fact_ids_visible(scopes, list(ids)))


def _contradicting(
    head: str, ref: RelationRef, tail: str, functional: bool, scopes: ScopeFilter
) -> list[int]:
    """Facts that speak against the triple: the same triple retracted or superseded, and
    for a relation with one tail per head in the graph, active facts naming another."""
    ids: set[int] = set()
    stated = Fact.objects.exclude(status=Fact.Status.ACTIVE).exclude(predicate="")
    pairs = Q(subject_id=head, object_entity_id=tail) | Q(subject_id=tail, object_entity_id=head)
    fields = ("pk", "predicate", "subject_id", "object_entity_id", "scope")
    for fact in stated.filter(pairs).only(*fields):
        if not scopes.sees(fact.scope):  # checked here: a scope condition steers SQLite
            continue  # onto the scope index instead of the subject's
        resolved = predicate_resolve(fact.predicate)
        if resolved is None or resolved.name != ref.name:
            continue
        h, t = (
            (fact.object_entity_id, fact.subject_id)
            if resolved.flipped
            else (fact.subject_id, fact.object_entity_id)
        )
        if ref.symmetric or (h, t) == (head, tail):
            ids.add(fact.pk)
    if functional and not ref.symmetric:
        others = EdgeFact.objects.filter(edge__head_id=head, edge__relation__name=ref.name).exclude(
            edge__tail_id=tail
        )
        ids |= set(fact_ids_visible(scopes, list(others.values_list("fact_id", flat=True))))
    return sorted(ids)


def kge_validate(
    *, subject: object, predicate: object, obj: object, scopes: ScopeFilter | None = None
) -> dict:
    """How plausible "subject predicate object" is under the current TransE model."""
    scopes = scopes or ScopeFilter()
    ref = relation_resolve(predicate, field="predicate")
    s = entity_resolve(subject, field="subject")
    o = entity_resolve(obj, field="object")
    base = {
        "subject": entity_brief(s) if s else None,
        "object": entity_brief(o) if o else None,
        "relation": ref.name,
        "inverse": ref.flipped,
    }
    if s is None or o is None:
        return _unknown("unknown entity", **base, supporting_facts=[], contradicting_facts=[])
    head, tail = (o.id, s.id) if ref.flipped else (s.id, o.id)
    supporting = _edge_facts(head, ref.name, tail, ref.symmetric, scopes)
    model = kge.model_current(scopes)
    functional = bool(model and model.functional.get(ref.name))
    contradicting = _contradicting(head, ref, tail, functional, scopes)
    facts = {"supporting_facts": supporting, "contradicting_facts": contradicting}
    if model is None:
        return _unknown("no trained model", **base, **facts)
    if head == tail:  # the model's score is then the relation's length alone
        return _unknown(SAME_ENTITY, model=model.id, **base, **facts)
    if head not in model.entity_index or tail not in model.entity_index:
        return _unknown("entity not in the model", model=model.id, **base, **facts)
    if ref.name not in model.relation_index:
        return _unknown("relation not in the model", model=model.id, **base, **facts)
    score = model.score(head, ref.name, tail)
    if ref.symmetric:
        score = max(score, model.score(tail, ref.name, head))
    label = model.calibration.label(score)
    return {
        "known": True,
        **base,
        "model": model.id,
        "transe_score": round(score, 5),
        "confidence": round(float(model.calibration.confidence(score)), 4),
        "validation": _stored_verdict(label, supporting, contradicting),
        "model_validation": label,
        **facts,
    }


def _stored_verdict(label: str, supporting: list[int], contradicting: list[int]) -> str:
    """The model's label, overruled by what memory says: a stored fact against the
    triple and none for it is "contradicted"; facts both ways are never "valid"."""
    if contradicting and not supporting:
        return "contradicted"
    if contradicting and label == "valid":
        return "uncertain"
    return label


# --- infer a relation ------------------------------------------------------------------------


def kge_infer_relation(
    *,
    head: object,
    tail: object,
    top_k: int,
    scopes: ScopeFilter | None = None,
    top_k_field: str = "topK",
) -> dict:
    """The relations most likely to link ``head`` to ``tail``, best first. A relation
    that fits better read backwards is reported under its inverse name."""
    _check_top_k(top_k, top_k_field)
    h = entity_resolve(head, field="head")
    t = entity_resolve(tail, field="tail")
    base = {"head": entity_brief(h) if h else None, "tail": entity_brief(t) if t else None}
    model = kge.model_current(scopes)
    if h is None or t is None:
        return _unknown("unknown entity", **base, relations=[])
    if model is None:
        return _unknown("no trained model", **base, relations=[])
    if h.id == t.id:
        return _unknown(SAME_ENTITY, model=model.id, **base, relations=[])
    if h.id not in model.entity_index or t.id not in model.entity_index:
        return _unknown("entity not in the model", model=model.id, **base, relations=[])
    forward = model.relation_scores(h.id, t.id)
    backward = model.relation_scores(t.id, h.id)
    specs = {
        r.name: r
        for r in Relation.objects.filter(name__in=model.relation_names).only(
            "name", "inverse", "symmetric"
        )
    }
    candidates: dict[str, tuple[float, str, bool]] = {}
    for i, name in enumerate(model.relation_names):
        spec = specs.get(name)
        candidates[name] = (float(forward[i]), name, False)
        if spec is not None and spec.symmetric:
            candidates[name] = (float(max(forward[i], backward[i])), name, False)
        elif spec is not None and spec.inverse:
            candidates[spec.inverse] = (float(backward[i]), name, True)
    ranked = sorted(candidates.items(), key=lambda kv: (-kv[1][0], kv[0]))[:top_k]
    relations = [
        {
            "relation": label,
            "stored_as": stored,
            "inverse": inverse,
            "score": round(score, 5),
            "confidence": round(float(model.calibration.confidence(score)), 4),
            "validation": model.calibration.label(score),
        }
        for label, (score, stored, inverse) in ranked
    ]
    return {"known": True, **base, "model": model.id, "relations": relations}


def _number_between(value: object, low: float, high: float) -> bool:
    """A real number (not a bool, not NaN) within [low, high]."""
    return isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high


def _check_top_k(value: int, field: str) -> None:
    if not isinstance(value, int) or value <= 0 or value > TOP_K_MAX:
        raise InvalidInput(f"{field} must be between 1 and {TOP_K_MAX}", field=field)


# --- related entities ---------------------------------------------------------------------


def kge_related(
    *,
    entity: object,
    relation: object,
    direction: str = "outgoing",
    entity_type: str | None = None,
    top_k: int = 10,
    min_score: float = 0.0,
    scopes: ScopeFilter | None = None,
    top_k_field: str = "topK",
) -> dict:
    """Entities most likely to stand in ``relation`` to ``entity`` (``outgoing``: as its
    tails; ``incoming``: as its heads), from the model's vector index. ``min_score`` is a
    minimum confidence (0..1)."""
    scopes = scopes or ScopeFilter()
    _check_top_k(top_k, top_k_field)
    if direction not in ("outgoing", "incoming"):
        raise InvalidInput("direction must be 'outgoing' or 'incoming'", field="direction")
    if not _number_between(min_score, 0, 1):
        raise InvalidInput("minScore must be between 0 and 1", field="minScore")
    try:  # types are stored normalised: "Organisation" filters on "organisation"
        entity_type = normalize_type(entity_type) or None
    except InvalidInput as exc:
        raise InvalidInput(exc.message, field="entityType") from None
    ref = relation_resolve(relation, field="relation")
    e = entity_resolve(entity, field="entity")
    base = {
        "entity": entity_brief(e) if e else None,
        "relation": ref.name,
        "inverse": ref.flipped,
        "direction": direction,
    }
    model = kge.model_current(scopes)
    if e is None:
        return _unknown("unknown entity", **base, results=[])
    if model is None:
        return _unknown("no trained model", **base, results=[])
    if e.id not in model.entity_index:
        return _unknown("entity not in the model", model=model.id, **base, results=[])
    if ref.name not in model.relation_index:
        return _unknown("relation not in the model", model=model.id, **base, results=[])
    outgoing = (direction == "outgoing") != ref.flipped
    scored = _nearest(model, e.id, ref.name, outgoing, entity_type, top_k)
    if ref.symmetric:
        for key, value in _nearest(model, e.id, ref.name, not outgoing, entity_type, top_k).items():
            scored[key] = max(value, scored.get(key, -np.inf))
    scored.pop(e.id, None)
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))
    results = _related_rows(model, e.id, ref, outgoing, ranked, min_score, top_k, scopes)
    return {"known": True, **base, "model": model.id, "results": results}


def _nearest(model, entity_id, relation, outgoing, entity_type, top_k) -> dict[str, float]:
    query = model.query(entity_id, relation, outgoing)
    filter_ids = None
    if entity_type:
        filter_ids = list(Entity.objects.filter(type=entity_type).values_list("pk", flat=True))
        if not filter_ids:
            return {}
    hits = search_vector(model.entity_kind, query, top_k * OVERFETCH + 1, filter_ids=filter_ids)
    # The index ranks by cosine: as the L2 distance does (unit entity vectors), close to
    # the L1 distance; the over-fetched candidates carry the exact TransE score.
    return model.distances(query, [str(key) for key, _cos in hits])


def _related_rows(model, entity_id, ref, outgoing, ranked, min_score, top_k, scopes) -> list[dict]:
    ids = [key for key, _ in ranked]
    entities = {x.pk: x for x in Entity.objects.filter(pk__in=ids)}
    memories: dict[str, list[int]] = defaultdict(list)
    pair = Q(edge__head_id=entity_id, edge__tail_id__in=ids) | Q(
        edge__tail_id=entity_id, edge__head_id__in=ids
    )
    rows = list(
        EdgeFact.objects.filter(pair, edge__relation__name=ref.name).values_list(
            "edge__head_id", "edge__tail_id", "fact_id"
        )
    )
    visible = set(fact_ids_visible(scopes, [fact_id for _h, _t, fact_id in rows]))
    for head, tail, fact_id in rows:
        if fact_id not in visible:
            continue
        other = tail if head == entity_id else head
        if ref.symmetric or (head == entity_id) == outgoing:
            memories[other].append(fact_id)
    rows = []
    for key, score in ranked:
        if key not in entities:
            continue
        confidence = float(model.calibration.confidence(score))
        if confidence < min_score:
            continue
        rows.append(
            {
                **entity_brief(entities[key]),
                "score": round(score, 5),
                "confidence": round(confidence, 4),
                "found_in_memories": sorted(memories.get(key, [])),
            }
        )
        if len(rows) >= top_k:
            break
    return rows


# --- the entity graph ------------------------------------------------------------------------


def entity_graph(
    *,
    entity_id: str,
    depth: int = 1,
    max_nodes: int = 50,
    types: list[str] | None = None,
    min_weight: float = 0.0,
    scopes: ScopeFilter | None = None,
) -> dict:
    """Nodes and edges around one entity, breadth first, strongest edges first; only the
    edges a fact of ``scopes`` supports (default: global memory), weighed by those facts,
    and at least ``min_weight`` heavy."""
    scopes = scopes or ScopeFilter()
    _graph_limits_check(depth, max_nodes, min_weight)
    root = entity_by_id(entity_id)
    wanted_types = set(types or [])
    nodes: dict[str, int] = {root.pk: 0}
    edges: dict[int, Edge] = {}
    frontier = [root.pk]
    for level in range(1, depth + 1):
        if not frontier or len(nodes) >= max_nodes:
            break
        near = Q(head_id__in=frontier) | Q(tail_id__in=frontier)
        if wanted_types:  # only edges to an entity that may join (before the cap below)
            near = Q(head_id__in=frontier, tail__type__in=wanted_types) | Q(
                tail_id__in=frontier, head__type__in=wanted_types
            )
        found = _visible_near(
            Edge.objects.filter(near).select_related("relation", "head", "tail"),
            scopes,
            min_weight,
            cap=max_nodes * 20,
        )
        next_frontier = []
        for edge in found:
            for end in (edge.head, edge.tail):
                if end.pk in nodes or len(nodes) >= max_nodes:
                    continue
                if wanted_types and end.type not in wanted_types:
                    continue
                nodes[end.pk] = level
                next_frontier.append(end.pk)
            if edge.head_id in nodes and edge.tail_id in nodes:
                edges[edge.pk] = edge
        frontier = next_frontier
    # Edges among the chosen nodes that the walk did not pass.
    among = Edge.objects.filter(head_id__in=list(nodes), tail_id__in=list(nodes))
    for edge in _weighed(list(among.select_related("relation")), scopes, min_weight):
        edges.setdefault(edge.pk, edge)
    return _graph_payload(root, nodes, list(edges.values()), scopes)


def _graph_limits_check(depth: int, max_nodes: int, min_weight: float) -> None:
    if not 1 <= depth <= GRAPH_DEPTH_MAX:
        raise InvalidInput(f"depth must be between 1 and {GRAPH_DEPTH_MAX}", field="depth")
    if not 1 <= max_nodes <= GRAPH_NODES_MAX:
        raise InvalidInput(f"max_nodes must be between 1 and {GRAPH_NODES_MAX}", field="max_nodes")
    if not _number_between(min_weight, 0, float("inf")):
        raise InvalidInput("min_weight must be a number, 0 or more", field="min_weight")


def _visible_near(edges, scopes: ScopeFilter, min_weight: float, *, cap: int) -> list[Edge]:
    """Up to ``cap`` of ``edges`` the reader sees, strongest first. The cap counts
    visible edges: cut before the filter, another project's many heavier edges left a
    reader fewer edges than the cap (or none) while more of its own were there."""
    ordered = edges.order_by("-weight", "pk")
    kept: list[Edge] = []
    start = 0
    while len(kept) < cap:
        batch = list(ordered[start : start + cap])
        kept += _weighed(batch, scopes, min_weight)
        if len(batch) < cap:
            break
        start += cap
    return sorted(kept, key=lambda e: (-e.weight, e.pk))[:cap]


def _weighed(edges: list[Edge], scopes: ScopeFilter, min_weight: float) -> list[Edge]:
    """The edges with the weight and fact count of the reader's facts, strongest first;
    those left without a visible fact or under ``min_weight`` dropped."""
    support = edge_support(scopes, [e.pk for e in edges])
    kept = []
    for edge in edges:
        if edge.pk not in support:
            continue
        edge.weight, edge.fact_count = support[edge.pk]
        if edge.weight >= min_weight:
            kept.append(edge)
    return sorted(kept, key=lambda e: (-e.weight, e.pk))


def _fact_counts(ids: list[str], scopes: ScopeFilter) -> tuple[dict, dict]:
    """Per entity: active visible facts, and visible facts of any status. Links by
    entity, then the facts by primary key (a join filtered on the fact's scope made
    SQLite walk every fact of the scope)."""
    links = list(EntityFact.objects.filter(entity_id__in=ids).values_list("entity_id", "fact_id"))
    status: dict[int, str] = {}
    fact_ids = sorted({fact_id for _e, fact_id in links})
    for start in range(0, len(fact_ids), 2000):
        batch = fact_ids[start : start + 2000]
        rows = Fact.objects.filter(pk__in=batch).values_list("pk", "status", "scope")
        status.update((pk, st) for pk, st, scope in rows if scopes.sees(scope))
    active: dict[str, int] = defaultdict(int)
    every: dict[str, int] = defaultdict(int)
    for entity_id, fact_id in links:
        if fact_id in status:
            every[entity_id] += 1
            active[entity_id] += status[fact_id] == Fact.Status.ACTIVE
    return dict(active), dict(every)


def _graph_payload(root: Entity, nodes: dict[str, int], edges: list[Edge], scopes) -> dict:
    ids = list(nodes)
    entities = {e.pk: e for e in Entity.objects.filter(pk__in=ids)}
    fact_counts, mentions = _fact_counts(ids, scopes)
    support = edge_fact_ids(scopes, [e.pk for e in edges])
    degree: dict[str, float] = defaultdict(float)
    for edge in edges:
        degree[edge.head_id] += edge.weight
        degree[edge.tail_id] += edge.weight
    top = max(degree.values(), default=0.0) or 1.0
    node_rows = [
        {
            "id": pk,
            "label": entities[pk].canonical_name,
            "type": entities[pk].type,
            "depth": level,
            "mention_count": mentions.get(pk, 0),
            "fact_count": fact_counts.get(pk, 0),
            "importance": round(degree.get(pk, 0.0) / top, 4),
        }
        for pk, level in nodes.items()
        if pk in entities
    ]
    edge_rows = [
        {
            "id": edge.pk,
            "source": edge.head_id,
            "target": edge.tail_id,
            "relation": edge.relation.name,
            "weight": round(edge.weight, 4),
            "fact_ids": sorted(support.get(edge.pk, [])),
        }
        for edge in sorted(edges, key=lambda e: (-e.weight, e.pk))
    ]
    return {"root": root.pk, "nodes": node_rows, "edges": edge_rows}
