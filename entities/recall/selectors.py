"""The recall triggers (read side): what an agent is told at the moments it needs memory.

Every answer lists ranked items, each with ``surfaced_because`` in plain words, and keeps
within a size budget: the items' texts (and, at session start, the Markdown rendering)
add up to at most ``budget_chars`` characters; what did not fit is counted in
``budget.omitted``. Only memory the reader's scope sees is ever considered
(``entities.scopes``): another project's facts and episodes never surface without the
``all_scopes`` opt-in.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from kgsite.vectors import service as vectors
from kgsite.vectors.index import KINDS

from .. import hooks
from ..extraction import extract_entities
from ..models import Entity, EntityFact, Fact
from ..scopes import ScopeFilter, key_clean
from ..search import ranking
from .domains import call_text, domain_candidates, domains_detect, recall_domain  # noqa: F401
from .findings import finding_restated, recall_finding  # noqa: F401
from .items import (
    CHUNK_CHARS,
    EPISODES_PER_GOAL,
    GOALS,
    MEMORY_KINDS,
    PRE_CHECK_LIMIT,
    PRE_CHECK_SHOWN,
    Budget,
    Fk,
    _cos,
    _episodes,
    _facts,
    _load_episodes,
    _load_facts,
    _load_many,
    _ms,
    _quote,
    _shown,
    episode_item,
    fact_item,
    text_check,
    warning_line,
)
from .models import Episode
from .options import RecallOptions, trigger_check
from .retrieval import nearest as _nearest
from .retrieval import nearest_many as _nearest_many

# --- Session start -------------------------------------------------------------------------


@dataclass
class GoalRecall:
    goal: Fact
    facts: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)


def _goals(scopes: ScopeFilter, options: RecallOptions) -> list[Fact]:
    qs = Fact.objects.filter(
        scopes.q(), kind=Fk.GOAL, goal_status=Fact.GoalStatus.ACTIVE, status=Fact.Status.ACTIVE
    )
    if options.ai_id:
        qs = qs.filter(ai_id=options.ai_id)
    return list(qs.order_by("-confidence", "-updated_at", "-id")[:GOALS])


def _goal_recalls(
    goals: list[Fact], scopes: ScopeFilter, options: RecallOptions, session_id: str
) -> list[GoalRecall]:
    """Each goal's relevant facts and past work: one batch for the model, and each kind
    searched for every goal at once (``nearest_many``)."""
    if not goals:
        return []
    matrix = list(vectors.embed_texts([g.text for g in goals]))
    facts_qs = _facts(scopes, MEMORY_KINDS, options).filter(confidence__gte=options.min_confidence)
    facts = _nearest_many(
        "facts", matrix, facts_qs, k=options.max_facts, min_score=options.relevance
    )
    episodes = _nearest_many(
        "episodes",
        matrix,
        _episodes(scopes, options, exclude_session=session_id),
        k=min(EPISODES_PER_GOAL, options.max_episodes),
        min_score=options.relevance,
    )
    out = []
    facts, episodes = _load_many(Fact, facts), _load_many(Episode, episodes)
    for goal, goal_facts, goal_episodes in zip(goals, facts, episodes, strict=True):
        label = f"goal #{goal.pk} {_quote(goal.text, 40)}"
        out.append(
            GoalRecall(
                goal=goal,
                facts=[
                    fact_item(f, s, f"relevant to active {label} (similarity {_cos(s)})")
                    for f, s in goal_facts
                ],
                episodes=[
                    episode_item(e, s, f"past work on active {label} (similarity {_cos(s)})")
                    for e, s in goal_episodes
                ],
            )
        )
    return out


def session_render(
    goals: list[dict[str, Any]], notices: list[dict[str, Any]], omitted: int = 0
) -> str:
    """The Markdown an agent's session hook injects into its context. With nothing
    shown, it says whether memory holds nothing or nothing fitted the budget."""
    lines = ["## Memory Context", ""]
    if not goals and not notices and omitted:
        lines.append(
            f"Active goals or notices are in memory, but none fits the budget "
            f"({omitted} left out): ask again with a larger budget_chars."
        )
    elif not goals and not notices:
        lines.append("No active goals or pending notices in memory.")
    for goal in goals:
        lines.append(f"### Goal: {_one_line(goal['goal']['text'])}")
        if goal["facts"]:
            lines += ["", "Relevant facts:"]
            lines += [
                f"- {_one_line(f['text'])} (confidence {f['confidence']:.2f})"
                for f in goal["facts"]
            ]
        if goal["episodes"]:
            lines += ["", "Past work:"]
            lines += [f"- {e['created_at'][:10]}: {_one_line(e['text'])}" for e in goal["episodes"]]
        lines.append("")
    if notices:
        lines += ["### Needs attention", ""]
        lines += [f"- {_one_line(n['text'])}" for n in notices]
    return "\n".join(lines).rstrip() + "\n"


def _one_line(text: str) -> str:
    """An item as one line of the rendering: an episode's narrative keeps its line
    breaks, and a line of it starting "### " or "- " read as a heading or an item of
    the context's own."""
    return " ".join(text.split())


