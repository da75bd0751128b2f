"""The Model Context Protocol server (official ``mcp`` SDK) over the tools in ``tools.py``.

Scope comes from the server's configuration (``mcp_serve --scope`` or
``KGSITE_MCP_SCOPE``); a tool reads another project's memory only when the call sets
``all_scopes``. Every tool takes an optional ``uncertainty`` (0 to 1): above
``KGSITE_RECALL_UNCERTAINTY`` the result gains a ``memory_hint``. Domain errors become
MCP tool errors (``isError`` with "field: message"), never a crash of the server.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from django.db import close_old_connections
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from kgsite.errors import DomainError, InvalidInput

from . import limits, tools
from .tools import ToolContext

logger = logging.getLogger(__name__)

INSTRUCTIONS = """\
Long-term memory of entities, facts, decisions, mistakes, goals and past work, kept true
by human curators. Call recall_session_start once when a session begins, recall_pre_check
before a decision, recall_unknown before logging an unknown, recall_finding before
logging a finding, recall_domain before a tool call in a sensitive area. Every tool takes
an optional `uncertainty` (0-1): when you are unsure, pass it and relevant memory comes
back as `memory_hint`. Memory is scoped to this server's project plus global memory; pass
all_scopes only when the user asks about other projects."""

DESCRIPTIONS: dict[str, str] = {
    "entity_get": (
        "What do you know about X? Resolve a name (canonical name or alias, any case or "
        "Unicode form, an entity id another tool answered with (match: id), or an imported "
        "memory's entity id) to one entity with its aliases, "
        "facts and imported fact ids (external_facts; at most 100 each, the newest "
        "facts, with facts_total and external_facts_total). Answers entity: null with "
        "suggestions when the name is unknown (it never guesses), or ambiguous with "
        "candidates. Do not use it to validate a claim or to search a topic: use "
        "facts_search or recall for topics. Triggers: 'what do you know about X', 'who is "
        "X'; 'cosa sai di X', 'chi è X', 'cos'è X'."
    ),
    "entity_store": (
        "Create an entity (or return the existing one of that name and type) and add "
        "aliases. Call it when the user introduces a new named thing worth remembering. "
        "Do not call it for every noun: extract_entities tells you which names are known. "
        "Triggers: 'remember X as …'; 'ricordati di X', 'X è un/una …'."
    ),
    "facts_search": (
        "Facts closest in meaning to a topic (optionally of one kind). Use for 'what do we "
        "know about <topic>'. Not for a named entity (entity_get) or for a mixed answer "
        "(recall). Triggers: 'what do we know about <topic>'; 'cosa sappiamo su <tema>'."
    ),
    "facts_list": (
        "List facts by entity id, kind (goal, decision, mistake, ...) or status, newest "
        "first. Use to enumerate, e.g. all active goals. With ids: those facts, by our id "
        "or by an imported memory's fact id (an external reference when the store had no "
        "facts); ids takes no other filter. Not for relevance ranking."
    ),
    "fact_store": (
        "Store a fact, decision, investigation, mistake, dead_end, unknown, "
        "resolved_unknown (needs resolved_by), pattern (with domain) or goal in this "
        "project. An existing fact saying the same is confirmed instead (action: "
        "confirmed). Give subject, predicate and object (entity names or ids) to state a "
        "relation: it becomes an edge of the graph. Call recall_finding first when unsure "
        "whether it is new. Triggers: 'remember that …', 'note that …'; 'ricorda che …', "
        "'segna che …'."
    ),
    "fact_link": (
        "Link a stored fact (our id, or an imported memory's fact id) to more entities, "
        "after the fact. Use when a fact turns out to be about an entity it does not name."
    ),
    "graph_neighbors": (
        "Entities within 1 to 3 edges of an entity, nearest first, with the path to each. "
        "Use for 'what is connected to X'; 'cosa è collegato a X'. Not for facts (use "
        "ppr_retrieve or recall)."
    ),
    "search_by_entities": (
        "Facts about given entity names (or ids), ranked by meaning and entity overlap. "
        "Use when the question names entities ('Redis and Django'). Not for free text."
    ),
    "extract_entities": (
        "Which entities a text mentions (known ones resolved; include_unknown adds names "
        "found by NER). Use before entity_store or search_by_entities. Stores nothing."
    ),
    "notifications_digest": (
        "Curator notifications to show now: HIGH items in full, one question for MEDIUM, "
        "a badge count for LOW. Call at the start of a conversation turn with a human."
    ),
    "recall_session_start": (
        "Call once at the start of a session: the top active goals with relevant facts and "
        "past work, pending HIGH notices, and Markdown ('## Memory Context') to put in your "
        "context. Do not call it again mid-session."
    ),
    "recall_pre_check": (
        "Call before a decision or risky action: similar past decisions and "
        "investigations, mistakes and dead ends, with warnings in plain words. Not for "
        "general questions."
    ),
    "recall_unknown": (
        "Call before logging an unknown: says whether a similar unknown was already "
        "resolved (already_resolved with the resolution). If it was, use the resolution "
        "instead of logging the unknown."
    ),
    "recall_finding": (
        "Call before logging a finding: if a fact of this server's scope already says it, "
        "action is boost_confidence (with log=true its confidence rises instead of a copy "
        "being stored); otherwise create_new (log=true stores it). existing_fact may name "
        "a global fact that says it: a project's log never changes global memory. Pass "
        "session_id and ai_id as to fact_store: a logged finding records them."
    ),
    "recall_domain": (
        "Call before a tool call in a sensitive area (auth, api, db, deploy, ...): the "
        "patterns this project learned for the domains the call touches."
    ),
    "recall": (
        "Free recall: one ranked, deduplicated list of entities, facts, past work and book "
        "passages for a question, within a size budget. Use for open questions; use entity_get for "
        "one named thing. Triggers: 'do you remember …', 'what did we decide about …'; "
        "'ti ricordi …', 'cosa avevamo deciso su …'."
    ),
    "validate_knowledge": (
        "Check a claimed triple (subject, predicate, object) against the trained graph "
        "model: valid / uncertain / unlikely with a confidence, and the stored facts that "
        "support or contradict it. Use before trusting or storing a relation. Answers "
        "known: false for names or relations the model has not seen (it never guesses)."
    ),
    "infer_relationship": (
        "Which relation most probably links two known entities, ranked with confidence. "
        "Use when you know two things are related but not how."
    ),
    "find_related_entities": (
        "Entities that probably stand in a relation to an entity (outgoing or incoming), "
        "ranked, with the facts that already say so. Use to explore; not for lookup."
    ),
    "get_entity_graph": (
        "The neighbourhood of an entity: nodes and edges (relation, weight, fact ids) up "
        "to a depth. Use to show or reason over connections; not for plain facts. An "
        "unknown name is an error (as in graph_neighbors), never an empty graph."
    ),
    "ppr_retrieve": (
        "Multi-hop retrieval: facts and book passages reached from the entities of a "
        "question by Personalized PageRank, each with the path that led to it. Use when "
        "the answer may be two hops away; recall covers one-hop questions. Names that "
        "match no entity come back under 'unknown'."
    ),
    "episode_store": (
        "Record what was done in this session (a short narrative), so later sessions "
        "recall it as past work. Call at the end of a piece of work, not after every step."
    ),
}

TOOLS: dict[str, Callable[..., dict[str, Any]]] = {
    "entity_get": tools.entity_get,
    "entity_store": tools.entity_store,
    "facts_search": tools.facts_search,
    "facts_list": tools.facts_list,
    "fact_store": tools.fact_store,
    "fact_link": tools.fact_link,
    "search_by_entities": tools.search_by_entities,
    "extract_entities": tools.extract_entities,
    "notifications_digest": tools.notifications_digest,
    "recall_session_start": tools.recall_session_start,
    "recall_pre_check": tools.recall_pre_check,
    "recall_unknown": tools.recall_unknown,
    "recall_finding": tools.recall_finding,
    "recall_domain": tools.recall_domain,
    "recall": tools.recall_query,
    "episode_store": tools.episode_store,
    "validate_knowledge": tools.validate_knowledge,
    "infer_relationship": tools.infer_relationship,
    "find_related_entities": tools.find_related_entities,
    "get_entity_graph": tools.get_entity_graph,
    "graph_neighbors": tools.graph_neighbors,
    "ppr_retrieve": tools.ppr_retrieve,
}
WRITE_TOOLS = {"entity_store", "fact_store", "fact_link", "episode_store"}

UNCERTAINTY = inspect.Parameter(
    "uncertainty",
    inspect.Parameter.KEYWORD_ONLY,
    default=None,
    annotation=float | None,
)


def _message(exc: DomainError, accepted: set[str] | None = None) -> str:
    message, field = limits.snake_message(exc.message, exc.field, accepted or set())
    candidates = exc.extra.get("candidates") or []
    if candidates:
        # As the REST API's 409 lists them: the ids to call again with.
        listed = ", ".join(f"{c['id']} ({c['canonical_name']}, {c['type']})" for c in candidates)
        message = f"{message}; candidates: {listed}"
    return f"{field}: {message}" if field else message


def _validation_message(exc: ValidationError) -> str:
    """The SDK's argument check as one "field: message" line, like every other tool
    error: its own text spans lines, names an internal model and links pydantic's docs."""
    first = exc.errors()[0]
    parts = [str(part) for part in first["loc"]]
    # A union's branches (``ids.0.str``, ``ids.0.int``) are not the client's names.
    field = ".".join(parts[:1] + [p for p in parts[1:] if p.isdigit()]) or None
    if first["type"] == "missing":
        message = f"{field} is required"
    else:
        message = first["msg"][:1].lower() + first["msg"][1:]
    return f"{field}: {message}" if field else message


