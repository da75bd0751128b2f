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
rewriting a large snapshot per fact. Before each search a process stats ``CURRENT`` and
the journal and applies the lines it has not seen yet (a few microseconds when nothing
changed); a new generation (after compaction or rebuild) makes it reload the snapshot.
When the journal grows past ``max(500, live / 20)`` lines the writer folds it into a new
snapshot (temp file + rename, then ``CURRENT``).

The index is never the only copy of anything: the database is. A missing, unreadable
or stale snapshot (another embedder or dimension) is rebuilt from the kind's row source.
On the first load in a process the ids are reconciled with the database (rows missing
from the index are embedded, ids gone from the database are marked deleted), and the
search layer re-checks every hit against its row (see ``service.py``).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import inspect
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from .embedder import Embedder, get_embedder

logger = logging.getLogger(__name__)

Key = int | str
# rows(ids): (id, text) pairs for those ids, or for every indexable row when ids is None.
RowSource = Callable[[Sequence[Key] | None], Iterable[tuple[Key, str]]]
Progress = Callable[[int, int], None]

BATCH = 256
# Rows missing from the index that a reconcile embeds on the spot; more go to the queue.
RECONCILE_INLINE = 256
MIN_CAPACITY = 1024


@dataclass(frozen=True)
class VectorKind:
    """A kind of item with its own index: where its texts come from in the database."""

    name: str
    rows: RowSource
    # Every id currently in the database (cheap: ids only); defaults to rows(None).
    keys: Callable[[], Iterable[Key]] | None = None
    count: Callable[[], int] | None = None
    key_type: type = int

    def all_keys(self) -> set[Key]:
        if self.keys is not None:
            return {self.key_type(k) for k in self.keys()}
        return {self.key_type(k) for k, _text in self.rows(None)}

    def total(self) -> int | None:
        return self.count() if self.count is not None else None

    def fetch(self, ids: Sequence[Key] | None) -> list[tuple[Key, str]]:
        return [(self.key_type(k), text) for k, text in self.rows(ids)]


KINDS: dict[str, VectorKind] = {}