def recall_session_start(
    *, scopes: ScopeFilter, session_id: str = "", options: RecallOptions
) -> dict[str, Any]:
    """The top active goals, each with relevant facts and past work, pending HIGH
    notifications, and a Markdown rendering of them within the budget."""
    trigger_check("session_start")
    started = time.perf_counter()
    session_id = key_clean(session_id, field="session_id")
    recalls = _goal_recalls(_goals(scopes, options), scopes, options, session_id)
    notices = [
        {
            "type": "notification",
            "id": n["id"],
            "text": n["title"],
            "link": n.get("link", ""),
            "surfaced_because": "pending HIGH notification for a curator",
        }
        for n in hooks.high_notices_get(scopes=scopes)
    ]
    # Fill in priority order: goals, then per goal its facts and episodes, then notices;
    # an item stays only if the whole rendering still fits.
    goals: list[dict[str, Any]] = []
    kept_notices: list[dict[str, Any]] = []
    omitted = 0

    def fits() -> bool:
        return len(session_render(goals, kept_notices)) <= options.budget_chars

    def attempt(target: list, item: dict) -> None:
        nonlocal omitted
        target.append(item)
        if not fits():
            target.pop()
            omitted += 1

    for recall in recalls:
        goal_item = fact_item(recall.goal, None, "active goal, among the top 3 by confidence")
        entry = {"goal": goal_item, "facts": [], "episodes": []}
        goals.append(entry)
        if not fits():
            goals.pop()
            omitted += 1 + len(recall.facts) + len(recall.episodes)
            continue
        for item in recall.facts:
            attempt(entry["facts"], item)
        for item in recall.episodes:
            attempt(entry["episodes"], item)
    for notice in notices:
        attempt(kept_notices, notice)
    context = session_render(goals, kept_notices, omitted)
    return {
        "scope": scopes.scope,
        "session_id": session_id,
        "goals": goals,
        "notifications": kept_notices,
        "context": context,
        "budget": {
            "limit_chars": options.budget_chars,
            "used_chars": len(context),
            "omitted": omitted,
        },
        "options": options.as_dict(),
        "took_ms": _ms(started),
    }


# --- Before a decision ---------------------------------------------------------------------


def recall_pre_check(*, action: str, scopes: ScopeFilter, options: RecallOptions) -> dict[str, Any]:
    """Similar past decisions and investigations, mistakes above the minimum confidence
    and dead ends, with plain warnings."""
    trigger_check("pre_check")
    started = time.perf_counter()
    action = text_check(action, "action")
    result = _shown(
        "pre_check", action, scopes, options, floor_option="similarity", k=PRE_CHECK_SHOWN
    )
    shown, learned = result.facts, result.scorer

    def of(wanted: Sequence[str], k: int, min_confidence: float = 0.0):
        return [
            (f, s, why)
            for f, s, why in shown
            if f.kind in wanted and f.confidence >= min_confidence
        ][:k]

    mistakes = [
        fact_item(
            f,
            s,
            f"a past mistake similar to this action ({why}, "
            f"confidence {f.confidence:.2f} ≥ {options.min_confidence:.2f})",
        )
        for f, s, why in of([Fk.MISTAKE], options.max_facts, options.min_confidence)
    ]
    dead_ends = [
        fact_item(f, s, f"an approach already tried without success ({why})")
        for f, s, why in of([Fk.DEAD_END], PRE_CHECK_LIMIT)
    ]
    # Warnings come before the budget cut: a mistake longer than the whole budget is left
    # out of the items, but its warning (quoted short, with its id) still reaches the agent.
    warnings = [warning_line("A similar action went wrong before", m) for m in mistakes]
    warnings += [warning_line("This was tried before and led nowhere", d) for d in dead_ends]
    budget = Budget(options.budget_chars)
    mistakes_items = budget.fit(mistakes)
    dead_items = budget.fit(dead_ends)
    similar_items = budget.fit(
        fact_item(f, s, f"a past {f.kind} similar to this action ({why})")
        for f, s, why in of([Fk.DECISION, Fk.INVESTIGATION], PRE_CHECK_LIMIT)
    )
    return {
        "action": action,
        "similar": similar_items,
        "mistakes": mistakes_items,
        "dead_ends": dead_items,
        "warnings": warnings,
        "budget": budget.as_dict(),
        "options": {**options.as_dict(), "scorer": "pre_check" if learned else None},
        "took_ms": _ms(started),
    }


