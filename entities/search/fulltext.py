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

import re
from functools import lru_cache

from django.db import connection
from django.db.models import QuerySet
from wordfreq import zipf_frequency

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

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

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
        cursor.execute("SELECT count(*) FROM entities_fact")
        return int(cursor.fetchone()[0])


def words(text: str) -> list[str]:
    """Lower-cased words and identifier parts, as both indexes split them."""
    return [w.lower() for w in _WORD.findall(text or "")]


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


def fulltext_search(text: str, qs: QuerySet, *, limit: int) -> list[tuple[int, float]]:
    """Up to ``limit`` facts of ``qs`` matching the words of ``text``, best first, with
    a score that grows with the match (BM25 on SQLite, ts_rank_cd on PostgreSQL).
    Bounded: the database stops at ``limit``."""
    terms = query_terms(text)
    if not terms or limit <= 0:
        return []
    inner, params = qs.order_by().values("pk").query.sql_with_params()
    if connection.vendor == "sqlite":
        sql = (
            f"SELECT rowid, -bm25({FTS_TABLE}) FROM {FTS_TABLE} "
            f"WHERE {FTS_TABLE} MATCH %s AND rowid IN ({inner}) "
            f"ORDER BY bm25({FTS_TABLE}) LIMIT %s"
        )
        args = [_match_sqlite(terms), *params, limit]
    elif connection.vendor == "postgresql":
        sql = (
            f"SELECT f.id, ts_rank_cd(f.{PG_COLUMN}, q) AS r "
            f"FROM entities_fact f, to_tsquery('simple'::regconfig, %s) q "
            f"WHERE f.{PG_COLUMN} @@ q AND f.id IN ({inner}) ORDER BY r DESC, f.id LIMIT %s"
        )
        args = [_match_pg(terms), *params, limit]
    else:
        return []
    with connection.cursor() as cursor:
        cursor.execute(sql, args)
        return [(int(pk), float(score)) for pk, score in cursor.fetchall()]
