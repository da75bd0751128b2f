"""The MCP tools: thin calls to the same services and selectors as the REST API.

Each function parses its arguments, calls one service or selector and returns plain
data. ``server.py`` registers them with their descriptions (when to call each one and
when not to), the server's scope, and the high-uncertainty memory hint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from kgsite.errors import DomainError, InvalidInput
from kgsite.text import shows_nothing
from kgsite.times import timestamp

from .. import hooks, selectors, services
from ..extraction import extract_entities as gazetteer_extract
from ..graph import ppr as graph_ppr
from ..graph import selectors as graph_selectors
from ..models import Entity, EntityFact, Fact
from ..names import normalize_type
from ..recall import selectors as recall
from ..recall.items import MAX_TEXT
from ..recall.options import RecallOptions
from ..recall.services import episode_store as episode_store_service
from ..recall.services import finding_fields_check, recall_finding_log
from ..scopes import ScopeFilter, key_clean
from ..search import ranking

MAX_LIST = 100


@dataclass(frozen=True)
class ToolContext:
    """What the server was started with: its project scope, whether it may write, and
    the user its writes are audited as (None: unaudited machine writes)."""

    scope: str = ""
    read_only: bool = False
    username: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def scopes(self, all_scopes: bool = False) -> ScopeFilter:
        return ScopeFilter.of(self.scope, bool(all_scopes))

    def actor(self):
        if not self.username:
            return None
        return get_user_model().objects.filter(username=self.username).first()

    def writable(self) -> None:
        if self.read_only:
            raise InvalidInput("this memory server is read-only", field=None)


def fact_brief(fact: Fact) -> dict[str, Any]:
    return {
        "id": fact.pk,
        "text": fact.text,
        "kind": fact.kind,
        "confidence": fact.confidence,
        "confirmations": fact.confirmations,
        "status": fact.status,
        "scope": fact.scope,
    }


def entity_get(ctx: ToolContext, *, name: str, type: str | None = None, all_scopes: bool = False):  # noqa: A002
    scopes = ctx.scopes(all_scopes)
    result = selectors.entity_lookup(name=name, type=type or None, scopes=scopes)
    own = _entity_by_own_id(name) if result.match == "none" else None
    if own is not None and (not type or normalize_type(type) == own.type):
        # The id another tool answered with (a merged-away one stands for its survivor).
        result = selectors.entity_lookup(name=own.canonical_name, type=own.type, scopes=scopes)
        result.match = "id"
    payload = _capped(result.as_dict())
    facts = Fact.objects.in_bulk(payload["facts"])
    payload["fact_texts"] = [fact_brief(facts[i]) for i in payload["facts"] if i in facts]
    return payload


def _capped(payload: dict[str, Any]) -> dict[str, Any]:
    """At most ``MAX_LIST`` fact ids and imported fact ids, the newest facts (as
    facts_list with entity answers them), with the totals: an entity of 100,000 facts
    made an answer of megabytes."""
    for key in ("facts", "external_facts"):
        rows = payload[key]
        payload[f"{key}_total"] = len(rows)
        if len(rows) > MAX_LIST:
            payload[key] = rows[-MAX_LIST:] if key == "facts" else rows[:MAX_LIST]
    return payload


def _entity_by_own_id(value: str) -> Entity | None:
    value = value.strip()
    found = Entity.objects.filter(pk=value).first()
    if found is None and (target := selectors.entity_redirect_target(entity_id=value)):
        found = Entity.objects.filter(pk=target).first()
    return found


def entity_store(
    ctx: ToolContext,
    *,
    name: str,
    type: str | None = None,  # noqa: A002
    description: str = "",
    aliases: list[str] | None = None,
):
    ctx.writable()
    with transaction.atomic():  # a refused alias stores no entity, as the REST API does
        entity, created = services.entity_store(
            name=name, type=type, description=description, actor=ctx.actor()
        )
        for i, alias in enumerate(aliases or ()):
            try:
                services.alias_add(entity=entity, alias=alias, actor=ctx.actor())
            except DomainError as exc:
                exc.field = f"aliases.{i}"  # the argument's item, as its other checks name it
                raise
    answer = {
        "created": created,
        "entity": {
            "id": entity.pk,
            "canonical_name": entity.canonical_name,
            "type": entity.type,
            "description": entity.description,
        },
        "aliases": sorted(entity.aliases.values_list("alias", flat=True)),
    }
    if description.strip() and description.strip() != entity.description.strip():
        # Never a silent loss: an entity keeps the description it already has.
        answer["description_kept"] = (
            "the entity already has another description; yours was not stored "
            "(a curator changes it on the entity page or with PATCH /api/v1/entities/<id>/)"
        )
    return answer


def facts_search(
    ctx: ToolContext, *, q: str, k: int = 10, kind: str | None = None, all_scopes: bool = False
):
    kinds = [selectors.fact_kind_valid(kind)] if kind else None
    return ranking.fact_search(q=q, k=k, scopes=ctx.scopes(all_scopes), kinds=kinds)


def facts_list(
    ctx: ToolContext,
    *,
    ids: list[str | int] | None = None,
    entity: str | None = None,
    kind: str | None = None,
    status: str | None = None,
    limit: int = 20,
    all_scopes: bool = False,
):
    if ids is not None:
        filters = {"entity": entity, "kind": kind, "status": status}
        given = [name for name, value in filters.items() if value is not None]
        if given:  # they filter a list; ids answers those facts whatever they are
            raise InvalidInput(f"ids cannot be combined with {given[0]}", field=given[0])
        resolved = selectors.fact_refs_resolve(ids=ids, scopes=ctx.scopes(all_scopes))
        return {
            "facts": [
                {**row, "fact": fact_brief(row["fact"]) if row["fact"] is not None else None}
                for row in resolved
            ]
        }
    if not 1 <= limit <= MAX_LIST:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIST}", field="limit")
    if entity:  # an unknown or merged-away id is an error, as in GET /facts/?entity=
        entity = selectors.entity_named(entity_id=entity, field="entity").pk
    qs = selectors.fact_list(entity=entity, kind=kind, status=status, scopes=ctx.scopes(all_scopes))
    return {"facts": [fact_brief(f) for f in qs[:limit]]}


def _entity_named(value: str | None, field: str, *, optional: bool = False):
    """An entity by id, name, alias or imported id; an unknown one is an error that
    says how to create it (a triple never invents its ends). Only an ``optional`` one
    (a triple's subject or object) may be left out, as None or ""; an empty name where
    an entity is required is an error naming the field."""
    if optional and (value is None or value == ""):
        return None
    found = graph_selectors.entity_resolve(value, field=field)
    if found is None:
        raise InvalidInput(f"no entity '{value}'; create it with entity_store first", field=field)
    return found


def fact_store(
    ctx: ToolContext,
    *,
    text: str,
    kind: str = "fact",
    entities: list[str] | None = None,
    subject: str | None = None,
    predicate: str = "",
    object: str | None = None,  # noqa: A002 - the triple's own word
    object_value: str = "",
    confidence: float = 1.0,
    source: str = "",
    goal_status: str = "",
    resolved_by: str = "",
    domain: str = "",
    session_id: str = "",
    ai_id: str = "",
):
    ctx.writable()
    linked = [_entity_named(e, f"entities.{i}") for i, e in enumerate(entities or ())]
    result = services.fact_store(
        text=text,
        subject=_entity_named(subject, "subject", optional=True),
        predicate=predicate,
        object_entity=_entity_named(object, "object", optional=True),
        object_value=object_value,
        kind=kind,
        entities=linked,
        confidence=confidence,
        source=source or "mcp",
        goal_status=goal_status,
        resolved_by=resolved_by,
        domain=domain,
        scope=ctx.scope,
        session_id=session_id,
        ai_id=ai_id,
        actor=ctx.actor(),
    )
    return {"action": result.action, "fact": fact_brief(result.fact)}


def fact_link(ctx: ToolContext, *, fact: int | str, entities: list[str], role: str = "mention"):
    """Link a stored fact (ours by id, or an imported memory's fact id) to entities."""
    ctx.writable()
    try:
        found = selectors.fact_refs_resolve(ids=[fact], scopes=ctx.scopes())[0]
    except DomainError as exc:  # the selector names a list the tool does not take
        if exc.field == "ids.0":
            exc.field = "fact"
            exc.message = exc.message.replace("each id", "fact").replace("an id", "fact")
        raise
    if found["fact"] is None:
        raise InvalidInput(f"no fact '{fact}' in this server's scope", field="fact")
    if role not in EntityFact.Role.values:
        raise InvalidInput(f"role must be one of {', '.join(EntityFact.Role.values)}", field="role")
    if not isinstance(entities, list) or not entities:
        raise InvalidInput("entities must be a non-empty list", field="entities")
    named = [_entity_named(name, f"entities.{i}") for i, name in enumerate(entities)]
    links = services.fact_entities_link(
        fact=found["fact"], entities=named, role=role, actor=ctx.actor()
    )
    return {
        "fact": fact_brief(found["fact"]),
        "links": [{"entity": entity.pk, "created": new} for entity, new in links],
    }


def search_by_entities(
    ctx: ToolContext,
    *,
    entities: list[str],
    entity_types: list[str] | None = None,
    match_mode: str = "any",
    top_k: int = 10,
    min_score: float = 0.2,
    boost_exact_match: float = 1.3,
    all_scopes: bool = False,
):
    return ranking.search_by_entities(
        entities=entities,
        entity_types=entity_types,
        match_mode=match_mode,
        top_k=top_k,
        min_score=min_score,
        boost_exact_match=boost_exact_match,
        include_content=True,
        scopes=ctx.scopes(all_scopes),
    )


def extract_entities(ctx: ToolContext, *, text: str, include_unknown: bool = False):
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("text must not be empty", field="text")
    found = gazetteer_extract(text, include_unknown=include_unknown)
    return {"entities": [d.as_dict() for d in found], "count": len(found)}  # as the REST API


def notifications_digest(ctx: ToolContext, *, all_scopes: bool = False):
    providers = hooks.digest_providers()
    if not providers:
        return {"high": [], "high_count": 0, "medium": {"count": 0, "question": ""}, "badge": 0}
    return providers[0](scopes=ctx.scopes(all_scopes))


def _options(overrides: dict[str, Any]) -> RecallOptions:
    return RecallOptions.of({k: v for k, v in overrides.items() if v is not None})


def recall_session_start(
    ctx: ToolContext,
    *,
    session_id: str = "",
    budget_chars: int | None = None,
    recent_sessions: int | None = None,
    ai_id: str | None = None,
    all_scopes: bool = False,
):
    return recall.recall_session_start(
        scopes=ctx.scopes(all_scopes),
        session_id=key_clean(session_id, field="session_id"),
        options=_options(
            {"budget_chars": budget_chars, "recent_sessions": recent_sessions, "ai_id": ai_id}
        ),
    )


def recall_pre_check(
    ctx: ToolContext, *, action: str, similarity: float | None = None, all_scopes: bool = False
):
    return recall.recall_pre_check(
        action=action, scopes=ctx.scopes(all_scopes), options=_options({"similarity": similarity})
    )


def recall_unknown(ctx: ToolContext, *, text: str, all_scopes: bool = False):
    return recall.recall_unknown(text=text, scopes=ctx.scopes(all_scopes), options=_options({}))


def recall_finding(
    ctx: ToolContext,
    *,
    text: str,
    kind: str = "fact",
    log: bool = False,
    confidence: float = 1.0,
    resolved_by: str = "",
    domain: str = "",
    session_id: str = "",
    ai_id: str = "",
):
    selectors.fact_kind_valid(kind)  # as POST /recall/finding: never searched as another kind
    for key, value in (("ai_id", ai_id), ("session_id", session_id)):
        key_clean(value, field=key)  # refused as a logged one is, with or without log
    if not 0 <= confidence <= 1:  # as POST /recall/finding: refused with or without log
        raise InvalidInput("confidence must be between 0 and 1", field="confidence")
    finding_fields_check(kind=kind, resolved_by=resolved_by, domain=domain)
    result = recall.recall_finding(text=text, scope=ctx.scope, kind=kind)
    result.update({"logged": None, "fact": None})  # as POST /recall/finding answers
    if log:
        # As POST /recall/finding: the memory the finding named is the one confirmed.
        ctx.writable()
        stored = recall_finding_log(
            text=text,
            scope=ctx.scope,
            kind=kind,
            fields={
                "confidence": confidence,
                "source": "mcp",
                "resolved_by": resolved_by,
                "domain": domain,
                # Whose finding, as fact_store and POST /recall/finding record it.
                "session_id": session_id,
                "ai_id": ai_id,
            },
            actor=ctx.actor(),
        )
        result["logged"] = stored.action
        result["fact"] = fact_brief(stored.fact)
    return result


def recall_domain(
    ctx: ToolContext, *, tool: str, arguments: dict | None = None, all_scopes: bool = False
):
    return recall.recall_domain(
        tool=tool, arguments=arguments or {}, scopes=ctx.scopes(all_scopes), options=_options({})
    )


def recall_query(
    ctx: ToolContext,
    *,
    query: str,
    budget_chars: int | None = None,
    recent_sessions: int | None = None,
    ai_id: str | None = None,
    all_scopes: bool = False,
):
    options = {"budget_chars": budget_chars, "recent_sessions": recent_sessions, "ai_id": ai_id}
    return recall.recall_query(
        query=query, scopes=ctx.scopes(all_scopes), options=_options(options)
    )


def episode_store(
    ctx: ToolContext,
    *,
    narrative: str,
    session_id: str = "",
    ai_id: str = "",
    entities: list[str] | None = None,
    facts: list[int | str] | None = None,
):
    """As POST /recall/episodes: the entities (names, aliases or ids) and the facts (in
    this server's scope) the work was about are linked to the episode."""
    ctx.writable()
    named = [_entity_named(e, f"entities.{i}") for i, e in enumerate(entities or ())]
    linked = []
    if facts:
        for i, row in enumerate(selectors.fact_refs_resolve(ids=facts, scopes=ctx.scopes())):
            if row["fact"] is None:
                raise InvalidInput(
                    f"no fact '{row['id']}' in this server's scope", field=f"facts.{i}"
                )
            linked.append(row["fact"])
    episode = episode_store_service(
        narrative=narrative,
        scope=ctx.scope,
        session_id=session_id,
        ai_id=ai_id,
        entities=named,
        facts=linked,
        actor=ctx.actor(),
    )
    return {  # the fields POST /api/v1/recall/episodes answers
        "id": episode.pk,
        "narrative": episode.narrative,
        "scope": episode.scope,
        "session_id": episode.session_id,
        "ai_id": episode.ai_id,
        "created_at": timestamp(episode.created_at),
    }


def memory_hint(ctx: ToolContext, *, arguments: dict[str, Any], uncertainty: float):
    """The high-uncertainty trigger: memory close to what the call is about. Its words
    are cut to a trigger's length: a call may carry more (an episode's narrative), and
    the call itself, maybe a write already made, must not fail for its hint."""
    values = [w for v in arguments.values() for w in (v if isinstance(v, list) else [v])]
    # Names given as a list (search_by_entities' entities) are words of the call too.
    words = [v for v in values if isinstance(v, str) and not shows_nothing(v)]
    text = " ".join(words)[:MAX_TEXT]
    if not text:
        return None
    return recall.recall_uncertainty_hint(
        text=text, scopes=ctx.scopes(), options=RecallOptions.defaults(), uncertainty=uncertainty
    )


# --- The graph (TransE and Personalized PageRank) --------------------------------------
# Every read sees the server's scope only: edges, weights, paths and fact ids count the
# facts of that view, and TransE answers from a model trained on that view or on global
# memory (``entities.graph.kge.model_current``).


def validate_knowledge(
    ctx: ToolContext,
    *,
    subject: str,
    predicate: str,
    object: str,  # noqa: A002
    all_scopes: bool = False,
):
    return graph_selectors.kge_validate(
        subject=subject, predicate=predicate, obj=object, scopes=ctx.scopes(all_scopes)
    )


def infer_relationship(
    ctx: ToolContext, *, head: str, tail: str, top_k: int = 5, all_scopes: bool = False
):
    return graph_selectors.kge_infer_relation(
        head=head, tail=tail, top_k=top_k, scopes=ctx.scopes(all_scopes), top_k_field="top_k"
    )


def find_related_entities(
    ctx: ToolContext,
    *,
    entity: str,
    relation: str,
    direction: str = "outgoing",
    entity_type: str | None = None,
    top_k: int = 10,
    min_score: float = 0.0,
    all_scopes: bool = False,
):
    if entity_type is not None and (not isinstance(entity_type, str) or shows_nothing(entity_type)):
        # As the REST field refuses it: a blank type filtered on nothing, unsaid.
        raise InvalidInput("entity_type must not be empty", field="entity_type")
    return graph_selectors.kge_related(
        entity=entity,
        relation=relation,
        direction=direction,
        entity_type=entity_type,
        top_k=top_k,
        min_score=min_score,
        scopes=ctx.scopes(all_scopes),
        top_k_field="top_k",
    )


def get_entity_graph(
    ctx: ToolContext,
    *,
    entity: str,
    depth: int = 1,
    max_nodes: int = 50,
    types: list[str] | None = None,
    min_weight: float = 0.0,
    all_scopes: bool = False,
):
    wanted = _types(types)  # a bad argument is an error whether or not the name is known
    # An unknown name is a tool error, as in graph_neighbors (and a 404 in the REST API):
    # an empty graph of "entity": null read as an entity with no connections.
    found = _entity_named(entity, "entity")
    return graph_selectors.entity_graph(
        entity_id=found.pk,
        depth=depth,
        max_nodes=max_nodes,
        types=wanted,
        min_weight=min_weight,
        scopes=ctx.scopes(all_scopes),
    )


def _types(types: list[str] | None) -> list[str]:
    return graph_selectors.types_normalize(list(types or ()))


def graph_neighbors(
    ctx: ToolContext, *, entity: str, hops: int = 1, k: int = 20, all_scopes: bool = False
):
    if isinstance(hops, bool) or not 1 <= hops <= 3:
        raise InvalidInput("hops must be between 1 and 3", field="hops")
    if isinstance(k, bool) or not 1 <= k <= graph_ppr.K_MAX:
        raise InvalidInput(f"k must be between 1 and {graph_ppr.K_MAX}", field="k")
    found = _entity_named(entity, "entity")
    rows = graph_ppr.neighbors(entity_id=found.pk, hops=hops, k=k, scopes=ctx.scopes(all_scopes))
    return {"entity": graph_selectors.entity_brief(found), "neighbors": rows}


def ppr_retrieve(
    ctx: ToolContext,
    *,
    query: str = "",
    query_entities: list[str] | None = None,
    k: int = 10,
    damping: float = 0.5,
    hops: int = graph_ppr.HOPS,
    all_scopes: bool = False,
):
    if shows_nothing(query or "") and not query_entities:
        raise InvalidInput("give query or query_entities", field="query")
    if isinstance(k, bool) or not 1 <= k <= graph_ppr.K_MAX:  # the REST API's bound
        raise InvalidInput(f"k must be between 1 and {graph_ppr.K_MAX}", field="k")
    if isinstance(damping, bool) or not 0.05 <= damping <= 0.95:
        raise InvalidInput("damping must be between 0.05 and 0.95", field="damping")
    if isinstance(hops, bool) or not 1 <= hops <= graph_ppr.HOPS_MAX:  # as POST /graph/ppr
        raise InvalidInput(f"hops must be between 1 and {graph_ppr.HOPS_MAX}", field="hops")
    return graph_ppr.ppr_retrieve(
        query_entities=query_entities or [],
        query=query,
        k=k,
        damping=float(damping),
        hops=hops,
        scopes=ctx.scopes(all_scopes),
    )