def register_kind(
    name: str,
    rows: RowSource | Callable[[], Iterable[tuple[Key, str]]],
    *,
    keys: Callable[[], Iterable[Key]] | None = None,
    count: Callable[[], int] | None = None,
    key_type: type = int,
) -> VectorKind:
    """Add (or replace) a kind. ``rows`` may also take no argument: it is then filtered."""
    if not _takes_argument(rows):
        every = rows

        def rows(ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:  # noqa: F811
            wanted = None if ids is None else {key_type(i) for i in ids}
            return ((k, t) for k, t in every() if wanted is None or key_type(k) in wanted)

    kind = VectorKind(name=name, rows=rows, keys=keys, count=count, key_type=key_type)
    KINDS[name] = kind
    return kind


def _takes_argument(func: Callable) -> bool:
    try:
        return bool(inspect.signature(func).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return True


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _encode_vec(vec: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vec, dtype=np.float32).tobytes()).decode()


def _decode_vec(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class IndexUnavailable(Exception):
    """The snapshot on disk cannot be used (missing, corrupt or from another embedder)."""


class VectorIndex:
    """One kind's index in this process: search, upsert, delete, rebuild."""

    def __init__(self, kind: VectorKind, directory: Path, embedder: Embedder | None = None) -> None:
        self.kind = kind
        self.dir = Path(directory) / kind.name
        self.embedder = embedder or get_embedder()
        self.dim = self.embedder.dim
        self.m = int(getattr(settings, "KGSITE_HNSW_M", 16))
        self.ef_construction = int(getattr(settings, "KGSITE_HNSW_EF_CONSTRUCTION", 200))
        self.ef_search = int(getattr(settings, "KGSITE_HNSW_EF_SEARCH", 128))
        self._lock = threading.RLock()
        self._reset_memory()
        self._gen: int | None = None
        self._offset = 0
        self._journal_count = 0
        self._flock_depth = 0
        self._current_stat: tuple[int, int] | None = None
        self._reconciled = False

    # --- memory state -----------------------------------------------------------------

    def _reset_memory(self, capacity: int = MIN_CAPACITY) -> None:
        import hnswlib

        self._hnsw = hnswlib.Index(space="cosine", dim=self.dim)
        self._hnsw.init_index(
            max_elements=max(capacity, MIN_CAPACITY), ef_construction=self.ef_construction, M=self.m
        )
        self._hnsw.set_ef(self.ef_search)
        self._keys: list[Key] = []  # label → key
        self._labels: dict[Key, int] = {}  # key → label
        self._hashes: list[str] = []  # label → text hash
        self._deleted: set[int] = set()

    @property
    def live_count(self) -> int:
        return len(self._keys) - len(self._deleted)

    def __contains__(self, key: Key) -> bool:
        label = self._labels.get(key)
        return label is not None and label not in self._deleted

    def hash_of(self, key: Key) -> str | None:
        label = self._labels.get(key)
        if label is None or label in self._deleted:
            return None
        return self._hashes[label]

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

    def _apply_records(self, lines: Iterable[bytes]) -> None:
        adds: list[tuple[Key, str, np.ndarray]] = []
        for line in lines:
            if not line.strip():
                continue
            record = json.loads(line)
            key = self.kind.key_type(record["key"])
            if record["op"] == "add":
                adds.append((key, record["hash"], _decode_vec(record["vec"])))
            else:
                self._apply_add(_dedupe(adds))
                adds = []
                self._apply_delete([key])
        self._apply_add(_dedupe(adds))

    # --- files ------------------------------------------------------------------------

    def _path(self, gen: int, suffix: str) -> Path:
        return self.dir / f"gen-{gen}.{suffix}"

    def _read_current(self) -> int | None:
        try:
            return int(json.loads((self.dir / "CURRENT").read_text())["gen"])
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return None

    @contextlib.contextmanager
    def _flocked(self) -> Iterator[None]:
        """The cross-process writer lock; re-entrant within this process (flock is not)."""
        with self._lock:
            if self._flock_depth:
                self._flock_depth += 1
                try:
                    yield
                finally:
                    self._flock_depth -= 1
                return
            self.dir.mkdir(parents=True, exist_ok=True)
            with open(self.dir / "lock", "a+b") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                self._flock_depth = 1
                try:
                    yield
                finally:
                    self._flock_depth = 0
                    fcntl.flock(fh, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def _writer(self) -> Iterator[None]:
        """Hold both locks and catch up with other writers before changing anything."""
        with self._lock, self._flocked():
            self._refresh_locked()
            yield

    def _load_snapshot(self, gen: int) -> None:
        import hnswlib

        try:
            meta = json.loads(self._path(gen, "json").read_text())
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(f"unreadable metadata: {exc}") from exc
        if meta.get("signature") != self.embedder.signature or meta.get("dim") != self.dim:
            raise IndexUnavailable("built by another embedder")
        keys = [self.kind.key_type(k) for k in meta["keys"]]
        hashes = list(meta["hashes"])
        if len(keys) != len(hashes):
            raise IndexUnavailable("metadata lists disagree")
        hnsw = hnswlib.Index(space="cosine", dim=self.dim)
        try:
            hnsw.load_index(str(self._path(gen, "hnsw")), max_elements=max(len(keys), MIN_CAPACITY))
        except Exception as exc:  # hnswlib raises RuntimeError on truncated files
            raise IndexUnavailable(f"unreadable snapshot: {exc}") from exc
        if hnsw.get_current_count() != len(keys):
            raise IndexUnavailable("snapshot and metadata disagree")
        hnsw.set_ef(self.ef_search)
        self._hnsw = hnsw
        self._keys = keys
        self._hashes = hashes
        self._labels = {k: i for i, k in enumerate(keys)}
        self._deleted = set(meta.get("deleted", []))
        self._gen = gen
        self._offset = 0
        self._journal_count = 0

    def _write_snapshot(self, gen: int) -> None:
        """Save memory as generation ``gen`` and make it current (caller holds the flock)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / f".gen-{gen}.hnsw.{os.getpid()}.tmp"
        self._hnsw.save_index(str(tmp))
        os.replace(tmp, self._path(gen, "hnsw"))
        meta = {
            "gen": gen,
            "signature": self.embedder.signature,
            "dim": self.dim,
            "keys": self._keys,
            "hashes": self._hashes,
            "deleted": sorted(self._deleted),
        }
        _write_atomic(self._path(gen, "json"), json.dumps(meta).encode())
        _write_atomic(self._path(gen, "journal"), b"")
        _write_atomic(self.dir / "CURRENT", json.dumps({"gen": gen}).encode())
        self._gen = gen
        self._offset = 0
        self._journal_count = 0
        self._current_stat = None
        # Keep the previous generation: a reader may be loading it right now.
        for path in self.dir.glob("gen-*.*"):
            try:
                old = int(path.name.split(".")[0].removeprefix("gen-"))
            except ValueError:
                continue
            if old < gen - 1:
                path.unlink(missing_ok=True)

    def _read_journal(self) -> None:
        """Apply complete journal lines written since the last read."""
        path = self._path(self._gen, "journal")
        try:
            with open(path, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written waits for next time
        if end:
            lines = data[:end].split(b"\n")
            self._apply_records(lines)
            self._offset += end
            self._journal_count += len(lines) - 1

    def _append_journal(self, records: list[dict]) -> None:
        if not records:
            return
        payload = b"".join(json.dumps(r).encode() + b"\n" for r in records)
        with open(self._path(self._gen, "journal"), "ab") as fh:
            fh.write(payload)
            fh.flush()
        self._offset += len(payload)
        self._journal_count += len(records)
        if self._journal_count > max(500, self.live_count // 20):
            self._write_snapshot(self._gen + 1)

    # --- freshness ----------------------------------------------------------------------

    def refresh(self) -> None:
        """Catch up with what other processes wrote; build the index if there is none."""
        with self._lock:
            self._refresh_locked()
        if not self._reconciled:
            self._reconciled = True
            self.reconcile()

    def _stat_current(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.dir / "CURRENT")
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_ino)

    def _try_load(self, gen: int | None) -> bool:
        """Follow ``CURRENT``; False when there is no usable snapshot."""
        stat = self._stat_current()
        if gen is None:
            return False
        if gen != self._gen:
            try:
                self._load_snapshot(gen)
            except (IndexUnavailable, FileNotFoundError) as exc:
                logger.warning("vector index %s gen %s unusable: %s", self.kind.name, gen, exc)
                return False
        self._current_stat = stat
        self._read_journal()
        return True

    def _refresh_locked(self) -> None:
        if self._gen is not None and self._stat_current() == self._current_stat:
            self._read_journal()  # the common case: at most a few new lines
            return
        if self._try_load(self._read_current()):
            return
        with self._flocked():
            # Another process may have built it while we waited for the lock.
            gen = self._read_current()
            if not self._try_load(gen):
                log = logger.info if gen is None else logger.warning
                log("building vector index %s from the database", self.kind.name)
                self._rebuild_locked(progress=None)

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
            from entities.tasks import vector_upsert_enqueue

            for start in range(0, len(missing), 1000):
                vector_upsert_enqueue(self.kind.name, missing[start : start + 1000])
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
                vectors = self.embedder.encode([t for _k, t in todo]) if todo else []
                items = [(k, text_hash(t), v) for (k, t), v in zip(todo, vectors, strict=True)]
                records = self._apply_add(items)
                records += self._apply_delete(k for k in batch if k not in rows)
                self._append_journal(records)
                changed += len(records)
        return changed

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
        previous = self._read_current()
        # Until the new snapshot is written, a failure must lead to a reload, not to
        # this half-built memory.
        self._gen = None
        self._current_stat = None
        self._reset_memory(capacity=total or MIN_CAPACITY)
        done = 0
        batch: list[tuple[Key, str]] = []

        def flush() -> None:
            nonlocal done
            vectors = self.embedder.encode([t for _k, t in batch])
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
        self._write_snapshot((previous if previous is not None else -1) + 1)
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

    def _exact(self, vector: np.ndarray, labels: list[int], k: int) -> list[tuple[Key, float]]:
        if not labels or k <= 0:
            return []
        matrix = np.asarray(self._hnsw.get_items(labels, return_type="numpy"), dtype=np.float32)
        scores = matrix @ vector
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
            matrix = np.asarray(
                self._hnsw.get_items([lb for _k, lb in labels], return_type="numpy"),
                dtype=np.float32,
            )
        scores = matrix @ vector
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
            "live": self.live_count,
            "deleted": len(self._deleted),
            "ef_search": self.ef_search,
        }


def _dedupe(items: list[tuple[Key, str, np.ndarray]]) -> list[tuple[Key, str, np.ndarray]]:
    """The last change per key wins (hnswlib takes one vector per label per call)."""
    return list({key: (key, h, v) for key, h, v in items}.values())
