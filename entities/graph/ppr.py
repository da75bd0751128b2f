"""Neighbours and HippoRAG-style Personalized PageRank over entities, facts and passages.

The walk runs on the neighbourhood of the query entities (``hops`` edges out, at most
``MAX_ENTITIES`` entities), where entities link to each other through edges, to the
active facts that name them and to the book chunks that mention them (books offers them
through ``entities.hooks.passage_links``). PageRank restarts at the query entities with
probability ``1 - damping`` and follows a link with probability ``damping`` (HippoRAG
uses 0.5): the mass decays by half per link, so a fact three links away carries an
eighth of the weight and the neighbourhood holds nearly all of it.

The scores solve ``(I - damping · W) x = (1 - damping) · s`` directly with
``scipy.sparse.linalg.spsolve`` (W column-stochastic, s the restart vector) instead of a
power loop; each fact and chunk returned carries the shortest path from a query entity
(``scipy.sparse.csgraph.dijkstra``) that leads to it.

The walk sees what the reader's ``scopes`` see: edges a visible fact supports, weighed by
those facts, and visible facts only, so no path passes through another project.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Q
from scipy import sparse
from scipy.sparse.csgraph import dijkstra
from scipy.sparse.linalg import spsolve

from .. import hooks
from ..extraction import extract_entities
from ..models import Entity, EntityFact, Fact
from ..scopes import ScopeFilter
from .models import Edge
from .selectors import entity_brief, entity_resolve
from .visibility import edge_support

MAX_ENTITIES = 3000
MAX_EDGES_PER_HOP = 20_000
FACTS_PER_ENTITY = 50
PASSAGES_PER_ENTITY = 20
HOPS = 2
HOPS_MAX = 3  # the widest neighbourhood a caller may ask for
K_MAX = 100


@dataclass
class WalkGraph:
    """Nodes ("e:<id>", "f:<id>", "c:<id>") and weighted undirected links."""

    nodes: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    links: dict[tuple[int, int], float] = field(default_factory=lambda: defaultdict(float))
    link_label: dict[tuple[int, int], str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)

    def node(self, key: str) -> int:
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.nodes)
            self.nodes.append(key)
        return found

    def link(self, a: str, b: str, weight: float, label: str = "") -> None:
        i, j = self.node(a), self.node(b)
        if i == j:
            return
        pair = (min(i, j), max(i, j))
        self.links[pair] += max(weight, 1e-6)
        if label:
            self.link_label.setdefault(pair, label)

    def matrix(self) -> sparse.csr_matrix:
        n = len(self.nodes)
        if not self.links:
            return sparse.csr_matrix((n, n))
        pairs = np.asarray(list(self.links), dtype=np.int64)
        weights = np.asarray(list(self.links.values()), dtype=np.float64)
        rows = np.concatenate([pairs[:, 0], pairs[:, 1]])
        cols = np.concatenate([pairs[:, 1], pairs[:, 0]])
        return sparse.csr_matrix((np.concatenate([weights, weights]), (rows, cols)), shape=(n, n))


def _entity_neighbourhood(
    seeds: list[str], hops: int, graph: WalkGraph, scopes: ScopeFilter
) -> list[str]:
    seen = dict.fromkeys(seeds)
    frontier = list(seeds)
    for _ in range(hops):
        if not frontier or len(seen) >= MAX_ENTITIES:
            break
        found = list(
            Edge.objects.filter(Q(head_id__in=frontier) | Q(tail_id__in=frontier))
            .order_by("-weight")
            .values_list("pk", "head_id", "tail_id", "relation__name")[:MAX_EDGES_PER_HOP]
        )
        weights = edge_support(scopes, [row[0] for row in found])
        next_frontier = []
        for pk, head, tail, relation in found:
            if pk not in weights:
                continue
            weight = weights[pk][0]
            for end in (head, tail):
                if end not in seen and len(seen) < MAX_ENTITIES:
                    seen[end] = None
                    next_frontier.append(end)
            if head in seen and tail in seen:
                graph.link(f"e:{head}", f"e:{tail}", weight, relation)
        frontier = next_frontier
    return list(seen)


# Ids per IN list: within SQLite's variable limit, and small enough for index lookups.
_IN_BATCH = 2000


def _in_batches(ids: list) -> Iterator[list]:
    for start in range(0, len(ids), _IN_BATCH):
        yield ids[start : start + _IN_BATCH]


def _add_facts(entity_ids: list[str], graph: WalkGraph, scopes: ScopeFilter) -> None:
    """Each entity's most confident active facts (at most FACTS_PER_ENTITY).

    Two indexed lookups, links by entity then facts by id, joined and sorted here: as one
    joined query SQLite planned from the fact status index and scanned every active fact
    (about 1 s a query at 500,000 facts)."""
    links: list[tuple[str, int]] = []
    for batch in _in_batches(entity_ids):
        links += EntityFact.objects.filter(entity_id__in=batch).values_list("entity_id", "fact_id")
    confidence: dict[int, float] = {}
    for batch in _in_batches(sorted({fact_id for _entity, fact_id in links})):
        rows = Fact.objects.filter(pk__in=batch).values_list("pk", "status", "confidence", "scope")
        confidence.update(
            (pk, c)
            for pk, status, c, scope in rows
            if status == Fact.Status.ACTIVE and scopes.sees(scope)
        )
    ranked = sorted(
        ((entity_id, fact_id) for entity_id, fact_id in links if fact_id in confidence),
        key=lambda pair: (pair[0], -confidence[pair[1]], -pair[1]),
    )
    per_entity: dict[str, int] = defaultdict(int)
    for entity_id, fact_id in ranked:
        if per_entity[entity_id] >= FACTS_PER_ENTITY:
            continue
        per_entity[entity_id] += 1
        graph.link(f"e:{entity_id}", f"f:{fact_id}", confidence[fact_id], "states")


def _add_passages(entity_ids: list[str], graph: WalkGraph) -> None:
    for chunk_id, entity_id, weight, label in hooks.passages_of(entity_ids, PASSAGES_PER_ENTITY):
        graph.link(f"e:{entity_id}", f"c:{chunk_id}", weight, "mentioned in")
        graph.labels.setdefault(f"c:{chunk_id}", label)


def walk_graph(seeds: list[str], hops: int = HOPS, scopes: ScopeFilter | None = None) -> WalkGraph:
    scopes = scopes or ScopeFilter()
    graph = WalkGraph()
    for seed in seeds:
        graph.node(f"e:{seed}")
    entity_ids = _entity_neighbourhood(seeds, hops, graph, scopes)
    _add_facts(entity_ids, graph, scopes)
    _add_passages(entity_ids, graph)
    return graph


def pagerank(matrix: sparse.csr_matrix, restart: np.ndarray, damping: float) -> np.ndarray:
    """Personalized PageRank of a symmetric weighted adjacency matrix, by a sparse solve.

    A node without links keeps its restart mass (it is its own sink)."""
    n = matrix.shape[0]
    degree = np.asarray(matrix.sum(axis=0)).ravel()
    inverse = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)
    walk = matrix @ sparse.diags(inverse)  # column-stochastic where a node has links
    system = (sparse.identity(n, format="csc") - damping * walk).tocsc()
    scores = spsolve(system, (1.0 - damping) * restart)
    return np.asarray(scores).ravel()


def _labels(graph: WalkGraph, keys: list[str]) -> dict[str, str]:
    entity_ids = [k[2:] for k in keys if k.startswith("e:")]
    fact_ids = [int(k[2:]) for k in keys if k.startswith("f:")]
    labels = dict(graph.labels)
    for pk, name in Entity.objects.filter(pk__in=entity_ids).values_list("pk", "canonical_name"):
        labels[f"e:{pk}"] = name
    for pk, text in Fact.objects.filter(pk__in=fact_ids).values_list("pk", "text"):
        labels[f"f:{pk}"] = text
    return labels


_KIND = {"e": "entity", "f": "fact", "c": "chunk"}


def _path(graph, predecessors, node: int) -> list[int]:
    steps = [node]
    while predecessors[steps[-1]] >= 0 and len(steps) < 50:
        steps.append(int(predecessors[steps[-1]]))
    return steps[::-1]


def ppr_rank(
    *,
    seeds: list[str],
    damping: float = 0.5,
    k: int = 10,
    hops: int = HOPS,
    scopes: ScopeFilter | None = None,
    nearest_first: bool = False,
) -> dict:
    """Facts and chunks ranked by Personalized PageRank from ``seeds`` (entity ids);
    entities too, or with ``nearest_first`` by links from a seed, then by PageRank."""
    if not seeds:
        return {"facts": [], "chunks": [], "entities": []}
    graph = walk_graph(seeds, hops, scopes)
    matrix = graph.matrix()
    restart = np.zeros(len(graph.nodes))
    for seed in seeds:
        restart[graph.index[f"e:{seed}"]] = 1.0 / len(seeds)
    scores = pagerank(matrix, restart, damping)
    # Shortest paths in links (cost 1 per link) from the nearest seed.
    hops_matrix = matrix.copy()
    hops_matrix.data[:] = 1.0
    seed_nodes = [graph.index[f"e:{s}"] for s in seeds]
    dist, predecessors, _sources = dijkstra(
        hops_matrix, directed=False, indices=seed_nodes, min_only=True, return_predecessors=True
    )
    ranked = {"f": [], "c": [], "e": []}
    by_score = np.argsort(-scores, kind="stable")
    # A heavy two-link chain outscores a light direct edge: "nearest first" sorts by
    # distance before the score, so a neighbour one link away is never listed after it.
    by_distance = np.lexsort((-scores, dist)) if nearest_first else by_score
    for kinds, order in (("fc", by_score), ("e", by_distance)):
        for i in order:
            key = graph.nodes[i]
            bucket = ranked[key[0]]
            if key[0] not in kinds or len(bucket) >= k or scores[i] <= 0:
                continue
            if not (key[0] == "e" and i in seed_nodes):
                bucket.append(int(i))
    wanted = {
        n for bucket in ranked.values() for i in bucket for n in _path(graph, predecessors, i)
    }
    labels = _labels(graph, [graph.nodes[i] for i in wanted])

    def row(i: int) -> dict:
        key = graph.nodes[i]
        steps = _path(graph, predecessors, i)
        path = []
        for a, b in zip(steps, steps[1:], strict=False):
            pair = (min(a, b), max(a, b))
            path.append({"via": graph.link_label.get(pair, ""), "to": _step(graph, labels, b)})
        ident = key[2:]
        return {
            "id": int(ident) if key[0] != "e" else ident,
            "label": labels.get(key, ""),
            "score": round(float(scores[i]), 6),
            "hops": len(steps) - 1,
            "path": [_step(graph, labels, steps[0]), *path],
        }

    return {
        "facts": [row(i) for i in ranked["f"]],
        "chunks": [row(i) for i in ranked["c"]],
        "entities": [row(i) for i in ranked["e"]],
    }


def _step(graph: WalkGraph, labels: dict[str, str], node: int) -> dict:
    key = graph.nodes[node]
    ident = key[2:]
    return {
        "type": _KIND[key[0]],
        "id": int(ident) if key[0] != "e" else ident,
        "label": labels.get(key, ""),
    }


def neighbors(
    *, entity_id: str, hops: int = 1, k: int = 20, scopes: ScopeFilter | None = None
) -> list[dict]:
    """Entities within ``hops`` edges, nearest first, then by PageRank from the entity."""
    result = ppr_rank(
        seeds=[entity_id], damping=0.5, k=k, hops=hops, scopes=scopes, nearest_first=True
    )
    return result["entities"]


def ppr_retrieve(
    *,
    query_entities: list[str] | None = None,
    query: str = "",
    damping: float = 0.5,
    k: int = 10,
    hops: int = HOPS,
    scopes: ScopeFilter | None = None,
) -> dict:
    """HippoRAG-style retrieval: seeds from names (resolved like lookup) and from the
    known names in a free ``query``, then Personalized PageRank over the graph. A name
    that resolves to no entity starts no walk and is listed under ``unknown`` (never
    guessed at), so a caller can tell "nothing linked" from "no such entity"."""
    seeds: list[Entity] = []
    unknown: list[str] = []
    for i, name in enumerate(query_entities or []):
        entity = entity_resolve(name, field=f"query_entities.{i}")
        if entity is None:
            if name not in unknown:
                unknown.append(name)
        elif entity not in seeds:
            seeds.append(entity)
    if query:
        ids = [d.canonical_id for d in extract_entities(query) if d.canonical_id]
        seeds += [e for e in Entity.objects.filter(pk__in=ids) if e not in seeds]
    result = ppr_rank(seeds=[e.pk for e in seeds], damping=damping, k=k, hops=hops, scopes=scopes)
    return {"seeds": [entity_brief(e) for e in seeds], "unknown": unknown, **result}
