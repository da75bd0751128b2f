"""The lookup's hot path in plain SQL: the same answers as the ORM, without its cost.

``entity_lookup`` runs on every agent turn. Building and compiling a queryset costs
several times what the database spends answering it (at 10,000 entities, 0.97 ms
against about 0.02 ms for the same statements on a raw SQLite connection), so the few
statements of a lookup (hit: the match, then the details; miss: the match, the imported
id, the word starts, the candidates) are written out once per database vendor, executed
on the driver's own connection with one cursor kept per connection, and only the rows
shown are turned into model instances with ``Model.from_db``. Everything else stays ORM.

The statements mirror the querysets they replace; ``tests/entities/test_lookup.py``
holds the behaviour and ``tests/entities/test_lookup_sql.py`` checks the two paths agree.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from django.db import DEFAULT_DB_ALIAS, connections

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


def _mark(vendor: str) -> str:
    """The driver's parameter mark: sqlite3's qmark, psycopg's format style."""
    return "?" if vendor == "sqlite" else "%s"


@cache
def _statements(vendor: str) -> dict[str, str]:
    """Every statement of the hot path, for one vendor (built once per process).

    Table names come from the models; the columns are plain lower-case words that
    neither SQLite nor PostgreSQL reserves, so they are written unquoted.
    """
    p = _mark(vendor)
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
        # At most two: an id two stores both used names no entity for sure.
        "by_external_id": (
            f"{select_entities} JOIN {ExternalEntityId._meta.db_table} x"
            f" ON x.entity_id = e.id WHERE x.external_id = {p} LIMIT 2"
        ),
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
        # CROSS JOIN: SQLite joins in the order written (the entity's links, then each
        # fact by its key). With a plain JOIN its planner walked every fact of the scope
        # through (scope, kind, status) and probed the links: 1.9 ms a hit at 10,000
        # entities, growing with the facts. PostgreSQL plans it the same either way.
        "details_facts": (
            f" UNION ALL SELECT 1, NULL, NULL, l.fact_id FROM {link} l"
            f" CROSS JOIN {fact} f WHERE f.id = l.fact_id AND l.entity_id = {p}"
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
    parts = sql.split(_mark(_vendor()))
    out = [parts[0]]
    for value, part in zip(params, parts[1:], strict=True):
        out += [_literal(value), part]
    return "".join(out)


def _rows(sql: str, params: Sequence) -> list[tuple]:
    """The statement's rows, on the driver's connection.

    The connection handler is read once (``django.db.connection`` is a proxy that looks
    the thread's connection up on every attribute) and one driver cursor is kept per
    connection: at a few dozen microseconds a statement, these lookups were a fifth of
    a PostgreSQL hit's CPU time."""
    db = connections[DEFAULT_DB_ALIAS]
    raw = db.connection
    if raw is None or db.needs_rollback or db.queries_logged:
        return _rows_checked(db, sql, params)
    cursor = db.__dict__.get("_lookup_cursor")
    if cursor is None or cursor.connection is not raw:
        cursor = db.__dict__["_lookup_cursor"] = raw.cursor()
    cursor.execute(sql, params)
    return cursor.fetchall()


def _rows_checked(db, sql: str, params: Sequence) -> list[tuple]:
    """The general case: a connection to open, a transaction to respect, or the query
    log to write (under DEBUG, assertNumQueries, CaptureQueriesContext)."""
    db.ensure_connection()
    if db.needs_rollback:
        db.validate_no_broken_transaction()
    if not db.queries_logged:
        return db.connection.execute(sql, params).fetchall()
    started = time.monotonic()
    rows = db.connection.execute(sql, params).fetchall()
    elapsed = time.monotonic() - started
    db.queries_log.append({"sql": _logged(sql, params), "time": f"{elapsed:.3f}"})
    return rows


def _vendor() -> str:
    return connections[DEFAULT_DB_ALIAS].vendor


def entity_from_row(row: Sequence) -> Entity:
    # SQLite hands booleans back as 0/1; the ORM's converters would make them bool.
    values = (*row[:5], bool(row[5]), bool(row[6]), row[7])
    return Entity.from_db(DEFAULT_DB_ALIAS, ENTITY_FIELDS, values)


def _entities(rows: list[tuple]) -> list[Entity]:
    return [entity_from_row(row) for row in rows]


def entities_named(norm: str, entity_type: str | None) -> list[Entity]:
    """Entities whose canonical name is ``norm``, then those holding it as an alias (and
    not also as their name), by type; at most ``MAX_FOUND``."""
    sql = _statements(_vendor())
    if entity_type is None:
        return _entities(_rows(sql["found"], (norm, norm, norm)))
    return _entities(_rows(sql["found_typed"], (norm, entity_type, norm, norm, entity_type)))


def _scope_mode(scopes: ScopeFilter | None) -> tuple[str, list[str]]:
    """("all" | "one" | "global", the parameters of the condition)."""
    scopes = scopes or ScopeFilter()
    if scopes.all_scopes:
        return "all", []
    if scopes.scope:
        return "one", [scopes.scope, GLOBAL]
    return "global", [GLOBAL]


def _scope_condition_sql(vendor: str, mode: str, column: str) -> str:
    p = _mark(vendor)
    return {"all": "", "one": f" AND {column} IN ({p}, {p})", "global": f" AND {column} = {p}"}[
        mode
    ]


def external_refs(entity_id: str, scopes: ScopeFilter | None) -> dict[str, list[dict]]:
    """The entity's ids in imported memories, and the fact ids they linked to it there
    that ``scopes`` sees, each ordered by (store, id)."""
    vendor = _vendor()
    mode, params = _scope_mode(scopes)
    statement = _statements(vendor)["external"] + _scope_condition_sql(vendor, mode, "scope")
    rows = _rows(statement, [entity_id, entity_id, *params])
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


@cache
def _details_statement(vendor: str, with_status: bool, mode: str) -> str:
    sql = _statements(vendor)
    statement = sql["details_aliases"] + sql["details_facts"]
    if with_status:
        statement += sql["status"]
    statement += _scope_condition_sql(vendor, mode, "f.scope") + sql["details_links"]
    return statement + _scope_condition_sql(vendor, mode, "scope")


def details(entity_id: str, *, status: str | None, scopes: ScopeFilter | None) -> Details:
    """One entity's aliases as written (ordered by their normalised form), the ids of
    its facts with ``status`` that ``scopes`` sees (ascending) and its ``external_refs``,
    in one statement: a lookup hit costs two round trips, the match and this."""
    mode, scope_params = _scope_mode(scopes)
    params: list = [entity_id, entity_id, entity_id]
    if status:
        params.append(status)
    params += [*scope_params, entity_id, *scope_params]
    rows = _rows(_details_statement(_vendor(), bool(status), mode), params)
    aliases: list[tuple] = []
    facts: list[int] = []
    ids: list[tuple] = []
    links: list[tuple] = []
    for kind, first, second, number in rows:
        if kind == 0:
            aliases.append((first, second))
        elif kind == 1:
            facts.append(number)
        elif kind == 2:
            ids.append((first, second))
        else:
            links.append((first, second, number))
    aliases.sort()
    facts.sort()
    return Details(
        aliases=[alias for _norm, alias in aliases],
        facts=facts,
        external=_external(ids, links),
    )


def tokens_rows(prefixes: Sequence[str], entity_type: str | None, limit: int) -> list[tuple]:
    """(entity id, folded text) rows of the word-start index under each prefix (at most
    ``limit`` rows each, in the order of the prefixes) in one statement: a miss is one
    round trip for its candidates."""
    if not prefixes:
        return []
    sql = _statements(_vendor())
    if entity_type:
        statement, params = sql["tokens_typed"], [(prefix, entity_type) for prefix in prefixes]
    else:
        statement, params = sql["tokens"], [(prefix,) for prefix in prefixes]
    one = f"SELECT * FROM ({statement} LIMIT {int(limit)}) t{{n}}"
    compound = " UNION ALL ".join(one.format(n=n) for n in range(len(prefixes)))
    return [tuple(row) for row in _rows(compound, [p for group in params for p in group])]


def entity_rows_by_id(ids: Sequence[str]) -> list[tuple]:
    """Entity rows by primary key (the suggestions' in_bulk), for ``entity_from_row``:
    a caller that keeps a few of many builds only those."""
    if not ids:
        return []
    vendor = _vendor()
    marks = ", ".join([_mark(vendor)] * len(ids))
    select = _statements(vendor)["select_entities"]
    return _rows(f"{select} WHERE e.id IN ({marks})", list(ids))


def entity_by_external_id(value: str) -> Entity | None:
    """The one entity an imported memory knew by this id, or None (none, or two stores
    used it): ``selectors.entity_by_external_id`` on every missed lookup, in plain SQL."""
    rows = _rows(_statements(_vendor())["by_external_id"], [value])
    return entity_from_row(rows[0]) if len(rows) == 1 else None
