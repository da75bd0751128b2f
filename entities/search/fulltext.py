"""The full-text index of facts: the lexical path to a memory that names an identifier,
an error code or a version ("RS256", "kv/…", "E11000"), which sentence vectors blur.

SQLite: an FTS5 table with the fact table as its external content, kept in step by
database triggers (every insert, update and delete of a fact, ``bulk_create`` included).
PostgreSQL: a stored generated ``tsvector`` column with a GIN index, kept in step by the
database itself. Both index the text and a resolved unknown's resolution with no
stemming and no stop words of one language (memory is written in many), so a query
matches words and identifiers as written; prefixes of longer words match too. Both split
at every character that is not a letter or digit ("kv/orchard" is "kv" and "orchard"),
as ``words`` does for the query.

Django's SQLite schema editor rebuilds a table to alter it, which drops its triggers:
``fulltext_install`` (run by the migration, after every ``migrate`` and by
``manage.py rebuild_fulltext``) puts them back and is idempotent.
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from functools import lru_cache
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet
from django.db.models.expressions import RawSQL
from wordfreq import zipf_frequency

from kgsite.text import turkish_i_plain

FTS_TABLE = "entities_fact_fts"
PG_COLUMN = "search_tsv"
PG_INDEX = "entities_fact_search_tsv"
MAX_TERMS = 32
# Words at least this long also match as a prefix ("retr" no, "retry" -> "retrying").
PREFIX_MIN = 5
# A word this common (Zipf frequency, in the most common of the languages below) says
# nothing about which memory is meant: dropped from the query.
COMMON_ZIPF = 5.3
LANGUAGES = ("en", "it", "pt", "es", "fr", "de")

# A broad scope asks the index for its best rows alone: ranking every match that the
# reader's scope sees before LIMIT (a join per matching row) was what made a query on a
# large table slow. Ranking costs the same whatever the LIMIT (every match is scored), so one
# round fetches FETCH rows; they are checked against the scope in CHECK-sized slices,
# best first, until enough pass. Only when none of them is enough and the index had
# more, a last round fetches MAX_FETCH.
FETCH = 2000
CHECK = 1000
MAX_FETCH = 10_000
# A scope of at most this many facts (a trigger's few kinds in one project) has its own
# matches ranked: few, whatever the size of the table.
SCOPED_MAX = 3000
# A term in more than this share of the facts (and in more than FREQUENT_MIN of them)
# is dropped from the query: it says little about which memory is meant, and matching
# it would make the index rank a large part of the table. Counted by the index itself
# (SQLite: an fts5vocab table; PostgreSQL: ANALYZE's most common lexemes).
FREQUENT_SHARE = 0.02
FREQUENT_MIN = 500
STATS_SECONDS = 60.0

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
VOCAB_TABLE = f"{FTS_TABLE}_vocab"

_SQLITE = [
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
    "text, resolved_by, content='entities_fact', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2')",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_ai AFTER INSERT ON entities_fact BEGIN "
    f"INSERT INTO {FTS_TABLE}(rowid, text, resolved_by) "
    "VALUES (new.id, new.text, new.resolved_by); END",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_ad AFTER DELETE ON entities_fact BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, text, resolved_by) "
    "VALUES ('delete', old.id, old.text, old.resolved_by); END",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_au AFTER UPDATE OF text, resolved_by "
    f"ON entities_fact BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, text, resolved_by) "
    "VALUES ('delete', old.id, old.text, old.resolved_by); "
    f"INSERT INTO {FTS_TABLE}(rowid, text, resolved_by) "
    "VALUES (new.id, new.text, new.resolved_by); END",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE} USING fts5vocab({FTS_TABLE}, 'row')",
]
_PG = [
    f"ALTER TABLE entities_fact ADD COLUMN IF NOT EXISTS {PG_COLUMN} tsvector "
    "GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace("
    "coalesce(text, '') || ' ' || coalesce(resolved_by, ''), '[^[:alnum:]]+', ' ', 'g'))) "
    "STORED",
    f"CREATE INDEX IF NOT EXISTS {PG_INDEX} ON entities_fact USING gin ({PG_COLUMN})",
]


def fulltext_install(conn=None) -> bool:
    """Create the index (and on SQLite its triggers) if missing; False on a database
    without full-text search (then recall works on vectors and entities alone)."""
    conn = conn or connection
    statements = {"sqlite": _SQLITE, "postgresql": _PG}.get(conn.vendor)
    if statements is None:
        return False
    with conn.cursor() as cursor:
        if conn.vendor == "postgresql":
            cursor.execute(
                "SELECT 1 FROM information_schema.columns WHERE table_name = 'entities_fact' "
                "AND column_name = %s AND table_schema = current_schema()",
                [PG_COLUMN],
            )
            has_column = cursor.fetchone() is not None
            cursor.execute(
                "SELECT 1 FROM pg_indexes WHERE indexname = %s AND schemaname = current_schema()",
                [PG_INDEX],
            )
            has_index = cursor.fetchone() is not None
            # Altering a table with pending trigger events fails, even when it changes nothing.
            statements = [
                sql
                for sql, done in zip(statements, (has_column, has_index), strict=True)
                if not done
            ]
        for sql in statements:
            cursor.execute(sql)
    return True


def fulltext_uninstall(conn=None) -> None:
    conn = conn or connection
    with conn.cursor() as cursor:
        if conn.vendor == "sqlite":
            for suffix in ("ai", "ad", "au"):
                cursor.execute(f"DROP TRIGGER IF EXISTS {FTS_TABLE}_{suffix}")
            cursor.execute(f"DROP TABLE IF EXISTS {VOCAB_TABLE}")
            cursor.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
        elif conn.vendor == "postgresql":
            cursor.execute(f"DROP INDEX IF EXISTS {PG_INDEX}")
            cursor.execute(f"ALTER TABLE entities_fact DROP COLUMN IF EXISTS {PG_COLUMN}")


def fulltext_rebuild() -> int:
    """Re-read every fact into the index (after a restore or a bulk load that bypassed
    the triggers); returns the number of facts indexed."""
    fulltext_install()
    return fulltext_rebuild_on(connection)


def fulltext_rebuild_on(conn) -> int:
    with conn.cursor() as cursor:
        if conn.vendor == "sqlite":
            cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")
        elif conn.vendor == "postgresql":
            cursor.execute(f"REINDEX INDEX {PG_INDEX}")
            # The most common lexemes, which the search drops from a query.
            cursor.execute(f"ANALYZE entities_fact ({PG_COLUMN})")
        _STATS.clear()
        _DOCS.clear()
        cursor.execute("SELECT count(*) FROM entities_fact")
        return int(cursor.fetchone()[0])


def words(text: str) -> list[str]:
    """Lower-cased words and identifier parts, as both indexes split them. In NFC, with
    the Turkish İ as I: PostgreSQL compares lexemes code point by code point, so a query
    typed decomposed ("cafe" + U+0301) or in capitals ("İZMIR", which ``lower`` turns
    into i + U+0307) found nothing there."""
    plain = unicodedata.normalize("NFC", turkish_i_plain(text or ""))
    return [w.lower() for w in _WORD.findall(plain)]


@lru_cache(maxsize=50_000)
def zipf(word: str) -> float:
    """How common a word is (Zipf scale, 0 for unknown words such as identifiers) in
    the most common of several languages: memory and queries mix them."""
    return max(zipf_frequency(word, lang, wordlist="small") for lang in LANGUAGES)


def query_terms(text: str) -> list[str]:
    """The words of ``text`` worth matching: distinct, not too common, rarest first."""
    seen: dict[str, float] = {}
    for word in words(text):
        if word in seen or (len(word) < 2 and not word.isdigit()):
            continue
        common = zipf(word)
        if common < COMMON_ZIPF:
            seen[word] = common
    return sorted(seen, key=lambda w: (seen[w], w))[:MAX_TERMS]


def _match_sqlite(terms: list[str]) -> str:
    return " OR ".join(f'"{t}"' + ("*" if len(t) >= PREFIX_MIN else "") for t in terms)


def _match_pg(terms: list[str]) -> str:
    return " | ".join(f"'{t}'" + (":*" if len(t) >= PREFIX_MIN else "") for t in terms)


def among(qs: QuerySet, ids) -> QuerySet:
    """The rows of ``qs`` whose primary key is in ``ids``: looked up by key, each checked
    against ``qs``'s filters (a correlated ``EXISTS``: SQLite otherwise probes a composite
    index once per scope, kind and id), the ids passed as one parameter (Django prepares
    each value of an ``IN`` list on its own)."""
    ids = [int(pk) for pk in ids]
    if connection.vendor == "sqlite":
        keys = RawSQL("SELECT value FROM json_each(%s)", [json.dumps(ids)])
    elif connection.vendor == "postgresql":
        keys = RawSQL("SELECT unnest(%s::bigint[])", [ids])
    else:
        return qs.filter(pk__in=ids)
    rows = qs.model._base_manager.order_by().filter(pk__in=keys)
    return rows.filter(Exists(qs.order_by().filter(pk=OuterRef("pk"))))


class Remembered:
    """Values remembered for ``STATS_SECONDS`` each, at most ``limit`` of them (all are
    forgotten when full): counts the search reads again and again, kept a minute."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: dict[Any, tuple[float, Any]] = {}

    def get(self, key: Any, default: Any = None) -> Any:
        found = self._items.get(key)
        if found is None or time.monotonic() - found[0] >= STATS_SECONDS:
            return default
        return found[1]

    def put(self, key: Any, value: Any) -> None:
        if key not in self._items and len(self._items) >= self.limit:
            self._items.clear()
        self._items[key] = (time.monotonic(), value)

    def clear(self) -> None:
        self._items.clear()


