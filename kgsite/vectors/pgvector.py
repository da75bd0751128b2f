"""The pgvector backend: vectors in PostgreSQL, beside the rows they describe.

Tables (``kgsite.models.StoredVector`` and ``VectorKindState``, created by migration
``kgsite.0002_vector_tables`` where the ``vector`` extension can be created)::

    kgsite_vector       (kind, key, hash, embedding vector): one row per item
    kgsite_vectorkind   (kind, signature, dim, complete): what the stored vectors are

The ``embedding`` column has no fixed dimension, since kinds differ (384 for texts,
another size for a trained model's vectors); each kind gets a partial HNSW index on an
expression of its own dimension (``(embedding::vector(384)) vector_cosine_ops WHERE kind
= 'facts' AND vector_dims(embedding) = 384``), created when the kind is first stored,
and searches order by that same expression so PostgreSQL uses it. A model of another
dimension gets an index of its own; the old one is dropped when the kind is rebuilt.

Consistency: nothing lives outside the database, so there is no journal, no reload and
no shared directory: every process reads the same rows. A change is written by the
process that committed the row, right after its commit (``writes_inline``), or by a
queued job for a large batch. The search layer re-checks hits against their rows as for
hnswlib, and the first use in a process reconciles the ids, so a crash between the two
commits is repaired the same way.

``complete`` and a missing or stale store (first use, another embedder): as for hnswlib,
a store of up to ``index.BUILD_INLINE`` rows (or any write) is built on the spot; a
larger one is marked incomplete in ``kgsite_vectorkind`` (every process sees it) and a
rebuild is queued.
"""

from __future__ import annotations

import logging
import re
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections, transaction

from . import index as index_module
from .calibrate import CalibratedEf
from .embedder import Embedder
from .index import (
    BATCH,
    IndexQueue,
    IndexUnavailable,
    Key,
    Progress,
    VectorKind,
    hnsw_settings,
    text_hash,
    vector_source,
)

logger = logging.getLogger(__name__)

TABLE = "kgsite_vector"
STATE = "kgsite_vectorkind"
# pgvector's limit on hnsw.ef_search.
MAX_EF_SEARCH = 1000
# A filtered search over at most this many ids is exact (as with hnswlib).
EXACT_FILTER = 5000
# A kind of at most this many stored rows is searched exactly: the graph walk is
# approximate, and over a small table whose rows were just updated (their old entries
# still in the graph) it could miss the new ones; a scan of this many rows costs little.
EXACT_ROWS = 1000

TABLES_SQL = [
    f"""CREATE TABLE IF NOT EXISTS {TABLE} (
        id bigserial PRIMARY KEY,
        kind varchar(64) NOT NULL,
        key varchar(255) NOT NULL,
        hash varchar(32) NOT NULL,
        embedding vector NOT NULL,
        CONSTRAINT kgsite_vector_kind_key UNIQUE (kind, key)
    )""",
    f"""CREATE TABLE IF NOT EXISTS {STATE} (
        kind varchar(64) PRIMARY KEY,
        signature varchar(255) NOT NULL,
        dim integer NOT NULL,
        complete boolean NOT NULL
    )""",
]

MISSING_HELP = (
    "the pgvector extension is not available in this PostgreSQL: install it (package "
    "postgresql-NN-pgvector, or a managed PostgreSQL that offers 'vector'), run "
    "CREATE EXTENSION vector as a superuser, then `manage.py migrate kgsite` "
    "(or use KGSITE_VECTOR_BACKEND=hnswlib)"
)


def extension_available(cursor) -> bool:
    cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    return cursor.fetchone() is not None


def tables_create(cursor) -> bool:
    """Create the extension and the tables if pgvector is installed; False if it is not
    (the migration is then a no-op, and the backend says what to do)."""
    if not extension_available(cursor):
        return False
    cursor.execute("CREATE EXTENSION IF NOT EXISTS vector")
    for sql in TABLES_SQL:
        cursor.execute(sql)
    return True


# Per raw connection: the vector type registered and the hnsw settings made.
_sessions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _as_array(value) -> np.ndarray:
    """A loaded vector (numpy or pgvector's ``Vector``, by package version) as float32."""
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    return np.asarray(value, dtype=np.float32)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


