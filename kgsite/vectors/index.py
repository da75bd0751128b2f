"""Persistent hnswlib indexes, one per kind of item, kept in step across processes.

Layout under ``settings.KGSITE_VECTOR_DIR/<kind>/``::

    CURRENT            {"gen": N}: the live generation, replaced atomically
    gen-N.hnsw         hnswlib snapshot (cosine space)
    gen-N.json         labels → database ids, text hashes, deleted labels, embedder
    gen-N.journal      one JSON line per change made since the snapshot
    lock               flock: one writer at a time, across processes

Cross-process freshness (web and worker processes): **reload on change**. Every
process keeps its own copy in memory. A writer (any process, under the flock) first
catches up, then appends its changes to the journal — vectors included — instead of
rewriting a large snapshot per fact. Before each search a process reads ``CURRENT``
(generation number and a random id) and applies the journal lines it has not seen yet
(a few microseconds when nothing changed); another generation (after compaction or
rebuild) makes it reload the snapshot. The id, not a file stat, says "same generation":
stats can repeat (coarse timestamps, reused inodes) and a stat taken apart from the read
let a reader settle on an old generation. When the journal grows past
``max(500, live / 20)`` lines the writer folds it into a new snapshot (temp file +
rename, then ``CURRENT``).

The index is never the only copy of anything: the database is. A missing, unreadable
or stale snapshot (another embedder or dimension) is rebuilt from the kind's row source.
A write (worker task, command) rebuilds it on the spot; so does a search up to
``BUILD_INLINE`` rows. For a larger store a search publishes an empty generation marked
incomplete at once (searches answer from it and say so) and queues the rebuild, like a
large reconcile. A damaged journal (a writer killed mid-append,
garbage, a vector of the wrong length) is never a crash: the readable lines are kept,
a new generation retires the journal, and every row is re-checked against the database
by text hash (missing or changed rows embedded, vanished ones dropped). A writer that
finds the journal's last line unterminated ends it first, so its own line never glues
onto a torn one. On the first load in a process the ids are reconciled with the
database (rows missing from the index are embedded, ids gone from the database are
marked deleted), and the search layer re-checks every hit against its row (see
``service.py``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .calibrate import CalibratedEf
from .embedder import Embedder
from .journal import MIN_CAPACITY, SnapshotJournal, SnapshotVectors, _dedupe
from .kinds import (  # noqa: F401 (the names callers import from here)
    KINDS,
    IndexQueue,
    IndexUnavailable,
    JournalDamaged,
    Key,
    Progress,
    RowSource,
    VectorKind,
    VectorSource,
    _decode_vec,
    _encode_vec,
    _takes_argument,
    _write_atomic,
    hnsw_settings,
    register_kind,
    register_model_kind,
    text_hash,
    vector_source,
)

logger = logging.getLogger(__name__)

BATCH = 256
# Rows missing from the index that a reconcile embeds on the spot; more go to the queue.
RECONCILE_INLINE = 256
# A search that finds the index missing builds it on the spot up to this many rows (a few
# seconds with the real model); a larger store gets an empty, incomplete generation and a
# queued rebuild. Writes (worker, commands) always build it on the spot.
BUILD_INLINE = 1000
# Stored vectors a filtered search keeps in memory after reading them (``_stored``).
MIRROR_MAX = 200_000


def _dot_rows(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Each row's dot product with ``vector``, without BLAS: a search compares ~1,000
    rows, where OpenBLAS's threads cost more than they save. On the shared 2-core
    machine, its threads waiting for a core (the embedder's just ran) put ``matrix @
    vector`` at 20 ms a call (cProfile of the unknown trigger, 200 questions); einsum's
    own loop takes 0.1 ms."""
    return np.einsum("ij,j->i", matrix, np.asarray(vector, dtype=matrix.dtype))


