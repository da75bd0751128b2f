"""Word-start index of entity names and aliases, for "did you mean" on a lookup miss.

A miss used to find its candidates with ``LIKE '% abc%'`` on both name tables: a scan of
every name (50 ms p50, 115 ms p99 at 100,000 entities and 300,000 aliases). Here each
word of a name or alias is stored under its first three characters (and those of its
transliteration, ö -> oe), one indexed row per word, so a miss reads only the rows of its
own word starts. The candidates are the same as before: a name some word of which starts
like a word of the query.

Kept in step inside the transaction of every entity write (``entities.services`` and
book ingestion's batch), and rebuilt from the tables by ``manage.py rebuild_name_index``
(after a bulk load that bypassed the services).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from django.db import connection, transaction

from .lookup_sql import tokens_rows
from .models import Alias, Entity, NameToken

PREFIX_CHARS = 3
# Rows read per word start of the query: bounds a miss on a very common start ("the").
# bench_lookup --quick (10,000 entities, SQLite), miss CPU time p50/p99: 200 rows
# 9.6/16.1 ms, 100 rows 8.2/13.1 ms (a hit alone costs 4.0/6.3 ms).
ROWS_PER_PREFIX = 100
_TRANSLIT = str.maketrans({"ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "ð": "d", "þ": "th"})
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})
_BATCH = 2000


def _fold_char(char: str) -> str:
    text = char.translate(_UMLAUTS).translate(_TRANSLIT)
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


class _FoldTable(dict):
    """Code point -> its fold, filled on first use (``str.translate`` asks ``__missing__``)."""

    def __missing__(self, code: int) -> str:
        folded = self[code] = _fold_char(chr(code))
        return folded


_FOLD_TABLE = _FoldTable()


def fold(text: str) -> str:
    """ASCII-ish fold used only to find and score suggestions (never to match).

    The umlauts and ligatures spelt out, then NFKD without the combining marks. Each
    code point folds on its own (NFKD decomposes one code point at a time, and the only
    marks it reorders are the combining ones, all dropped), so a table does it: a
    name-index rebuild folded each character of 400,000 names through NFKD and spent
    three quarters of its CPU time here."""
    if text.isascii():
        return text
    return text.translate(_FOLD_TABLE)


def prefixes(norm: str) -> set[str]:
    """The word starts a normalised text is found by (words of three characters or more)."""
    found: set[str] = set()
    for word in norm.split():
        if len(word) >= PREFIX_CHARS:
            found.add(word[:PREFIX_CHARS])
        folded = fold(word)
        if len(folded) >= PREFIX_CHARS:
            found.add(folded[:PREFIX_CHARS])
    return found


def _rows(entity_id: str, texts: Iterable[str]) -> list[NameToken]:
    return [
        NameToken(prefix=prefix, entity_id=pk, text=folded)
        for text in set(texts)
        for prefix, pk, folded in _token_tuples(entity_id, text)
    ]


@transaction.atomic
def name_index_refresh(*, entity_ids: Iterable[str]) -> None:
    """Re-derive the rows of these entities (created, renamed, aliases changed, deleted)."""
    ids = list(dict.fromkeys(entity_ids))
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        NameToken.objects.filter(entity_id__in=chunk).delete()
        texts: dict[str, list[str]] = {}
        for pk, norm in Entity.objects.filter(pk__in=chunk).values_list("pk", "name_norm"):
            texts.setdefault(pk, []).append(norm)
        for pk, norm in Alias.objects.filter(entity_id__in=chunk).values_list(
            "entity_id", "alias_norm"
        ):
            texts.setdefault(pk, []).append(norm)
        rows = [row for pk, names in texts.items() for row in _rows(pk, names)]
        NameToken.objects.bulk_create(rows, batch_size=_BATCH)


def _token_tuples(entity_id: str, norm: str) -> Iterable[tuple[str, str, str]]:
    """(word start, entity id, folded text) rows of one name or alias. The folded text is
    stored: a suggestion is scored on it, with no folding per query."""
    folded = fold(norm)
    for prefix in prefixes(norm):
        yield prefix, entity_id, folded


def _write_plain(rows: list[tuple[str, str, str]]) -> None:
    """Rows straight to the table: executemany on SQLite, COPY on PostgreSQL (the ORM's
    bulk_create builds a model instance and a parameter list per row: 8,000 rows/s)."""
    table = NameToken._meta.db_table
    columns = "prefix, entity_id, text"
    raw = connection.connection
    if connection.vendor == "postgresql":
        with raw.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        raw.executemany(f"INSERT INTO {table} ({columns}) VALUES (?, ?, ?)", rows)


def _secondary_indexes(cursor, table: str) -> list[tuple[str, str]]:
    """(name, CREATE statement) of the table's plain indexes (not primary or unique)."""
    if connection.vendor == "postgresql":
        cursor.execute(
            "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i"
            " WHERE i.indrelid = %s::regclass AND NOT i.indisprimary AND NOT i.indisunique",
            [table],
        )
    else:
        cursor.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s"
            " AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%%'",
            [table],
        )
    return list(cursor.fetchall())


def name_index_rebuild() -> int:
    """Every row from the name tables; returns how many were written.

    The table's indexes (word start, entity) are dropped while the rows go in and built
    once at the end with their own definitions: keeping them up to date row by row cost
    most of a rebuild at a million entities.
    """
    written = 0
    table = NameToken._meta.db_table
    with transaction.atomic():
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                # Foreign-key checks pending in this transaction run now: PostgreSQL
                # refuses TRUNCATE and CREATE INDEX on a table with checks pending.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(
                f"{'TRUNCATE' if connection.vendor == 'postgresql' else 'DELETE FROM'} {table}"
            )
            indexes = _secondary_indexes(cursor, table)
            for name, _create in indexes:
                cursor.execute(f"DROP INDEX {connection.ops.quote_name(name)}")
        connection.ensure_connection()
        batch: list[tuple[str, str, str]] = []
        names = Entity.objects.values_list("pk", "name_norm").order_by()
        aliases = Alias.objects.values_list("entity_id", "alias_norm").order_by()
        for queryset in (names, aliases):
            for pk, norm in queryset.iterator(chunk_size=_BATCH * 5):
                batch.extend(_token_tuples(pk, norm))
                if len(batch) >= _BATCH * 25:
                    _write_plain(batch)
                    written += len(batch)
                    batch = []
        _write_plain(batch)
        written += len(batch)
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                # Room to sort ten million word starts in memory (the default 64 MB
                # spills them to disk); this transaction only.
                cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
            for _name, create in indexes:
                cursor.execute(create)
            if connection.vendor == "postgresql":
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")  # Django's default again
    return written


def name_candidates(*, stems: Iterable[str], type: str | None = None) -> list[tuple[str, str]]:  # noqa: A002
    """(entity id, folded name or alias) pairs with a word starting with a stem."""
    # Plain SQL, every stem in one statement: this runs on every missed lookup.
    starts = list(dict.fromkeys(stem[:PREFIX_CHARS] for stem in stems))
    return list(dict.fromkeys(tokens_rows(starts, type, ROWS_PER_PREFIX)))