def _uncertainty(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput("uncertainty must be between 0 and 1", field="uncertainty")
    return float(value)


def tool_wrap(fn: Callable[..., dict[str, Any]], ctx: ToolContext, name: str) -> Callable:
    """The tool as the SDK sees it: the function's own arguments plus ``uncertainty``;
    the server's context bound; domain errors turned into tool errors."""
    signature = inspect.signature(fn, eval_str=True)
    params = [p for key, p in signature.parameters.items() if key != "ctx"]
    accepted = {p.name for p in params} | {"uncertainty"}

    def call(**kwargs: Any) -> dict[str, Any]:
        close_old_connections()
        try:
            uncertainty = _uncertainty(kwargs.pop("uncertainty", None))
            result = fn(ctx, **kwargs)
            if uncertainty is not None:
                hint = tools.memory_hint(ctx, arguments=kwargs, uncertainty=uncertainty)
                if hint is not None:
                    result["memory_hint"] = hint
            return result
        except DomainError as exc:
            raise ToolError(_message(exc, accepted)) from None
        finally:
            close_old_connections()

    call.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*params, UNCERTAINTY], return_annotation=dict[str, Any]
    )
    call.__name__ = name
    call.__doc__ = DESCRIPTIONS[name]
    return call


class StrictServer(MCPServer):
    """Refuses unknown arguments (naming them) and values over the REST API's caps before
    the SDK's own validation, which would silently drop an argument it does not know."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            schemas = tool.parameters.get("properties", {})
            try:
                limits.arguments_check(name, arguments or {}, set(schemas), schemas)
            except DomainError as exc:  # names the argument as the client sent it
                raise ToolError(f"Error executing tool {name}: {_message(exc)}") from None
            try:
                tool.fn_metadata.validate_arguments(arguments or {})
            except ValidationError as exc:
                message = f"Error executing tool {name}: {_validation_message(exc)}"
                raise ToolError(message) from None
        return await super().call_tool(name, arguments, context)


def mcp_server_build(ctx: ToolContext) -> MCPServer:
    """An MCP server over the memory, for this scope (writes off when read-only)."""
    server = StrictServer(name="kgsite-memory", instructions=INSTRUCTIONS, log_level="WARNING")
    for name, fn in TOOLS.items():
        if ctx.read_only and name in WRITE_TOOLS:
            continue
        server.add_tool(tool_wrap(fn, ctx, name), name=name, description=DESCRIPTIONS[name])
    return server
