"""Entity-aware memory search and semantic fact search (read side).

``search_by_entities`` blends meaning and entities: it over-fetches facts close to the
query entities' names in the vector index, adds facts linked to those entities, finds
the entities each candidate mentions (``EntityFact`` links plus the gazetteer run over
the candidate's text at query time, so newly known names count at once), and scores

    score = (0.7 * cosine + 0.3 * Jaccard(query entities, candidate entities))
            * (1 + (boost - 1) * matched / len(query entities))

so a fact naming every query entity gets the full ``boost_exact_match``. Only active
facts are searched.

Both answers carry ``index_complete``: False while a missing index is being rebuilt by
the task queue (results come from the part indexed so far).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kgsite.errors import InvalidInput
from kgsite.text import normalize, shows_nothing
from kgsite.vectors import service as vectors

from ..extraction import AMBIGUOUS, extract_entities, gazetteer_get
from ..models import Entity, EntityFact, Fact
from ..names import normalize_type
from ..scopes import ScopeFilter
from ..selectors import entity_redirect_target

SIMILARITY_WEIGHT = 0.7
ENTITY_WEIGHT = 0.3
# Semantic candidates fetched per requested result, and the floor of that over-fetch.
OVERFETCH = 10
MIN_CANDIDATES = 100
# Facts linked to the query entities added as candidates (most recent first).
MAX_LINKED = 100
MATCH_MODES = ("any", "all")


@dataclass
class QueryEntity:
    """One name the caller asked about, resolved to the entities it may mean."""

    name: str
    ids: frozenset[str] = frozenset()
    canonical_name: str | None = None
    entity_type: str | None = None
    candidates: list[dict[str, str]] = field(default_factory=list)
    # Unknown to the graph: matched as words in the fact's text instead. False for a
    # name the graph knows under other types than the ones asked for.
    text_match: bool = True

    @cached_property
    def key(self) -> str:
        """Its element in the Jaccard sets: the entity id, else the normalised name."""
        return next(iter(self.ids)) if len(self.ids) == 1 else f"name:{normalize(self.name)}"

    @cached_property
    def name_norm(self) -> str:
        return normalize(self.name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "canonical_id": next(iter(self.ids)) if len(self.ids) == 1 else None,
            "canonical_name": self.canonical_name,
            "entity_type": self.entity_type,
            "resolved": bool(self.ids),
            "candidates": self.candidates,
        }


def _check(condition: bool, message: str, field_name: str) -> None:
    if not condition:
        raise InvalidInput(message, field=field_name)


def query_entities_resolve(
    names: Sequence[str], *, types: frozenset[str] | None = None
) -> list[QueryEntity]:
    """Map each name to entity ids: an exact name or alias first, else names inside it.

    An ambiguous name keeps every candidate (any of them counts as a match); a name the
    graph does not know stays unresolved and is matched as text.
    """
    resolved: list[QueryEntity] = []
    for raw in names:
        name = raw.strip()
        found = extract_entities(name, types=types)
        whole = [d for d in found if d.start == 0 and d.end == len(name)]
        picks = whole or found
        ids: set[str] = set()
        candidates: list[dict[str, str]] = []
        for d in picks:
            if d.canonical_id is not None:
                ids.add(d.canonical_id)
            elif d.entity_type == AMBIGUOUS:
                for c in d.candidates:
                    ids.add(c.entity_id)
                    candidates.append(
                        {
                            "id": c.entity_id,
                            "canonical_name": c.canonical_name,
                            "type": c.entity_type,
                        }
                    )
        single = picks[0] if len(picks) == 1 and picks[0].canonical_id else None
        canonical_name = single.canonical_name if single else None
        entity_type = single.entity_type if single else None
        own = None if ids else _entity_by_id(name, types)
        if own is not None:
            # The id another answer named it by (facts_search, entity_get, the graph).
            ids, canonical_name, entity_type = {own.pk}, own.canonical_name, own.type
        resolved.append(
            QueryEntity(
                name=name,
                ids=frozenset(ids),
                canonical_name=canonical_name,
                entity_type=entity_type,
                candidates=candidates,
                text_match=not ids and (types is None or name not in gazetteer_get()),
            )
        )
    return resolved


def _entity_by_id(value: str, types: frozenset[str] | None) -> Entity | None:
    """The entity ``value`` is the id of (a merged-away id: its survivor), of one of
    ``types`` when given; None otherwise."""
    found = Entity.objects.filter(pk=value).first()
    if found is None and (target := entity_redirect_target(entity_id=value)):
        found = Entity.objects.filter(pk=target).first()
    if found is None or (types is not None and found.type not in types):
        return None
    return found


def _mentions_text(norm_text: str, name_norm: str) -> bool:
    """Whole-word containment of an unresolved name in normalised text."""
    start = norm_text.find(name_norm)
    while start >= 0:
        end = start + len(name_norm)
        before = start == 0 or not norm_text[start - 1].isalnum()
        after = end == len(norm_text) or not norm_text[end].isalnum()
        if before and after:
            return True
        start = norm_text.find(name_norm, start + 1)
    return False


def _search_types(
    entities: object,
    entity_types: Sequence[str] | None,
    match_mode: str,
    top_k: int,
    min_score: float,
    boost_exact_match: float,
) -> frozenset[str] | None:
    """Check the parameters (400 naming the field); the normalised type filter."""
    _check(
        isinstance(entities, list | tuple) and 1 <= len(entities) <= 20,
        "give between 1 and 20 entity names",
        "entities",
    )
    for i, name in enumerate(entities):
        # A name of zero-width spaces or joiners shows nothing, as a blank one.
        _check(
            isinstance(name, str) and not shows_nothing(name),
            "entity names must be non-empty strings",
            f"entities.{i}",
        )
    _check(match_mode in MATCH_MODES, "matchMode must be 'any' or 'all'", "matchMode")
    _check(1 <= top_k <= 50, "topK must be between 1 and 50", "topK")
    _check(0 <= min_score <= 1, "minScore must be between 0 and 1", "minScore")
    _check(
        1 <= boost_exact_match <= 10, "boostExactMatch must be between 1 and 10", "boostExactMatch"
    )
    for i, kind in enumerate(entity_types or ()):
        # A blank type kept every name unresolved (no entity has the type ""), as the
        # REST field refuses it.
        _check(
            isinstance(kind, str) and not shows_nothing(kind),
            "entity types must be non-empty strings",
            f"entityTypes.{i}",
        )
    try:
        return frozenset(normalize_type(t) for t in entity_types) if entity_types else None
    except InvalidInput as exc:
        raise InvalidInput(exc.message, field="entityTypes") from None


def _entity_candidates(vector, query_ids: frozenset[str], top_k: int) -> dict[int, float]:
    """Index neighbours of the query, plus the latest facts linked to its entities."""
    scored = dict(vectors.search_vector("facts", vector, max(top_k * OVERFETCH, MIN_CANDIDATES)))
    if query_ids:
        # No join on the fact's status here: it made SQLite scan every link of a popular
        # entity (45 ms at 100k facts); inactive facts drop out with the rows below.
        linked = (
            EntityFact.objects.filter(entity_id__in=query_ids)
            .order_by("-fact_id")
            .values_list("fact_id", flat=True)[:MAX_LINKED]
        )
        extra = [fid for fid in linked if fid not in scored]
        if extra:
            scored.update(vectors.vector_index("facts").scores(vector, extra))
    return scored


def _active_rows(
    vector, scored: dict[int, float], visible
) -> tuple[dict[int, tuple[str, str]], dict[int, float]]:
    """(text, normalised text) of the active candidates the reader may see, and their
    re-checked scores."""
    rows = {
        pk: (text, norm)
        for pk, text, norm in visible.filter(
            pk__in=list(scored), status=Fact.Status.ACTIVE
        ).values_list("pk", "text", "text_norm")
    }
    # Hits that are not active facts any more are simply left out; verify_hits also
    # repairs ids whose row vanished or whose text changed since it was embedded.
    all_texts = dict(
        Fact.objects.filter(pk__in=[k for k in scored if k not in rows]).values_list("pk", "text")
    )
    all_texts.update({pk: text for pk, (text, _n) in rows.items()})
    return rows, vectors.verify_hits("facts", vector, scored, all_texts)


def _entities_of(
    candidates: list[int], rows: dict[int, tuple[str, str]], types: frozenset[str] | None
) -> dict[int, tuple[set[str], dict[str, str]]]:
    """Per candidate: the entity ids it is linked to or names, and names by id."""
    links: dict[int, set[str]] = {}
    link_qs = EntityFact.objects.filter(fact_id__in=candidates)
    if types is not None:
        link_qs = link_qs.filter(entity__type__in=types)
    for fact_id, entity_id in link_qs.values_list("fact_id", "entity_id"):
        links.setdefault(fact_id, set()).add(entity_id)
    # The gazetteer over the stored normalised text: same matches as extract_entities on
    # the text, without re-normalising every candidate (offsets are not needed here).
    gazetteer = gazetteer_get()
    result = {}
    for pk in candidates:
        mentioned = set(links.get(pk, ()))
        names: dict[str, str] = {}
        for d in gazetteer.find(rows[pk][1], types=types, normalized=True):
            if d.canonical_id is not None:
                mentioned.add(d.canonical_id)
                names.setdefault(d.canonical_id, d.canonical_name)
            else:
                mentioned.update(c.entity_id for c in d.candidates)
        result[pk] = (mentioned, names)
    return result


def _matched(
    query: list[QueryEntity], mentioned: set[str], names: dict[str, str], norm_text: str
) -> tuple[list[str], set[str]]:
    """The query entities a candidate matches: their display names and keys."""
    keys: set[str] = set()
    matched: list[str] = []
    for q in query:
        if q.ids:
            hit = q.ids & mentioned
            if hit:
                matched.append(q.canonical_name or names.get(next(iter(hit))) or q.name)
                keys.add(q.key)
        elif q.text_match and _mentions_text(norm_text, q.name_norm):
            matched.append(q.name)
            keys.add(q.key)
    return matched, keys


def search_by_entities(
    *,
    entities: Sequence[str],
    entity_types: Sequence[str] | None = None,
    match_mode: str = "any",
    top_k: int = 10,
    min_score: float = 0.2,
    include_content: bool = False,
    boost_exact_match: float = 1.3,
    scopes: ScopeFilter | None = None,
    kinds: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Facts about these entities, ranked by meaning and by the entities they mention.

    Only facts the reader's scope sees (global memory by default) and, with ``kinds``,
    of those kinds."""
    started = time.perf_counter()
    types = _search_types(entities, entity_types, match_mode, top_k, min_score, boost_exact_match)
    query = _distinct(query_entities_resolve(list(entities), types=types))
    result: dict[str, Any] = {
        "results": [],
        "detected_query_entities": [q.as_dict() for q in query],
        "total_candidates": 0,
    }
    vector = vectors.embed_query(", ".join(q.name for q in query))
    query_ids = frozenset().union(*(q.ids for q in query))
    scored = _entity_candidates(vector, query_ids, top_k)
    result["index_complete"] = vectors.vector_index("facts").complete
    if not scored:
        return _finish(result, started)
    scopes = scopes or ScopeFilter()
    visible = _visible_facts(scopes, kinds)
    rows, scored = _active_rows(vector, scored, visible)
    if len(rows) < top_k and (kinds or not scopes.all_scopes):
        # The index's neighbours are the whole memory's: other projects' facts can fill
        # them. Search again among the facts this reader sees.
        more = {pk: s for pk, s in _among_visible(vector, visible, top_k) if pk not in scored}
        more_rows, more = _active_rows(vector, more, visible)
        rows.update(more_rows)
        scored.update(more)
    candidates = [pk for pk in scored if pk in rows]
    result["total_candidates"] = len(candidates)

    ranked: list[dict[str, Any]] = []
    for pk, (mentioned, names) in _entities_of(candidates, rows, types).items():
        matched, keys = _matched(query, mentioned, names, rows[pk][1])
        if match_mode == "all" and len(matched) < len(query):
            continue
        # Entities the candidate mentions beyond the matched query ones.
        covered = set().union(*(q.ids for q in query if q.key in keys)) if keys else set()
        union = len(query) + len(mentioned - covered - query_ids)
        overlap = len(keys) / union if union else 0.0
        similarity = max(0.0, min(1.0, scored[pk]))
        score = SIMILARITY_WEIGHT * similarity + ENTITY_WEIGHT * overlap
        score *= 1 + (boost_exact_match - 1) * len(keys) / len(query)
        if score < min_score:
            continue
        item: dict[str, Any] = {
            "memory_id": pk,
            "score": round(score, 6),
            "similarity": round(similarity, 6),
            "entity_overlap": round(overlap, 6),
            "matched_entities": matched,
        }
        if include_content:
            item["content"] = rows[pk][0]
        ranked.append(item)
    ranked.sort(key=lambda r: (-r["score"], -r["similarity"], r["memory_id"]))
    result["results"] = ranked[:top_k]
    return _finish(result, started)


