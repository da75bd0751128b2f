"""The MCP tools' argument checks: the same caps as the REST API, read from the REST
serializers themselves (one place decides both), unknown arguments refused, and error
fields named as the MCP client sent them (snake_case).

A tool argument is capped by the REST field it stands for (``CAPS``); a string argument
without one is held to ``DEFAULT_TEXT_CAP`` and a structured one (``recall_domain``'s
``arguments``) to ``STRUCTURE_CAP`` characters of JSON and ``MAX_DEPTH`` levels, so no
argument is processed at a size the API would refuse.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from rest_framework import serializers

from kgsite.errors import InvalidInput

DEFAULT_TEXT_CAP = 10_000
STRUCTURE_CAP = 20_000
MAX_DEPTH = 20

# (tool, argument) -> (REST serializer dotted path, field). Caps change in one place.
CAPS: dict[tuple[str, str], tuple[str, str]] = {
    ("entity_store", "description"): ("entities.serializers.EntityWriteSerializer", "description"),
    ("entity_store", "aliases"): ("entities.serializers.EntityWriteSerializer", "aliases"),
    ("facts_search", "q"): ("entities.search.serializers.FactSearchQuerySerializer", "q"),
    ("fact_store", "predicate"): ("entities.serializers.FactWriteSerializer", "predicate"),
    ("fact_store", "object_value"): ("entities.serializers.FactWriteSerializer", "object_value"),
    ("fact_store", "source"): ("entities.serializers.FactWriteSerializer", "source"),
    ("fact_store", "domain"): ("entities.serializers.FactWriteSerializer", "domain"),
    ("fact_store", "session_id"): ("entities.serializers.FactWriteSerializer", "session_id"),
    ("fact_store", "ai_id"): ("entities.serializers.FactWriteSerializer", "ai_id"),
    ("fact_store", "entities"): ("entities.serializers.FactWriteSerializer", "entities"),
    ("fact_link", "entities"): ("entities.serializers.FactWriteSerializer", "entities"),
    ("search_by_entities", "entities"): (
        "entities.search.serializers.EntitySearchRequestSerializer",
        "entities",
    ),
    ("search_by_entities", "entity_types"): (
        "entities.search.serializers.EntitySearchRequestSerializer",
        "entityTypes",
    ),
    ("extract_entities", "text"): (
        "entities.extraction.serializers.ExtractRequestSerializer",
        "text",
    ),
    ("recall_pre_check", "action"): ("entities.recall.api.PreCheckRequestSerializer", "action"),
    ("recall_unknown", "text"): ("entities.recall.api.UnknownRequestSerializer", "text"),
    ("recall_finding", "text"): ("entities.recall.api.FindingRequestSerializer", "text"),
    ("recall_finding", "domain"): ("entities.recall.api.FindingRequestSerializer", "domain"),
    ("recall_finding", "session_id"): (
        "entities.recall.api.FindingRequestSerializer",
        "session_id",
    ),
    ("recall_finding", "ai_id"): ("entities.recall.api.FindingRequestSerializer", "ai_id"),
    ("recall_domain", "tool"): ("entities.recall.api.DomainRequestSerializer", "tool"),
    ("recall", "query"): ("entities.recall.api.QueryRequestSerializer", "query"),
    ("episode_store", "narrative"): ("entities.recall.api.EpisodeWriteSerializer", "narrative"),
    ("episode_store", "session_id"): ("entities.recall.api.EpisodeWriteSerializer", "session_id"),
    ("episode_store", "ai_id"): ("entities.recall.api.EpisodeWriteSerializer", "ai_id"),
    ("episode_store", "entities"): ("entities.recall.api.EpisodeWriteSerializer", "entities"),
    ("episode_store", "facts"): ("entities.recall.api.EpisodeWriteSerializer", "facts"),
    ("validate_knowledge", "subject"): ("entities.graph.api.ValidateRequestSerializer", "subject"),
    ("validate_knowledge", "predicate"): (
        "entities.graph.api.ValidateRequestSerializer",
        "predicate",
    ),
    ("validate_knowledge", "object"): ("entities.graph.api.ValidateRequestSerializer", "object"),
    ("infer_relationship", "head"): ("entities.graph.api.InferRequestSerializer", "head"),
    ("infer_relationship", "tail"): ("entities.graph.api.InferRequestSerializer", "tail"),
    ("find_related_entities", "entity"): ("entities.graph.api.RelatedRequestSerializer", "entity"),
    ("find_related_entities", "relation"): (
        "entities.graph.api.RelatedRequestSerializer",
        "relation",
    ),
    ("find_related_entities", "entity_type"): (
        "entities.graph.api.RelatedRequestSerializer",
        "entityType",
    ),
    ("ppr_retrieve", "query"): ("entities.graph.api.PPRRequestSerializer", "query"),
    ("ppr_retrieve", "query_entities"): (
        "entities.graph.api.PPRRequestSerializer",
        "query_entities",
    ),
}


@cache
def _field(path: str, name: str) -> serializers.Field:
    module, _, cls = path.rpartition(".")
    serializer = getattr(__import__(module, fromlist=[cls]), cls)()
    return serializer.fields[name]


def _check_text(value: str, cap: int | None, name: str) -> None:
    if "\x00" in value:  # no column holds one: PostgreSQL failed the tool with no message
        raise InvalidInput(f"{name} contains a NUL character", field=name)
    if cap is not None and len(value) > cap:
        raise InvalidInput(f"{name} is longer than {cap} characters", field=name)


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def _types(schema: dict[str, Any]) -> set[str]:
    """The JSON types an argument's schema allows (``anyOf`` for an optional one)."""
    found = {schema["type"]} if isinstance(schema.get("type"), str) else set()
    for option in schema.get("anyOf", ()):
        found |= _types(option)
    return found