class PgVectorIndex(CalibratedEf):
    """One kind's vectors in PostgreSQL (see the module docstring)."""

    writes_inline = True

    def __init__(
        self,
        kind: VectorKind,
        embedder: Embedder | None = None,
        *,
        queue: IndexQueue | None = None,
        using: str = "default",
    ) -> None:
        self.kind = kind
        self.queue = queue
        self.using = using
        self.embedder, self.dim, self.signature = vector_source(kind, embedder)
        self.m, self.ef_construction, self._ef_setting = hnsw_settings()
        self._checked = False
        self._reconciled = False
        self._complete = True
        # Set once the kind is seen to hold more than EXACT_ROWS rows: its searches then
        # skip the count; cleared when rows are deleted or the kind is rebuilt.
        self._large = False
        if not re.fullmatch(r"[a-z0-9_]{1,40}", kind.name):
            raise ValueError(f"vector kind {kind.name!r}: use a-z, 0-9 and _ for pgvector")
        self._index_name = f"kgsite_vector_hnsw_{kind.name}_{self.dim}"
        self._expr = f"(embedding::vector({self.dim}))"
        # The kind and the dimension as literals (names are checked above): the planner
        # matches them to the partial index's predicate even in a generic (prepared)
        # plan, and the index never casts a row of another dimension (a model change
        # rewrites the kind's rows in one transaction, the old ones still on disk).
        self._rows = f"kind = '{kind.name}' AND vector_dims(embedding) = {int(self.dim)}"

    # --- connection -------------------------------------------------------------------

    @property
    def connection(self):
        return connections[self.using]

    def _cursor(self):
        """A cursor whose connection knows the vector type and our hnsw settings."""
        conn = self.connection
        conn.ensure_connection()
        raw = conn.connection
        session = _sessions.get(raw)
        if session is None:
            session = _sessions[raw] = self._session_setup(raw)
        return conn.cursor(), session

    def _session_setup(self, raw) -> dict[str, Any]:
        from pgvector.psycopg import register_vector  # deferred: only the pgvector backend

        with raw.cursor() as cur:
            cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cur.fetchone()
        if row is None:
            raise ImproperlyConfigured(MISSING_HELP)
        register_vector(raw)
        version = _version_tuple(row[0])
        if version >= (0, 8):
            # A filtered search keeps walking the graph until it has k matches.
            with raw.cursor() as cur:
                cur.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', false)")
        return {"version": version, "ef": None}

    def _set_ef(self, cursor, session: dict, k: int) -> None:
        ef = min(MAX_EF_SEARCH, max(self.ef_search, k))
        if session["ef"] != ef:
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(ef)])
            session["ef"] = ef

    def _key(self, key: Key) -> Key:
        return self.kind.key_type(key)

    # --- state ------------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """False while a missing store is being rebuilt by the queue: results are partial."""
        return self._complete

    @property
    def live_count(self) -> int:
        cursor, _session = self._cursor()
        with cursor:
            cursor.execute(f"SELECT count(*) FROM {TABLE} WHERE kind = %s", [self.kind.name])
            return int(cursor.fetchone()[0])

    @property
    def location(self) -> str:
        return f"PostgreSQL table {TABLE} (kind {self.kind.name})"

    def _read_state(self) -> tuple[str, int, bool] | None:
        cursor, _session = self._cursor()
        with cursor:
            cursor.execute(
                f"SELECT signature, dim, complete FROM {STATE} WHERE kind = %s", [self.kind.name]
            )
            return cursor.fetchone()

    def _write_state(self, cursor, *, complete: bool) -> None:
        cursor.execute(
            f"INSERT INTO {STATE} (kind, signature, dim, complete) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (kind) DO UPDATE SET signature = EXCLUDED.signature, "
            "dim = EXCLUDED.dim, complete = EXCLUDED.complete",
            [self.kind.name, self.signature, self.dim, complete],
        )
        self._complete = complete

    def _lock_kind(self, cursor) -> None:
        """One writer per kind for state changes and rebuilds (held until commit)."""
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"{TABLE}:{self.kind.name}"])

    def _ensure_index(self, cursor) -> None:
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {self._index_name} ON {TABLE} USING hnsw "
            f"({self._expr} vector_cosine_ops) WITH (m = %s, ef_construction = %s) "
            f"WHERE {self._rows}",
            [self.m, self.ef_construction],
        )

    def _drop_other_dimensions(self, cursor) -> None:
        """Drop this kind's HNSW indexes of another dimension (a model change): their
        expression casts every row of the kind to the old dimension, so a row of the new
        one could not be written."""
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexname LIKE %s",
            [TABLE, "kgsite_vector_hnsw_%"],
        )
        own = re.compile(rf"kgsite_vector_hnsw_{re.escape(self.kind.name)}_\d+")
        for (name,) in cursor.fetchall():
            if name != self._index_name and own.fullmatch(name):
                cursor.execute(f'DROP INDEX IF EXISTS "{name}"')

    def _state_usable(self, state) -> bool:
        return state is not None and state[0] == self.signature and int(state[1]) == self.dim

    # --- freshness --------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the kind's state (others may have completed it); build it if missing."""
        state = self._read_state()
        if self._state_usable(state):
            self._complete = bool(state[2])
        else:
            self._build_missing(inline=False)
        if not self._reconciled:
            self._reconciled = True
            self.reconcile()

    def _build_missing(self, *, inline: bool) -> None:
        total = None if inline else self.kind.total()
        if total is None or total <= index_module.BUILD_INLINE:
            logger.info("building vectors of %s from the database", self.kind.name)
            self.rebuild()
            return
        with transaction.atomic(using=self.using):
            cursor, _session = self._cursor()
            with cursor:
                self._lock_kind(cursor)
                cursor.execute(
                    f"SELECT signature, dim, complete FROM {STATE} WHERE kind = %s",
                    [self.kind.name],
                )
                if self._state_usable(cursor.fetchone()):
                    return  # another process got here first
                logger.warning(
                    "vectors of %s are missing; %d rows are too many to embed here: "
                    "serving what is stored and queueing a rebuild",
                    self.kind.name,
                    total,
                )
                cursor.execute(f"DELETE FROM {TABLE} WHERE kind = %s", [self.kind.name])
                self._large = False
                self._drop_other_dimensions(cursor)
                self._ensure_index(cursor)
                self._write_state(cursor, complete=False)
        self._reconciled = True  # the rebuild covers every row
        self._queue().rebuild_later(self.kind.name)

    def _queue(self) -> IndexQueue:
        if self.queue is None:
            raise IndexUnavailable(f"vectors of {self.kind.name} have no queue for deferred work")
        return self.queue

    def reconcile(self) -> dict[str, int]:
        """Make the set of stored ids equal the database's; returns what changed."""
        cursor, _session = self._cursor()
        with cursor:
            cursor.execute(f"SELECT key FROM {TABLE} WHERE kind = %s", [self.kind.name])
            stored = {self._key(k) for (k,) in cursor.fetchall()}
        present = self.kind.all_keys()
        missing = sorted(present - stored, key=str)
        gone = sorted(stored - present, key=str)
        if len(missing) > index_module.RECONCILE_INLINE:
            self._queue().upsert_later(self.kind.name, missing)
        elif missing:
            self.upsert(missing)
        if gone:
            self.delete(gone)
        return {"added": len(missing), "deleted": len(gone)}

    # --- writes -----------------------------------------------------------------------

    def _encode(self, pairs: Sequence[tuple[Key, str]]) -> np.ndarray:
        if self.kind.vectors is not None:
            return np.asarray(self.kind.vectors(list(pairs)), dtype=np.float32)
        return self.embedder.encode([text for _key, text in pairs])

    def _ready_for_writes(self) -> None:
        """A write into a kind with no usable state builds it first (as hnswlib does)."""
        if self._checked:
            return
        state = self._read_state()
        if not self._state_usable(state):
            self._build_missing(inline=True)
        else:
            self._complete = bool(state[2])
        self._checked = True

    def upsert(self, keys: Sequence[Key]) -> int:
        """Embed rows whose text is new or changed; ids no longer in the database go."""
        self._ready_for_writes()
        keys = [self._key(k) for k in keys]
        changed = 0
        for start in range(0, len(keys), BATCH):
            batch = keys[start : start + BATCH]
            rows = dict(self.kind.fetch(batch))
            known = self.hashes(batch)
            todo = [(k, t) for k, t in rows.items() if known.get(k) != text_hash(t)]
            gone = [k for k in batch if k not in rows and k in known]
            vectors = self._encode(todo) if todo else []
            with transaction.atomic(using=self.using):
                cursor, _session = self._cursor()
                with cursor:
                    self._write_rows(cursor, todo, vectors)
                    if gone:
                        cursor.execute(
                            f"DELETE FROM {TABLE} WHERE kind = %s AND key = ANY(%s)",
                            [self.kind.name, [str(k) for k in gone]],
                        )
            changed += len(todo) + len(gone)
        if changed and not self._complete:
            self._complete_if_filled()
        return changed

    def _write_rows(self, cursor, todo: list[tuple[Key, str]], vectors) -> None:
        if not todo:
            return
        cursor.executemany(
            f"INSERT INTO {TABLE} (kind, key, hash, embedding) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (kind, key) DO UPDATE SET hash = EXCLUDED.hash, "
            "embedding = EXCLUDED.embedding",
            [
                (self.kind.name, str(k), text_hash(t), np.asarray(v, dtype=np.float32))
                for (k, t), v in zip(todo, vectors, strict=True)
            ],
        )

    def _complete_if_filled(self) -> None:
        total = self.kind.total()
        if total is not None and self.live_count >= total:
            with transaction.atomic(using=self.using):
                cursor, _session = self._cursor()
                with cursor:
                    self._write_state(cursor, complete=True)

    def delete(self, keys: Sequence[Key]) -> int:
        cursor, _session = self._cursor()
        with cursor:
            cursor.execute(
                f"DELETE FROM {TABLE} WHERE kind = %s AND key = ANY(%s)",
                [self.kind.name, [str(self._key(k)) for k in keys]],
            )
            if cursor.rowcount:
                self._large = False  # count again at the next search
            return cursor.rowcount

    def rebuild(self, progress: Progress | None = None) -> int:
        """Embed every row again, in one transaction: searches keep the old vectors
        until it commits. Returns the number stored.

        The kind's HNSW index is built after the rows are copied in when it does not
        exist yet (a first build: several times faster than inserting into it); an
        existing one is kept and filled row by row, so searches never wait for a lock.
        """
        total = self.kind.total()
        done = 0
        with transaction.atomic(using=self.using):
            cursor, _session = self._cursor()
            with cursor:
                self._lock_kind(cursor)
                cursor.execute(
                    "SELECT set_config('maintenance_work_mem', %s, true)",
                    [str(getattr(settings, "KGSITE_PGVECTOR_BUILD_MEMORY", "512MB"))],
                )
                cursor.execute(f"DELETE FROM {TABLE} WHERE kind = %s", [self.kind.name])
                self._drop_other_dimensions(cursor)
                batch: list[tuple[Key, str]] = []
                for key, text in self.kind.fetch(None):
                    batch.append((key, text))
                    if len(batch) >= BATCH:
                        done += self._copy_rows(cursor, batch)
                        batch.clear()
                        if progress is not None:
                            progress(done, max(total or 0, done))
                done += self._copy_rows(cursor, batch)
                self._ensure_index(cursor)
                self._write_state(cursor, complete=True)
        if progress is not None:
            progress(done, max(total or 0, done))
        self._checked = self._reconciled = True
        self._large = False
        return done

    def _copy_rows(self, cursor, batch: list[tuple[Key, str]]) -> int:
        """COPY a batch in (binary vectors): several times faster than INSERTs."""
        if not batch:
            return 0
        batch = list(dict(batch).items())  # the last text per key wins
        vectors = self._encode(batch)
        copy_sql = f"COPY {TABLE} (kind, key, hash, embedding) FROM STDIN WITH (FORMAT BINARY)"
        with cursor.cursor.copy(copy_sql) as copy:
            copy.set_types(["varchar", "varchar", "varchar", "vector"])
            for (key, text), vec in zip(batch, vectors, strict=True):
                copy.write_row(
                    (self.kind.name, str(key), text_hash(text), np.asarray(vec, np.float32))
                )
        return len(batch)

    # --- reads --------------------------------------------------------------------------

    def search(
        self, vector: np.ndarray, k: int, *, filter_keys: Iterable[Key] | None = None
    ) -> list[tuple[Key, float]]:
        """The ``k`` nearest stored items as (id, cosine), best first."""
        self.refresh()
        if k <= 0:
            return []
        vector = np.asarray(vector, dtype=np.float32).reshape(-1)
        if filter_keys is not None:
            wanted = list({str(self._key(key)) for key in filter_keys})
            if len(wanted) <= EXACT_FILTER:
                found = self._fetch_vectors(wanted)
                return _exact(vector, found, k)
            return self._knn(vector, k, wanted)
        return self._knn(vector, k, None)

    def _knn(self, vector: np.ndarray, k: int, wanted: list[str] | None):
        cursor, session = self._cursor()
        where = self._rows
        params: list[Any] = [vector]
        if wanted is not None:
            where += " AND key = ANY(%s)"
            params.append(wanted)
        order = f"{self._expr} <=> %s::vector({self.dim})"
        if wanted is not None and session["version"] < (0, 8):
            order = "embedding <=> %s"  # no iterative scan: an exact scan of the matches
        params.append(vector)
        select = f"SELECT key, 1 - ({self._expr} <=> %s::vector({self.dim})) FROM {TABLE} "
        with cursor:
            if wanted is None and not self._large:
                if self._more_rows_than(cursor, where, [], EXACT_ROWS, EXACT_ROWS + 1):
                    self._large = True
                else:
                    order = "embedding <=> %s"  # a small kind: an exact scan
            self._set_ef(cursor, session, k)
            cursor.execute(f"{select} WHERE {where} ORDER BY {order} LIMIT {int(k)}", params)
            rows = cursor.fetchall()
            if len(rows) < k and self._more_rows_than(cursor, where, params[1:-1], len(rows), k):
                # The graph walk stopped short (entries of rows updated or deleted since
                # the last vacuum fill its candidate list): answer by an exact scan.
                cursor.execute(
                    f"{select} WHERE {where} ORDER BY embedding <=> %s LIMIT {int(k)}", params
                )
                rows = cursor.fetchall()
            return [(self._key(key), float(score)) for key, score in rows]

    def _more_rows_than(self, cursor, where: str, params: list, found: int, k: int) -> bool:
        """Whether more than ``found`` stored rows match ``where`` (counting at most k)."""
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {TABLE} WHERE {where} LIMIT {int(k)}) AS rows",
            params,
        )
        return cursor.fetchone()[0] > found

    def _fetch_vectors(self, wanted: list[str]) -> list[tuple[Key, np.ndarray]]:
        if not wanted:
            return []
        cursor, _session = self._cursor()
        with cursor:
            cursor.execute(
                f"SELECT key, embedding FROM {TABLE} WHERE kind = %s AND key = ANY(%s)",
                [self.kind.name, wanted],
            )
            return [(self._key(key), _as_array(vec)) for key, vec in cursor]

    def scores(self, vector: np.ndarray, keys: Iterable[Key]) -> dict[Key, float]:
        """Cosine of ``vector`` with each stored id (ids not stored are left out)."""
        vector = np.asarray(vector, dtype=np.float32).reshape(-1)
        found = self._fetch_vectors(list({str(self._key(k)) for k in keys}))
        return {key: float(vec @ vector) for key, vec in found}

    def hashes(self, keys: Iterable[Key]) -> dict[Key, str]:
        wanted = list({str(self._key(k)) for k in keys})
        if not wanted:
            return {}
        cursor, _session = self._cursor()
        with cursor:
            cursor.execute(
                f"SELECT key, hash FROM {TABLE} WHERE kind = %s AND key = ANY(%s)",
                [self.kind.name, wanted],
            )
            return {self._key(key): digest for key, digest in cursor.fetchall()}

    def hash_of(self, key: Key) -> str | None:
        return self.hashes([key]).get(self._key(key))

    def __contains__(self, key: Key) -> bool:
        return self.hash_of(key) is not None

    def vectors(self) -> tuple[list[Key], np.ndarray]:
        """Every stored id with its vector (exact search, benchmarks)."""
        self.refresh()
        cursor, _session = self._cursor()
        with cursor:
            cursor.execute(f"SELECT key, embedding FROM {TABLE} WHERE kind = %s", [self.kind.name])
            rows = cursor.fetchall()
        if not rows:
            return [], np.zeros((0, self.dim), dtype=np.float32)
        keys = [self._key(k) for k, _v in rows]
        return keys, np.stack([_as_array(v) for _k, v in rows])

    def stats(self) -> dict[str, Any]:
        return {
            "kind": self.kind.name,
            "backend": "pgvector",
            "complete": self._complete,
            "live": self.live_count,
            "ef_search": self.ef_search,
        }


def _exact(
    vector: np.ndarray, found: list[tuple[Key, np.ndarray]], k: int
) -> list[tuple[Key, float]]:
    if not found:
        return []
    matrix = np.stack([v for _k, v in found])
    scores = matrix @ vector
    order = np.argsort(-scores)[:k]
    return [(found[i][0], float(scores[i])) for i in order]