def _among_visible(vector, visible, top_k: int) -> list[tuple[int, float]]:
    """The nearest active facts among those ``visible``; none when they are too many
    to list (``FILTER_IDS``)."""
    ids = _listed_ids(visible.filter(status=Fact.Status.ACTIVE))
    if not ids:  # none, or too many to list
        return []
    fetch = max(top_k * OVERFETCH, MIN_CANDIDATES)
    return vectors.search_vector("facts", vector, fetch, filter_ids=ids)


def _distinct(query: list[QueryEntity]) -> list[QueryEntity]:
    """One query entity per entity (or unresolved name): "Redis" asked twice, or by
    name and by alias, must not halve the overlap of a fact that names it."""
    seen: set[str] = set()
    kept = []
    for q in query:
        if q.key not in seen:
            seen.add(q.key)
            kept.append(q)
    return kept


def _visible_facts(scopes: ScopeFilter, kinds: Sequence[str] | None):
    """Facts the reader's scope sees, of the given kinds (every kind when None)."""
    qs = Fact.objects.filter(scopes.q())
    return qs.filter(kind__in=list(kinds)) if kinds else qs


def _finish(result: dict[str, Any], started: float) -> dict[str, Any]:
    result["search_time_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return result


# --- Facts by topic -------------------------------------------------------------------

STATUS_ALL = "all"
# A filtered fact search lists the matching ids from the database up to this many and
# searches only among them; beyond, it over-fetches from the whole index and filters.
FILTER_IDS = 100_000


def _fact_filter(
    *,
    status: str,
    source: str | None,
    entity: str | None,
    scopes: ScopeFilter,
    kinds: Sequence[str] | None,
):
    """The facts a search may return, and whether anything narrows them."""
    qs = _visible_facts(scopes, kinds)
    if status != STATUS_ALL:
        qs = qs.filter(status=status)
    if source:
        qs = qs.filter(source=source)
    if entity:
        qs = qs.filter(pk__in=EntityFact.objects.filter(entity_id=entity).values("fact_id"))
    # Scope and kind filters usually keep many facts, like a status: over-fetch first.
    filtered = (
        status != STATUS_ALL or bool(source) or bool(entity) or not scopes.all_scopes or bool(kinds)
    )
    return qs, filtered


def _listed_ids(qs) -> list[int] | None:
    """The ids of the facts ``qs`` keeps, for a search among them only; None when they
    are more than ``FILTER_IDS``."""
    ids = list(qs.order_by().values_list("pk", flat=True)[: FILTER_IDS + 1])
    return ids if len(ids) <= FILTER_IDS else None


class _FactHits:
    """Nearest facts to one query vector that pass the filter ``qs``."""

    def __init__(self, vector, qs, k: int, min_score: float) -> None:
        self.vector, self.qs, self.k, self.min_score = vector, qs, k, min_score

    def ranked(self, hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """Hits re-checked against their rows, kept if they still pass the filters."""
        scored = dict(hits)
        texts = dict(Fact.objects.filter(pk__in=list(scored)).values_list("pk", "text"))
        scored = vectors.verify_hits("facts", self.vector, scored, texts)
        keep = set(self.qs.filter(pk__in=list(scored)).values_list("pk", flat=True))
        return sorted(
            ((pk, s) for pk, s in scored.items() if pk in keep and s >= self.min_score),
            key=lambda kv: (-kv[1], kv[0]),
        )

    def over_fetch(self, fetch: int) -> tuple[list[tuple[int, float]], bool]:
        """The ranked matches among the ``fetch`` nearest facts, and whether that is
        final: enough passed the filters, or the index has nothing more (or better)."""
        hits = vectors.search_vector("facts", self.vector, fetch)
        results = self.ranked(hits)
        done = (
            len(results) >= self.k
            or len(hits) < fetch
            or bool(hits and hits[-1][1] < self.min_score)
        )
        return results, done

    def among_filtered(self) -> list[tuple[int, float]] | None:
        """Search only among the matching facts, their ids taken from the database
        (bounded), exactly or through hnswlib's filter; None if they are too many."""
        ids = _listed_ids(self.qs)
        if ids is None:
            return None
        return self.ranked(vectors.search_vector("facts", self.vector, self.k * 2, filter_ids=ids))


def _fact_item(fact: Fact, score: float) -> dict[str, Any]:
    return {
        "id": fact.pk,
        "score": round(score, 6),
        "text": fact.text,
        "status": fact.status,
        "source": fact.source,
        "confidence": fact.confidence,
        "kind": fact.kind,
        "scope": fact.scope,
        "entities": [
            {
                "id": link.entity_id,
                "canonical_name": link.entity.canonical_name,
                "type": link.entity.type,
                "role": link.role,
            }
            for link in fact.entity_facts.all()
        ],
    }


def fact_search(
    *,
    q: str,
    k: int = 10,
    entity: str | None = None,
    status: str = "active",
    source: str | None = None,
    min_score: float = 0.0,
    scopes: ScopeFilter | None = None,
    kinds: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Facts closest in meaning to ``q``, optionally only those linked to an entity,
    of one status (``all`` for any), from one source or of some kinds; always only
    those the reader's scope sees (global memory by default)."""
    started = time.perf_counter()
    _check(isinstance(q, str) and not shows_nothing(q), "q must not be empty", "q")
    _check(1 <= k <= 50, "k must be between 1 and 50", "k")
    _check(0 <= min_score <= 1, "minScore must be between 0 and 1", "minScore")
    statuses = [*Fact.Status.values, STATUS_ALL]
    _check(status in statuses, f"status must be one of {', '.join(statuses)}", "status")
    qs, filtered = _fact_filter(
        status=status, source=source, entity=entity, scopes=scopes or ScopeFilter(), kinds=kinds
    )
    search = _FactHits(vectors.embed_query(q), qs, k, min_score)

    results: list[tuple[int, float]] = []
    done = False
    fetch = k * 4
    if filtered and not (entity or source):
        # A status filter alone usually keeps most facts ("active"): one plain search,
        # the over-fetch's first round (a later over-fetch goes on from the next size).
        results, done = search.over_fetch(fetch)
        fetch *= 4
    if filtered and not done:
        found = search.among_filtered()
        if found is not None:
            results, done = found, True
    # Unfiltered, or a filter matching too many facts to list: over-fetch and filter.
    while not done:
        results, done = search.over_fetch(fetch)
        fetch *= 4

    facts = Fact.objects.filter(pk__in=[pk for pk, _s in results[:k]]).prefetch_related(
        "entity_facts__entity"
    )
    by_id = {f.pk: f for f in facts}
    return {
        "results": [_fact_item(by_id[pk], s) for pk, s in results[:k] if pk in by_id],
        "index_complete": vectors.vector_index("facts").complete,
        "search_time_ms": round((time.perf_counter() - started) * 1000, 3),
    }