def _item_types(schema: dict[str, Any]) -> set[str]:
    """The JSON types an array argument's items allow."""
    found: set[str] = set()
    for option in [schema, *schema.get("anyOf", ())]:
        if option.get("type") == "array":
            found |= _types(option.get("items", {}))
    return found


def arguments_check(
    tool: str,
    arguments: dict[str, Any],
    accepted: set[str],
    schemas: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Refuse unknown arguments (naming them), values over the API's caps, and true or
    false for a number (the SDK reads ``true`` as 1 or 1.0; the REST API refuses it)."""
    unknown = sorted(set(arguments) - accepted)
    if unknown:
        raise InvalidInput(
            f"unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"{tool} takes {', '.join(sorted(accepted))}",
            field=unknown[0],
        )
    for name, value in arguments.items():
        types = _types((schemas or {}).get(name, {}))
        if isinstance(value, bool) and types & {"integer", "number"} and "boolean" not in types:
            wanted = "a whole number" if "number" not in types else "a number"
            raise InvalidInput(f"{name} must be {wanted}, not {str(value).lower()}", field=name)
        mapped = CAPS.get((tool, name))
        field = _field(*mapped) if mapped else None
        if isinstance(value, str):
            cap = getattr(field, "max_length", None) if field else DEFAULT_TEXT_CAP
            _check_text(value, cap or DEFAULT_TEXT_CAP, name)
        elif isinstance(value, list):
            _check_list(value, field, name)
            _check_flags(value, _item_types((schemas or {}).get(name, {})), name)
        elif isinstance(value, dict):
            if _depth(value) > MAX_DEPTH:
                raise InvalidInput(f"{name} is nested deeper than {MAX_DEPTH} levels", field=name)
            if len(json.dumps(value, ensure_ascii=False, default=str)) > STRUCTURE_CAP:
                raise InvalidInput(f"{name} is larger than {STRUCTURE_CAP} characters", field=name)


def _check_list(value: list, field: serializers.Field | None, name: str) -> None:
    most = getattr(field, "max_length", None) if field else None
    if most is not None and len(value) > most:
        raise InvalidInput(f"{name} takes at most {most} items", field=name)
    child = getattr(field, "child", None)
    cap = getattr(child, "max_length", None) or DEFAULT_TEXT_CAP
    for i, item in enumerate(value):
        if isinstance(item, str):
            _check_text(item, cap, f"{name}.{i}")
        elif isinstance(item, list | dict):
            raise InvalidInput(f"{name}.{i} must be a single value", field=f"{name}.{i}")


def _check_flags(value: list, types: set[str], name: str) -> None:
    """``true`` or ``false`` among whole numbers (``"ids": [true]``): the SDK would read
    it as the id 1."""
    if "integer" not in types or "boolean" in types:
        return
    wanted = "a whole number or a string" if "string" in types else "a whole number"
    for i, item in enumerate(value):
        if isinstance(item, bool):
            raise InvalidInput(
                f"{name}.{i} must be {wanted}, not {str(item).lower()}", field=f"{name}.{i}"
            )


_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake(name: str) -> str:
    return _CAMEL.sub(lambda m: "_" + m.group(1).lower(), name)


def snake_message(message: str, field: str | None, accepted: set[str]) -> tuple[str, str | None]:
    """An error raised with the REST API's camelCase names, renamed to the tool's own."""
    if not field:
        return message, field
    head, _, rest = field.partition(".")
    renamed = snake(head)
    if renamed == head or renamed not in accepted:
        return message, field
    message = re.sub(rf"\b{re.escape(head)}\b", renamed, message)
    return message, renamed + (f".{rest}" if rest else "")