# --- Before logging an unknown -------------------------------------------------------------


def recall_unknown(*, text: str, scopes: ScopeFilter, options: RecallOptions) -> dict[str, Any]:
    """Was this unknown already resolved? The resolved unknowns the scorer finds
    relevant (without one: at or above ``unknown_similarity``), and open unknowns
    already logged like it."""
    trigger_check("unknown")
    started = time.perf_counter()
    text = text_check(text, "text")
    result = _shown(
        "unknown", text, scopes, options, floor_option="unknown_similarity", k=2 * options.max_facts
    )
    shown, learned = result.facts, result.scorer
    cosines = {c.fact.pk: max(c.cosine, c.cosine_xl) for c in result.candidates}
    resolved = [x for x in shown if x[0].kind == Fk.RESOLVED_UNKNOWN][: options.max_facts]
    still_open = [x for x in shown if x[0].kind == Fk.UNKNOWN][: options.max_facts]
    budget = Budget(options.budget_chars)
    items = budget.fit(
        [
            *(
                fact_item(f, s, f"resolved unknown similar to yours ({why})")
                for f, s, why in resolved
            ),
            *(
                fact_item(f, s, f"the same unknown is already logged, still open ({why})")
                for f, s, why in still_open
            ),
        ]
    )
    # The answer itself, whether or not its item fits the budget: a resolution may be
    # longer than the whole budget, and the unknown is resolved all the same.
    first = resolved[0][0] if resolved else None
    already = None
    if first is not None:
        already = {
            "fact_id": first.pk,
            "original_unknown": first.text,
            "resolution": first.resolved_by,
            "confidence": first.confidence,
            # The cosine, as documented (the item's score is the scorer's probability).
            "similarity": round(cosines.get(first.pk, 0.0), 4),
        }
    return {
        "text": text,
        "already_resolved": already,
        "items": items,
        "budget": budget.as_dict(),
        "options": {**options.as_dict(), "scorer": "unknown" if learned else None},
        "took_ms": _ms(started),
    }


# --- Free query ----------------------------------------------------------------------------


