"""The lookup's hot path in plain SQL: the same answers as the ORM, without its cost.

``entity_lookup`` runs on every agent turn. Building and compiling a queryset costs
several times what the database spends answering it (at 10,000 entities, 0.97 ms
against about 0.02 ms for the same statements on a raw SQLite connection), so the few
statements of a lookup are written out once per database vendor, executed on the
driver's own connection (psycopg prepares a statement it sees repeatedly), and their
rows turned into model instances with ``Model.from_db``. Everything else stays ORM.

The statements mirror the querysets they replace; ``tests/entities/test_lookup.py``
holds the behaviour and ``tests/entities/test_lookup_sql.py`` checks the two paths agree.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from django.db import connection

from .models import (
    Alias,
    Entity,
    EntityFact,
    ExternalEntityId,
    ExternalFactLink,
    Fact,
    NameToken,
)
from .scopes import GLOBAL, ScopeFilter

# The columns a lookup answer reads; the timestamps stay deferred (loaded on access).
ENTITY_FIELDS = ("id", "canonical_name", "name_norm", "type", "description", "curated",
                 "candidate", "evidence")  # fmt: skip
MAX_FOUND = 40


def _placeholder() -> str:
    return "?" if connection.vendor == "sqlite" else "%s"


@cache
def _statements(vendor: str) -> dict[str, str]:
    """Every statement of the hot path, for one vendor (built once per process).

    Table names come from the models; the columns are plain lower-case words that
    neither SQLite nor PostgreSQL reserves, so they are written unquoted.
    """
    p = "?" if vendor == "sqlite" else "%s"
    entity, alias = Entity._meta.db_table, Alias._meta.db_table
    link, fact, token = EntityFact._meta.db_table, Fact._meta.db_table, NameToken._meta.db_table
    columns = ", ".join(f"e.{field}" for field in ENTITY_FIELDS)
    select_entities = f"SELECT {columns} FROM {entity} e"
    by_name = f"{select_entities} WHERE e.name_norm = {p}"
    by_alias = (
        f"SELECT {columns} FROM {entity} e JOIN {alias} a ON a.entity_id = e.id"
        f" WHERE a.alias_norm = {p} AND NOT (e.name_norm = {p})"
    )
    typed = f" AND e.type = {p}"
    # ORDER BY/LIMIT on the whole compound; 4 is the type column.
    tail = f" ORDER BY 4 LIMIT {MAX_FOUND}"
    tokens = f"SELECT t.entity_id, t.text FROM {token} t"
    return {
        "select_entities": select_entities,
        "found": f"{by_name} UNION ALL {by_alias}{tail}",
        "found_typed": f"{by_name}{typed} UNION ALL {by_alias}{typed}{tail}",
        "status": f" AND f.status = {p}",
        # The entity's ids in imported memories (kind 0) and the fact ids they linked to
        # it (kind 1, scoped like facts): one round trip for both.
        "external": (
            f"SELECT 0, store, external_id, NULL FROM {ExternalEntityId._meta.db_table}"
            f" WHERE entity_id = {p} UNION ALL SELECT 1, store, external_id, fact_id"
            f" FROM {ExternalFactLink._meta.db_table} WHERE entity_id = {p}"
        ),
        # A hit's whole answer in one round trip: (kind, text, text, id) rows, kind 0 the
        # aliases (norm, as written), 1 the fact ids, 2 the imported ids (store, id),
        # 3 the imported fact links (store, id, fact). The NULLs are typed for
        # PostgreSQL's UNION; the conditions on facts and links are appended per call.
        "details_aliases": (
            f"SELECT 0, alias_norm, alias, CAST(NULL AS bigint) FROM {alias}"
            f" WHERE entity_id = {p}"
            f" UNION ALL SELECT 2, store, external_id, NULL"
            f" FROM {ExternalEntityId._meta.db_table} WHERE entity_id = {p}"
        ),
        "details_facts": (
            f" UNION ALL SELECT 1, NULL, NULL, l.fact_id FROM {link} l"
            f" JOIN {fact} f ON f.id = l.fact_id WHERE l.entity_id = {p}"
        ),
        "details_links": (
            f" UNION ALL SELECT 3, store, external_id, fact_id"
            f" FROM {ExternalFactLink._meta.db_table} WHERE entity_id = {p}"
        ),
        "tokens": f"{tokens} WHERE t.prefix = {p}",
        "tokens_typed": (
            f"{tokens} JOIN {entity} e ON e.id = t.entity_id WHERE t.prefix = {p} AND e.type = {p}"
        ),
    }


def _literal(value: object) -> str:
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _logged(sql: str, params: Sequence) -> str:
    """The statement with its parameters written in, as Django's query log shows SQL."""
    parts = sql.split(_placeholder())
    out = [parts[0]]
    for value, part in zip(params, parts[1:], strict=True):
        out += [_literal(value), part]
    return "".join(out)