# (SQL, params) of a scope -> rows up to the cap asked: triggers count the same
# project's scope for every query.
_SIZES = Remembered(limit=1000)


def scope_size(qs: QuerySet, cap: int, *, known_only: bool = False) -> int | None:
    """How many rows ``qs`` has, counted up to ``cap + 1`` (a LIMIT: a broad scope costs
    no more than a small one) and remembered for ``STATS_SECONDS``; with
    ``known_only``, None unless remembered."""
    try:
        sql, params = qs.order_by().values("pk").query.sql_with_params()
    except EmptyResultSet:  # a filter that can match nothing ("session in []")
        return 0
    key = (qs.db, sql, tuple(map(str, params)), cap)
    size = _SIZES.get(key)
    if size is not None or known_only:
        return size
    size = qs.order_by().values("pk")[: cap + 1].count()
    _SIZES.put(key, size)
    return size


def _upper(prefix: str) -> str:
    """The first string after every string that starts with ``prefix``."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def _plain(term: str) -> str:
    """``term`` as the SQLite index stores it (diacritics removed)."""
    decomposed = unicodedata.normalize("NFD", term)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


# (vendor, database name) -> (rows, {lexeme: share of rows}) on PostgreSQL, (rows, {})
# on SQLite.
_STATS = Remembered(limit=100)


def _stats(cursor) -> tuple[float, dict[str, float]]:
    """(rows in the fact table, PostgreSQL's most common lexemes with their share),
    read at most once a minute."""
    key = (connection.vendor, str(connection.settings_dict.get("NAME")))
    cached = _STATS.get(key)
    if cached is not None:
        return cached
    common: dict[str, float] = {}
    if connection.vendor == "postgresql":
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = 'entities_fact'::regclass")
        rows = max(0.0, float(cursor.fetchone()[0]))
        cursor.execute(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
            "WHERE tablename = 'entities_fact' AND attname = %s "
            "AND schemaname = current_schema()",
            [PG_COLUMN],
        )
        found = cursor.fetchone()
        if found and found[0]:
            common = dict(zip(found[0], found[1], strict=False))
    else:
        cursor.execute("SELECT count(*) FROM entities_fact")
        rows = float(cursor.fetchone()[0])
    _STATS.put(key, (rows, common))
    return rows, common


def _frequent(terms: list[str], cursor) -> set[str]:
    """The terms found in more than ``FREQUENT_SHARE`` of the facts (and more than
    ``FREQUENT_MIN``), a prefix term counting every word it starts."""
    rows, common = _stats(cursor)
    cut = max(FREQUENT_MIN, FREQUENT_SHARE * rows)
    if rows <= cut:
        return set()
    docs: dict[str, float] = {}
    if connection.vendor == "postgresql":
        for t in terms:
            if len(t) >= PREFIX_MIN:
                docs[t] = rows * sum(f for w, f in common.items() if w.startswith(t))
            else:
                docs[t] = rows * common.get(t, 0.0)
    else:
        docs = _sqlite_docs(terms, cursor)
    return {t for t in terms if docs.get(t, 0.0) > cut}


# (database name, term) -> facts holding it: counting a term reads its whole list of
# facts (6 ms for a word in each of 100,000 facts), and a frequent word is the one
# every query repeats.
_DOCS = Remembered(limit=20_000)


def _sqlite_docs(terms: list[str], cursor) -> dict[str, float]:
    """How many facts hold each term (a prefix term: every word it starts), each count
    remembered for ``STATS_SECONDS`` as the table's size is."""
    name = str(connection.settings_dict.get("NAME"))
    docs: dict[str, float] = {}
    parts, args, asked = [], [], []
    for t in terms:
        cached = _DOCS.get((name, t))
        if cached is not None:
            docs[t] = cached
            continue
        plain, n = _plain(t), len(asked)
        asked.append(t)
        if len(t) >= PREFIX_MIN:
            parts.append(f"SELECT {n}, sum(doc) FROM {VOCAB_TABLE} WHERE term >= %s AND term < %s")
            args += [plain, _upper(plain)]
        else:
            parts.append(f"SELECT {n}, sum(doc) FROM {VOCAB_TABLE} WHERE term = %s")
            args.append(plain)
    if parts:
        cursor.execute(" UNION ALL ".join(parts), args)
        for n, count in cursor.fetchall():
            docs[asked[n]] = float(count or 0)
            _DOCS.put((name, asked[n]), docs[asked[n]])
    return docs


def fulltext_search(text: str, qs: QuerySet, *, limit: int) -> list[tuple[int, float]]:
    """Up to ``limit`` facts of ``qs`` matching the words of ``text``, best first, with
    a score that grows with the match (BM25 on SQLite, ts_rank_cd on PostgreSQL).

    Bounded: the words that are in a large share of the facts are left out. A small
    ``qs`` (at most ``SCOPED_MAX`` rows, counted in the database) has its own matches
    ranked; otherwise the index ranks its matches alone and returns its best
    ``FETCH``, checked against ``qs`` best first, more fetched while too few pass."""
    terms = query_terms(text)
    if not terms or limit <= 0 or connection.vendor not in ("sqlite", "postgresql"):
        return []
    with connection.cursor() as cursor:
        frequent = _frequent(terms, cursor)
        terms = [t for t in terms if t not in frequent]
        if not terms:
            return []
        if (scope_size(qs, SCOPED_MAX) or 0) <= SCOPED_MAX:
            return _scoped(cursor, terms, qs, limit)
        return _unscoped(cursor, terms, qs, limit)


def _scoped(cursor, terms: list[str], qs: QuerySet, limit: int) -> list[tuple[int, float]]:
    try:
        inner, params = qs.order_by().values("pk").query.sql_with_params()
    except EmptyResultSet:
        return []
    if connection.vendor == "sqlite":
        sql = (
            f"SELECT rowid, -bm25({FTS_TABLE}) FROM {FTS_TABLE} "
            # "+rowid": SQLite would otherwise look each of the scope's ids up in the
            # index (a full-text query per id: 0.7 s at 100,000 facts) instead of
            # reading the matches once and checking them against the list.
            f"WHERE {FTS_TABLE} MATCH %s AND +rowid IN ({inner}) "
            f"ORDER BY bm25({FTS_TABLE}), rowid LIMIT %s"
        )
        args = [_match_sqlite(terms), *params, limit]
    else:
        sql = (
            f"SELECT f.id, ts_rank_cd(f.{PG_COLUMN}, q) AS r "
            f"FROM entities_fact f, to_tsquery('simple'::regconfig, %s) q "
            f"WHERE f.{PG_COLUMN} @@ q AND f.id IN ({inner}) ORDER BY r DESC, f.id LIMIT %s"
        )
        args = [_match_pg(terms), *params, limit]
    cursor.execute(sql, args)
    return [(int(pk), float(score)) for pk, score in cursor.fetchall()]


def _unscoped(cursor, terms: list[str], qs: QuerySet, limit: int) -> list[tuple[int, float]]:
    if connection.vendor == "sqlite":
        sql = (
            f"SELECT rowid, -rank FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s "
            "ORDER BY rank, rowid LIMIT %s"
        )
        match = _match_sqlite(terms)
    else:
        sql = (
            f"SELECT f.id, ts_rank_cd(f.{PG_COLUMN}, q) AS r "
            f"FROM entities_fact f, to_tsquery('simple'::regconfig, %s) q "
            f"WHERE f.{PG_COLUMN} @@ q ORDER BY r DESC, f.id LIMIT %s"
        )
        match = _match_pg(terms)
    found: list[tuple[int, float]] = []
    checked = 0
    for fetch in (max(FETCH, limit), max(MAX_FETCH, limit)):
        cursor.execute(sql, [match, fetch])
        hits = [(int(pk), float(score)) for pk, score in cursor.fetchall()]
        while checked < len(hits) and len(found) < limit:
            fresh = hits[checked : checked + max(CHECK, limit)]
            checked += len(fresh)
            visible = set(among(qs, [pk for pk, _s in fresh]).values_list("pk", flat=True))
            found += [(pk, score) for pk, score in fresh if pk in visible]
        if len(found) >= limit or len(hits) < fetch:
            break
    return found[:limit]