class VectorIndex(SnapshotJournal, CalibratedEf):
    """One kind's index in this process: search, upsert, delete, rebuild (the hnswlib
    backend of ``backend.VectorBackend``)."""

    # Changes go through the task queue (one writer process keeps the journal short).
    writes_inline = False

    def __init__(
        self,
        kind: VectorKind,
        directory: Path,
        embedder: Embedder | None = None,
        *,
        queue: IndexQueue | None = None,
    ) -> None:
        self.kind = kind
        self.dir = Path(directory) / kind.name
        self.queue = queue
        self.embedder, self.dim, self.signature = vector_source(kind, embedder)
        self.m, self.ef_construction, self._ef_setting = hnsw_settings()
        self._lock = threading.RLock()
        self._reset_memory()
        # The generation in memory: its number and the random id CURRENT names it by.
        self._gen: int | None = None
        self._gen_id: str | None = None
        self._offset = 0
        self._journal_count = 0
        self._flock_depth = 0
        self._reconciled = False
        # False while the generation is a placeholder waiting for a queued rebuild.
        self._complete = True
        # Work to do once the flock is released (queueing jobs that may run inline).
        self._after_unlock: list[Callable[[], None]] = []

    def _queue(self) -> IndexQueue:
        if self.queue is None:
            raise IndexUnavailable(f"index {self.kind.name} has no queue for deferred work")
        return self.queue

    def _encode(self, pairs: Sequence[tuple[Key, str]]) -> np.ndarray:
        """Vectors for (id, text) pairs: embedded texts, or the kind's own vectors."""
        if self.kind.vectors is not None:
            return np.asarray(self.kind.vectors(list(pairs)), dtype=np.float32)
        return self.embedder.encode([text for _key, text in pairs])

    # --- memory state -----------------------------------------------------------------

    def _reset_memory(self, capacity: int = MIN_CAPACITY) -> None:
        import hnswlib  # deferred: a native library, loaded on first index use

        self._hnsw = hnswlib.Index(space="cosine", dim=self.dim)
        self._hnsw.init_index(
            max_elements=max(capacity, MIN_CAPACITY), ef_construction=self.ef_construction, M=self.m
        )
        self._hnsw.set_ef(self._ef_setting)
        self._keys: list[Key] = []  # label → key
        self._labels: dict[Key, int] = {}  # key → label
        self._hashes: list[str] = []  # label → text hash
        self._deleted: set[int] = set()
        self._file_follow(None)

    def _file_follow(self, path: Path | None) -> None:
        """Memory now equals the snapshot file ``path`` (None: no file yet): stored
        vectors are read from it (``SnapshotVectors``, opened on first use) except the
        labels added since (``_fresh``, read through hnswlib and mirrored)."""
        self._file_path = path
        self._file: SnapshotVectors | None | bool = None  # False: unusable
        self._fresh: set[int] = set()
        self._mirror = (self._hnsw, {})

    @property
    def live_count(self) -> int:
        return len(self._keys) - len(self._deleted)

    @property
    def complete(self) -> bool:
        """False while a missing index is being rebuilt by the queue: results are partial."""
        return self._complete

    def __contains__(self, key: Key) -> bool:
        label = self._labels.get(key)
        return label is not None and label not in self._deleted

    def hash_of(self, key: Key) -> str | None:
        label = self._labels.get(key)
        if label is None or label in self._deleted:
            return None
        return self._hashes[label]

    def hashes(self, keys: Iterable[Key]) -> dict[Key, str]:
        """The stored text hash of each indexed id (ids not indexed are left out)."""
        found = {key: self.hash_of(key) for key in keys}
        return {key: digest for key, digest in found.items() if digest is not None}

    @property
    def location(self) -> str:
        return str(self.dir)

    def _ensure_capacity(self, extra: int) -> None:
        needed = len(self._keys) + extra
        capacity = self._hnsw.get_max_elements()
        if needed > capacity:
            self._hnsw.resize_index(max(needed, capacity * 2))

    def _apply_add(
        self, items: list[tuple[Key, str, np.ndarray]], *, threads: int = 1
    ) -> list[dict]:
        """Add or replace vectors; returns the journal records describing the change."""
        if not items:
            return []
        new = sum(1 for key, _h, _v in items if key not in self._labels)
        self._ensure_capacity(new)
        labels: list[int] = []
        records: list[dict] = []
        for key, digest, vec in items:
            label = self._labels.get(key)
            if label is None:
                label = len(self._keys)
                self._keys.append(key)
                self._hashes.append(digest)
                self._labels[key] = label
            else:
                self._hashes[label] = digest
                self._deleted.discard(label)
            labels.append(label)
            records.append({"op": "add", "key": key, "hash": digest, "vec": _encode_vec(vec)})
        for label in labels:
            self._mirror[1].pop(label, None)
        self._fresh.update(labels)
        matrix = np.stack([np.asarray(v, dtype=np.float32) for _k, _h, v in items])
        # Re-adding a label marked deleted un-deletes it and replaces its vector.
        self._hnsw.add_items(matrix, np.asarray(labels, dtype=np.int64), num_threads=threads)
        return records

    def _apply_delete(self, keys: Iterable[Key]) -> list[dict]:
        records = []
        for key in keys:
            label = self._labels.get(key)
            if label is None or label in self._deleted:
                continue
            self._hnsw.mark_deleted(label)
            self._deleted.add(label)
            records.append({"op": "del", "key": key})
        return records

    # --- freshness ----------------------------------------------------------------------

    def refresh(self) -> None:
        """Catch up with what other processes wrote; build the index if there is none."""
        with self._lock:
            self._refresh_locked()
        if not self._reconciled:
            self._reconciled = True
            self.reconcile()

    def _follow_current(self) -> bool:
        """Load the generation ``CURRENT`` names (if not in memory) and its new journal
        lines; False when there is no usable snapshot. Raises ``JournalDamaged``.

        ``CURRENT`` is read before anything is loaded, and memory remembers the id read:
        a generation published meanwhile differs from it, so the next call reloads.
        """
        current = self._read_current()
        if current is None:
            return False
        if current != (self._gen, self._gen_id):
            try:
                self._load_snapshot(*current)
            except (IndexUnavailable, OSError) as exc:
                logger.warning("vector index %s gen %s unusable: %s", self.kind.name, current, exc)
                self._gen = self._gen_id = None
                return False
        self._read_journal()
        return True

    def _refresh_locked(self, *, build_inline: bool = False) -> None:
        try:
            if self._follow_current():
                return  # the common case: at most a few new lines
        except JournalDamaged as exc:
            logger.warning("vector index %s: %s", self.kind.name, exc)
        with self._flocked():
            # Another process may have built or repaired it while we waited for the lock.
            try:
                if self._follow_current():
                    return
            except JournalDamaged:
                self._repair_locked()
                return
            self._build_missing_locked(inline=build_inline)

    def _build_missing_locked(self, *, inline: bool) -> None:
        """No usable snapshot: build it here if small (or ``inline``: a write in the
        worker), else publish an empty incomplete generation and queue the rebuild (a
        search in a web request must not embed for minutes)."""
        total = None if inline else self.kind.total()
        if total is None or total <= BUILD_INLINE:
            logger.info("building vector index %s from the database", self.kind.name)
            self._rebuild_locked(progress=None)
            return
        logger.warning(
            "vector index %s is missing; %d rows are too many to embed here: serving an "
            "empty index and queueing a rebuild",
            self.kind.name,
            total,
        )
        gen = self._next_gen()
        self._reset_memory()
        self._complete = False
        self._write_snapshot(gen)
        self._reconciled = True  # the rebuild covers every row
        self._after_unlock.append(lambda: self._queue().rebuild_later(self.kind.name))

    def _repair_locked(self) -> None:
        """The journal of the generation in memory is damaged (caller holds the flock):
        keep its readable lines, retire it with a new generation, then re-check every
        row against the database."""
        damaged = self._read_journal(strict=False)
        logger.warning(
            "vector index %s: %d damaged journal line(s) in generation %s; writing a new "
            "generation and re-checking every row against the database",
            self.kind.name,
            damaged,
            self._gen,
        )
        self._write_snapshot(self._gen + 1)
        self.resync()

    def resync(self) -> dict[str, int]:
        """Compare every row's text hash with the index: embed missing or changed rows
        (queued beyond ``RECONCILE_INLINE``), drop ids gone from the database."""
        present: set[Key] = set()
        stale: list[Key] = []
        with self._writer():
            for key, text in self.kind.rows(None):
                key = self.kind.key_type(key)
                present.add(key)
                if self.hash_of(key) != text_hash(text):
                    stale.append(key)
            gone = [
                k for k, lb in self._labels.items() if lb not in self._deleted and k not in present
            ]
            self._append_journal(self._apply_delete(gone))
            if len(stale) > RECONCILE_INLINE:
                self._after_unlock.append(
                    lambda keys=stale: self._queue().upsert_later(self.kind.name, keys)
                )
            elif stale:
                self.upsert(stale)
        return {"stale": len(stale), "deleted": len(gone)}

    def reconcile(self) -> dict[str, int]:
        """Make the set of indexed ids equal the database's; returns what changed."""
        with self._lock:
            self._refresh_locked()
            indexed = {k for k, label in self._labels.items() if label not in self._deleted}
        present = self.kind.all_keys()
        missing = sorted(present - indexed, key=str)
        gone = sorted(indexed - present, key=str)
        if len(missing) > RECONCILE_INLINE:
            # A bulk import that bypassed the hooks: embedding it here would stall a web
            # request for minutes, so the worker does it in batches.
            self._queue().upsert_later(self.kind.name, missing)
        elif missing:
            self.upsert(missing)
        if gone:
            self.delete(gone)
        return {"added": len(missing), "deleted": len(gone)}

    # --- writes -----------------------------------------------------------------------

    def upsert(self, keys: Sequence[Key]) -> int:
        """Embed rows whose text is new or changed; ids no longer in the database go."""
        keys = [self.kind.key_type(k) for k in keys]
        changed = 0
        for start in range(0, len(keys), BATCH):
            batch = keys[start : start + BATCH]
            rows = dict(self.kind.fetch(batch))
            with self._writer():
                todo = [(k, t) for k, t in rows.items() if self.hash_of(k) != text_hash(t)]
                vectors = self._encode(todo) if todo else []
                items = [(k, text_hash(t), v) for (k, t), v in zip(todo, vectors, strict=True)]
                records = self._apply_add(items)
                records += self._apply_delete(k for k in batch if k not in rows)
                self._append_journal(records)
                changed += len(records)
                if records and not self._complete:
                    self._complete_if_filled()
        return changed

    def _complete_if_filled(self) -> None:
        """An incomplete generation filled by queued upserts (its rebuild never ran) is
        marked complete once it holds as many items as the database."""
        total = self.kind.total()
        if total is not None and self.live_count >= total:
            self._complete = True
            self._write_snapshot(self._gen + 1)

    def delete(self, keys: Sequence[Key]) -> int:
        keys = [self.kind.key_type(k) for k in keys]
        with self._writer():
            records = self._apply_delete(keys)
            self._append_journal(records)
        return len(records)

    def rebuild(self, progress: Progress | None = None) -> int:
        """Embed every row again into a new generation; returns the number indexed.

        Holds the writer lock throughout, so upserts from other processes wait for it
        instead of landing in a generation about to be replaced.
        """
        with self._lock, self._flocked():
            return self._rebuild_locked(progress)

    def _rebuild_locked(self, progress: Progress | None) -> int:
        total = self.kind.total()
        gen = self._next_gen()
        # Until the new snapshot is written, a failure must lead to a reload, not to
        # this half-built memory.
        self._gen = self._gen_id = None
        self._reset_memory(capacity=total or MIN_CAPACITY)
        done = 0
        batch: list[tuple[Key, str]] = []

        def flush() -> None:
            nonlocal done
            vectors = self._encode(batch)
            items = [(k, text_hash(t), v) for (k, t), v in zip(batch, vectors, strict=True)]
            self._apply_add(_dedupe(items), threads=-1)  # every core: nothing else reads it
            done += len(batch)
            batch.clear()
            if progress is not None:
                progress(done, max(total or 0, done))

        for key, text in self.kind.fetch(None):
            batch.append((key, text))
            if len(batch) >= BATCH:
                flush()
        if batch:
            flush()
        if progress is not None and done == 0:
            progress(0, 0)
        self._complete = True
        self._write_snapshot(gen)
        self._reconciled = True
        return self.live_count

    # --- reads --------------------------------------------------------------------------

    def search(
        self, vector: np.ndarray, k: int, *, filter_keys: Iterable[Key] | None = None
    ) -> list[tuple[Key, float]]:
        """The ``k`` nearest live items as (id, cosine), best first."""
        self.refresh()
        vector = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        with self._lock:
            if filter_keys is not None:
                labels = [
                    label
                    for key in set(filter_keys)
                    if (label := self._labels.get(key)) is not None and label not in self._deleted
                ]
                if len(labels) <= 5000:
                    return self._exact(vector[0], labels, k)
                allowed = set(labels)
                return self._knn(vector, min(k, len(labels)), allowed.__contains__)
            return self._knn(vector, min(k, self.live_count), None)

    def _knn(self, vector: np.ndarray, k: int, allow: Callable[[int], bool] | None):
        if k <= 0:
            return []
        self._hnsw.set_ef(max(self.ef_search, k))
        while k > 0:
            try:
                labels, distances = self._hnsw.knn_query(vector, k=k, num_threads=1, filter=allow)
                break
            except RuntimeError:  # fewer reachable live items than k (deletions)
                k //= 2
        else:
            return []
        keys = self._keys
        return [
            (keys[int(label)], float(1.0 - dist))
            for label, dist in zip(labels[0], distances[0], strict=True)
        ]

    def _stored(self, labels: list[int]) -> np.ndarray:
        """The stored vectors of ``labels`` (under the lock). hnswlib's ``get_items``
        costs about 30 µs an item, so the vectors of the snapshot file in memory are
        read from the file itself (``SnapshotVectors``); those added since go through
        ``get_items`` once into a mirror (at most ``MIRROR_MAX`` of them), forgotten
        when their label is re-added or the index is replaced."""
        if not labels:
            return np.zeros((0, self.dim), dtype=np.float32)
        mirror = self._mirror
        if mirror[0] is not self._hnsw or len(mirror[1]) > MIRROR_MAX:
            mirror = self._mirror = (self._hnsw, {})
        rows: dict[int, np.ndarray] = mirror[1]
        wanted = np.asarray(labels, dtype=np.int64)
        out = np.empty((len(wanted), self.dim), dtype=np.float32)
        todo = np.ones(len(wanted), dtype=bool)
        stored = self._snapshot_file()
        if stored is not None:  # not mirrored: the page cache holds them
            in_file = stored.rows(wanted)
            if self._fresh:
                in_file[np.isin(wanted, np.fromiter(self._fresh, np.int64))] = -1
            todo = in_file < 0
            if not todo.all():
                out[~todo] = stored.get_rows(in_file[~todo])
        rest = [int(lb) for lb in wanted[todo]]
        missing = [lb for lb in dict.fromkeys(rest) if lb not in rows]
        if missing:
            fetched = np.asarray(self._hnsw.get_items(missing, return_type="numpy"), np.float32)
            rows.update(zip(missing, fetched, strict=True))
        if rest:
            out[todo] = np.stack([rows[lb] for lb in rest])
        return out

    def _snapshot_file(self) -> SnapshotVectors | None:
        """The snapshot file's vectors, opened and checked against hnswlib on first use
        (a layout this code does not know is never trusted: ``get_items`` then)."""
        if self._file is None and self._file_path is not None:
            self._file = False
            try:
                stored = SnapshotVectors(self._file_path, self.dim)
                usable = self._deleted | self._fresh
                sample = [lb for lb in range(len(self._keys)) if lb not in usable]
                sample = sample[:: max(1, len(sample) // 3)][:4]
                # No sample: every label is deleted or changed since, the file serves none.
                if sample and all(stored.has(lb) for lb in sample):
                    got = np.asarray(self._hnsw.get_items(sample, return_type="numpy"))
                    if np.array_equal(got.astype(np.float32), stored.get(sample)):
                        self._file = stored
            except (OSError, ValueError) as exc:
                logger.warning("vector index %s: snapshot not readable directly: %s",
                               self.kind.name, exc)  # fmt: skip
        return self._file or None

    def _exact(self, vector: np.ndarray, labels: list[int], k: int) -> list[tuple[Key, float]]:
        if not labels or k <= 0:
            return []
        matrix = self._stored(labels)
        scores = _dot_rows(matrix, vector)
        order = np.argsort(-scores)[:k]
        return [(self._keys[labels[i]], float(scores[i])) for i in order]

    def scores(self, vector: np.ndarray, keys: Iterable[Key]) -> dict[Key, float]:
        """Cosine of ``vector`` with each indexed id (ids not indexed are left out)."""
        self.refresh()
        vector = np.asarray(vector, dtype=np.float32).reshape(-1)
        with self._lock:
            labels = [
                (key, label)
                for key in keys
                if (label := self._labels.get(key)) is not None and label not in self._deleted
            ]
            if not labels:
                return {}
            matrix = self._stored([lb for _k, lb in labels])
        scores = _dot_rows(matrix, vector)
        return {key: float(s) for (key, _lb), s in zip(labels, scores, strict=True)}

    def vectors(self) -> tuple[list[Key], np.ndarray]:
        """Every live id with its stored vector (exact search, benchmarks)."""
        self.refresh()
        with self._lock:
            live = [i for i in range(len(self._keys)) if i not in self._deleted]
            if not live:
                return [], np.zeros((0, self.dim), dtype=np.float32)
            matrix = np.asarray(self._hnsw.get_items(live, return_type="numpy"), np.float32)
            return [self._keys[i] for i in live], matrix

    def stats(self) -> dict[str, Any]:
        return {
            "kind": self.kind.name,
            "generation": self._gen,
            "complete": self._complete,
            "live": self.live_count,
            "deleted": len(self._deleted),
            "ef_search": self.ef_search,
        }