def _rows(sql: str, params: Sequence) -> list[tuple]:
    connection.ensure_connection()
    if not connection.queries_logged:
        return connection.connection.execute(sql, params).fetchall()
    # Under DEBUG or assertNumQueries / CaptureQueriesContext: logged like ORM queries.
    started = time.monotonic()
    rows = connection.connection.execute(sql, params).fetchall()
    elapsed = time.monotonic() - started
    connection.queries_log.append({"sql": _logged(sql, params), "time": f"{elapsed:.3f}"})
    return rows


def _entities(rows: list[tuple]) -> list[Entity]:
    db = connection.alias
    # SQLite hands booleans back as 0/1; the ORM's converters would make them bool.
    return [
        Entity.from_db(db, ENTITY_FIELDS, (*row[:5], bool(row[5]), bool(row[6]), row[7]))
        for row in rows
    ]


def entities_named(norm: str, entity_type: str | None) -> list[Entity]:
    """Entities whose canonical name is ``norm``, then those holding it as an alias (and
    not also as their name), by type; at most ``MAX_FOUND``."""
    sql = _statements(connection.vendor)
    if entity_type is None:
        return _entities(_rows(sql["found"], (norm, norm, norm)))
    return _entities(_rows(sql["found_typed"], (norm, entity_type, norm, norm, entity_type)))


def _scope_condition(scopes: ScopeFilter | None, column: str) -> tuple[str, list[str]]:
    scopes = scopes or ScopeFilter()
    p = _placeholder()
    if scopes.all_scopes:
        return "", []
    if scopes.scope:
        return f" AND {column} IN ({p}, {p})", [scopes.scope, GLOBAL]
    return f" AND {column} = {p}", [GLOBAL]


def external_refs(entity_id: str, scopes: ScopeFilter | None) -> dict[str, list[dict]]:
    """The entity's ids in imported memories, and the fact ids they linked to it there
    that ``scopes`` sees, each ordered by (store, id)."""
    condition, params = _scope_condition(scopes, "scope")
    rows = _rows(
        _statements(connection.vendor)["external"] + condition, [entity_id, entity_id, *params]
    )
    ids = [(store, ext) for kind, store, ext, _fact in rows if kind == 0]
    return _external(ids, [(store, ext, fact) for kind, store, ext, fact in rows if kind == 1])


def _external(ids: list[tuple], links: list[tuple]) -> dict[str, list[dict]]:
    return {
        "external_ids": [{"store": store, "id": ext} for store, ext in sorted(ids)],
        "external_facts": [
            {"store": store, "id": ext, "fact": fact} for store, ext, fact in sorted(links)
        ],
    }


@dataclass(frozen=True)
class Details:
    aliases: list[str]
    facts: list[int]
    external: dict[str, list[dict]]


def details(entity_id: str, *, status: str | None, scopes: ScopeFilter | None) -> Details:
    """One entity's aliases as written (ordered by their normalised form), the ids of
    its facts with ``status`` that ``scopes`` sees (ascending) and its ``external_refs``,
    in one statement: a lookup hit costs two round trips, the match and this."""
    sql = _statements(connection.vendor)
    statement = sql["details_aliases"] + sql["details_facts"]
    params: list = [entity_id, entity_id, entity_id]
    if status:
        statement += sql["status"]
        params.append(status)
    condition, scope_params = _scope_condition(scopes, "f.scope")
    statement += condition + sql["details_links"]
    params += [*scope_params, entity_id]
    condition, scope_params = _scope_condition(scopes, "scope")
    rows = _rows(statement + condition, [*params, *scope_params])
    by_kind: dict[int, list[tuple]] = {0: [], 1: [], 2: [], 3: []}
    for kind, first, second, number in rows:
        by_kind[kind].append((first, second, number))
    return Details(
        aliases=[alias for _norm, alias, _n in sorted(by_kind[0])],
        facts=sorted(number for _a, _b, number in by_kind[1]),
        external=_external([row[:2] for row in by_kind[2]], by_kind[3]),
    )


def token_rows(prefix: str, entity_type: str | None, limit: int) -> list[tuple[str, str]]:
    """(entity id, folded text) rows of the word-start index under one prefix."""
    sql = _statements(connection.vendor)
    if entity_type:
        statement, params = sql["tokens_typed"], (prefix, entity_type)
    else:
        statement, params = sql["tokens"], (prefix,)
    return [tuple(row) for row in _rows(f"{statement} LIMIT {int(limit)}", params)]


def entities_by_id(ids: Sequence[str]) -> dict[str, Entity]:
    """Entities by primary key (the suggestions' in_bulk)."""
    if not ids:
        return {}
    marks = ", ".join([_placeholder()] * len(ids))
    select = _statements(connection.vendor)["select_entities"]
    rows = _rows(f"{select} WHERE e.id IN ({marks})", list(ids))
    return {e.id: e for e in _entities(rows)}