def _merge(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (type, id): the best score, every reason."""
    merged: dict[tuple[str, Any], dict[str, Any]] = {}
    for item in items:
        key = (item["type"], item["id"])
        seen = merged.get(key)
        if seen is None:
            merged[key] = {**item}
            continue
        if (item.get("score") or 0) > (seen.get("score") or 0):
            seen["score"] = item["score"]
        if item["surfaced_because"] not in seen["surfaced_because"]:
            seen["surfaced_because"] += "; " + item["surfaced_because"]
    return sorted(merged.values(), key=lambda i: (-(i.get("score") or 0), i["type"], str(i["id"])))


def _entity_items(query: str, scopes: ScopeFilter) -> tuple[list[dict], list[str]]:
    """Entities the query names (gazetteer: canonical names and aliases)."""
    items: list[dict] = []
    names: list[str] = []
    found = {d.canonical_id: d for d in extract_entities(query) if d.canonical_id is not None}
    entities = Entity.objects.in_bulk(list(found))
    for d in found.values():
        entity = entities.get(d.canonical_id)
        if entity is None:
            continue
        names.append(d.surface_form)
        facts = (
            EntityFact.objects.filter(entity=entity, fact__status=Fact.Status.ACTIVE)
            .filter(scopes.q("fact__"))
            .count()
        )
        label = f" [{entity.type}]" if entity.type else ""
        items.append(
            {
                "type": "entity",
                "id": entity.pk,
                "text": f"{entity.canonical_name}{label}"
                + (f": {entity.description}" if entity.description else ""),
                "facts": facts,
                "score": 1.0,
                "surfaced_because": f"the query names {_quote(d.surface_form, 40)} (entity lookup)",
            }
        )
    return items, names


def _episode_items(query: str, scopes: ScopeFilter, options: RecallOptions) -> list[dict]:
    """Past work close to the query ("do you remember what we did about ..."), of the
    reader's view, within ``max_episodes``, ``recent_sessions`` and ``ai_id``."""
    found = _nearest(
        "episodes",
        vectors.embed_query(query),
        _episodes(scopes, options),
        k=options.max_episodes,
        min_score=options.relevance,
    )
    return [
        episode_item(e, s, f"past work close to the query (similarity {_cos(s)})")
        for e, s in _load_episodes(found)
    ]


def _chunk_items(query: str, k: int, min_score: float) -> list[dict]:
    """Book passages through the vectors room's "chunks" kind, when an app registers it."""
    kind = KINDS.get("chunks")
    if kind is None:
        return []
    hits = vectors.similar_items("chunks", query, k, min_score)
    texts = dict(kind.fetch([key for key, _s in hits]))
    return [
        {
            "type": "chunk",
            "id": key,
            "text": texts.get(key, "")[:CHUNK_CHARS],
            "score": round(score, 4),
            "surfaced_because": f"book passage close to the query (similarity {_cos(score)})",
        }
        for key, score in hits
        if key in texts
    ]


def _graph_items(query: str, scopes: ScopeFilter, options: RecallOptions, k: int) -> list[dict]:
    """Facts from graph retrieval (personalised PageRank), once the graph room registers
    a retriever through ``hooks.graph_retriever``; none is registered until then."""
    pairs: list[tuple[int, float]] = []
    for retriever in hooks.graph_retrievers():
        pairs += retriever(query, scope=scopes.scope, all_scopes=scopes.all_scopes, k=k)
    facts = Fact.objects.filter(scopes.q(), pk__in=[p for p, _s in pairs])
    if options.ai_id:
        facts = facts.filter(ai_id=options.ai_id)
    visible = {f.pk: f for f in facts}
    return [
        fact_item(visible[pk], s, f"reached through the entity graph (PageRank {s:.3f})")
        for pk, s in pairs
        if pk in visible
    ]


def recall_query(*, query: str, scopes: ScopeFilter, options: RecallOptions) -> dict[str, Any]:
    """One ranked, deduplicated list: entity lookup, entity-aware search, facts by
    meaning, book chunks and graph retrieval, within the budget."""
    trigger_check("query")
    started = time.perf_counter()
    query = text_check(query, "query")
    k = options.max_facts
    items, names = _entity_items(query, scopes)
    sources = ["lookup"]
    if names:
        found = ranking.search_by_entities(
            entities=names[:20],
            top_k=k,
            min_score=options.relevance,
            include_content=True,
            scopes=scopes,
            kinds=MEMORY_KINDS,
        )
        # Only the facts this request may see: with ``ai_id``, that agent's alone.
        facts = _facts(scopes, MEMORY_KINDS, options).in_bulk(
            [r["memory_id"] for r in found["results"]]
        )
        items += [
            fact_item(
                facts[r["memory_id"]],
                r["score"],
                f"about {', '.join(r['matched_entities']) or 'the query'} "
                f"(entity-aware search {r['score']:.2f})",
            )
            for r in found["results"]
            if r["memory_id"] in facts
        ]
        sources.append("search_by_entities")
    result = _shown("query", query, scopes, options, floor_option="relevance", k=k)
    shown, learned = result.facts, result.scorer
    items += [fact_item(f, s, f"a memory for this query ({why})") for f, s, why in shown]
    sources += ["facts", "fulltext"]
    if options.max_episodes:
        items += _episode_items(query, scopes, options)
        sources.append("episodes")
    chunks = _chunk_items(query, k, options.relevance)
    if "chunks" in KINDS:
        sources.append("chunks")
    items += chunks
    if hooks.graph_retrievers():
        items += _graph_items(query, scopes, options, k)
        sources.append("graph")
    budget = Budget(options.budget_chars)
    ranked = budget.fit(_merge(items))
    return {
        "query": query,
        "items": ranked,
        "sources": sources,
        "budget": budget.as_dict(),
        "options": {**options.as_dict(), "scorer": "query" if learned else None},
        "took_ms": _ms(started),
    }


# --- High uncertainty (MCP tool calls) -----------------------------------------------------


def recall_uncertainty_hint(
    *, text: str, scopes: ScopeFilter, options: RecallOptions, uncertainty: float
) -> dict[str, Any] | None:
    """Facts and episodes close to what an unsure agent is doing, or None when the
    uncertainty is not above the threshold (or the trigger is off)."""
    if uncertainty <= options.uncertainty or "uncertainty" in settings.KGSITE_RECALL_DISABLED:
        return None
    vector = vectors.embed_query(text_check(text, "text"))
    facts = _load_facts(
        _nearest(
            "facts",
            vector,
            _facts(scopes, MEMORY_KINDS, options).filter(confidence__gte=options.min_confidence),
            k=options.max_facts,
            min_score=options.relevance,
        )
    )
    episodes = _load_episodes(
        _nearest(
            "episodes",
            vector,
            _episodes(scopes, options),
            k=options.max_episodes,
            min_score=options.relevance,
        )
    )
    budget = Budget(options.budget_chars)
    return {
        "surfaced_because": (
            f"uncertainty {uncertainty:.2f} is above {options.uncertainty:.2f}: memory close to "
            "this call"
        ),
        "facts": budget.fit(fact_item(f, s, f"close to this call ({_cos(s)})") for f, s in facts),
        "episodes": budget.fit(
            episode_item(e, s, f"past work close to this call ({_cos(s)})") for e, s in episodes
        ),
    }
