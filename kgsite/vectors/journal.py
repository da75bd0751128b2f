"""The hnswlib index's files: generations, snapshots and the journal of changes.

``SnapshotJournal`` is the part of ``VectorIndex`` that reads and writes the files under
``KGSITE_VECTOR_DIR/<kind>/`` (the layout is described in ``index.py``): it needs the
index's memory (``_hnsw``, labels, hashes) and its locks, which ``VectorIndex`` owns.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import struct
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from .kinds import IndexUnavailable, JournalDamaged, Key, _decode_vec, _write_atomic

logger = logging.getLogger(__name__)

MIN_CAPACITY = 1024
# The header hnswlib's ``saveIndex`` writes (0.7-0.8): offsetLevel0, max_elements,
# cur_element_count, size_data_per_element, label_offset, offsetData (size_t each),
# maxlevel (int), enterpoint (uint32), maxM, maxM0, M (size_t), mult (double),
# ef_construction (size_t); then each element's level-0 block: links, vector, label.
HNSW_HEADER = struct.Struct("<6Q i I 3Q d Q")


class SnapshotVectors:
    """The stored vectors of a saved snapshot, read from its file (memory-mapped: the
    page cache, shared by every process) instead of hnswlib's ``get_items``, which costs
    about 30 µs an item: 1,100 rows of a project's scope 35 ms, from the file ~1 ms.
    Raises ``ValueError`` on a file whose layout is not the one expected; the index
    then checks a few rows against ``get_items`` before trusting it."""

    def __init__(self, path: Path, dim: int) -> None:
        with open(path, "rb") as fh:
            header = HNSW_HEADER.unpack(fh.read(HNSW_HEADER.size))
        _level0, _capacity, count, size, label_at, data_at = header[:6]
        end = HNSW_HEADER.size + count * size
        if data_at + 4 * dim > size or label_at + 8 > size:
            raise ValueError("unexpected element layout")
        if os.path.getsize(path) < end:
            raise ValueError("truncated")
        self.row_of = np.zeros(0, dtype=np.int64)
        self._data = slice(data_at, data_at + 4 * dim)
        if not count:  # an empty snapshot: every label is read from memory
            return
        self._rows = np.memmap(path, np.uint8, "r", offset=HNSW_HEADER.size, shape=(count, size))
        labels = np.ascontiguousarray(self._rows[:, label_at : label_at + 8]).view("<u8").ravel()
        self.row_of = np.full(int(labels.max()) + 1, -1, dtype=np.int64)
        self.row_of[labels.astype(np.int64)] = np.arange(count)

    def rows(self, labels: np.ndarray) -> np.ndarray:
        """The file's row of each label, -1 where the file has none."""
        inside = labels < len(self.row_of)
        found = np.full(len(labels), -1, dtype=np.int64)
        found[inside] = self.row_of[labels[inside]]
        return found

    def has(self, label: int) -> bool:
        return label < len(self.row_of) and self.row_of[label] >= 0

    def get_rows(self, rows: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(self._rows[rows, self._data]).view(np.float32)

    def get(self, labels: list[int]) -> np.ndarray:
        return self.get_rows(self.row_of[np.asarray(labels, dtype=np.int64)])


class SnapshotJournal:
    """Generations on disk: CURRENT, snapshots, and the journal since the snapshot."""

    def _parse_record(self, line: bytes) -> tuple[str, Key, str, np.ndarray | None]:
        """One journal line as (op, key, hash, vector); raises on anything malformed."""
        record = json.loads(line)
        op = record["op"]
        key = self.kind.key_type(record["key"])
        if op == "del":
            return op, key, "", None
        if op != "add":
            raise ValueError(f"unknown op {op!r}")
        digest = record["hash"]
        if not isinstance(digest, str):
            raise TypeError("hash is not a string")
        vec = _decode_vec(record["vec"])
        if vec.shape != (self.dim,) or not np.isfinite(vec).all():
            raise ValueError(f"vector of {vec.size} values, not {self.dim}")
        return op, key, digest, vec

    def _apply_records(self, records: Iterable[tuple[str, Key, str, np.ndarray | None]]) -> None:
        adds: list[tuple[Key, str, np.ndarray]] = []
        for op, key, digest, vec in records:
            if op == "add":
                adds.append((key, digest, vec))
            else:
                self._apply_add(_dedupe(adds))
                adds = []
                self._apply_delete([key])
        self._apply_add(_dedupe(adds))

    # --- files ------------------------------------------------------------------------

    def _path(self, gen: int, suffix: str) -> Path:
        return self.dir / f"gen-{gen}.{suffix}"

    def _read_current(self) -> tuple[int, str | None] | None:
        """The live generation as (number, id); None when there is none (or garbage)."""
        try:
            current = json.loads((self.dir / "CURRENT").read_text())
            gen_id = current.get("id")
            return int(current["gen"]), (str(gen_id) if gen_id is not None else None)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def _next_gen(self) -> int:
        current = self._read_current()
        return current[0] + 1 if current is not None else 0

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
            try:
                with open(self.dir / "lock", "a+b") as fh:
                    fcntl.flock(fh, fcntl.LOCK_EX)
                    self._flock_depth = 1
                    try:
                        yield
                    finally:
                        self._flock_depth = 0
                        fcntl.flock(fh, fcntl.LOCK_UN)
            finally:
                # Jobs queued while holding the lock may run inline (sync queue): only now.
                todo, self._after_unlock = self._after_unlock, []
                for job in todo:
                    job()

    @contextlib.contextmanager
    def _writer(self) -> Iterator[None]:
        """Hold both locks and catch up with other writers before changing anything."""
        with self._lock, self._flocked():
            self._repair_tail()
            # Writes run in the worker or a command (web requests queue them): a missing
            # index is rebuilt right here, whatever its size.
            self._refresh_locked(build_inline=True)
            yield

    def _load_snapshot(self, gen: int, gen_id: str | None) -> None:
        import hnswlib  # deferred: a native library, loaded on first index use

        try:
            meta = json.loads(self._path(gen, "json").read_text())
            if meta.get("signature") != self.signature or meta.get("dim") != self.dim:
                raise IndexUnavailable("built by another embedder")
            if meta.get("id") is not None and meta.get("id") != gen_id:
                raise IndexUnavailable("metadata belongs to another generation")
            keys = [self.kind.key_type(k) for k in meta["keys"]]
            hashes = [str(h) for h in meta["hashes"]]
            deleted = {int(label) for label in meta.get("deleted", [])}
            complete = bool(meta.get("complete", True))
        except IndexUnavailable:
            raise
        except Exception as exc:  # missing, truncated or hand-edited metadata
            raise IndexUnavailable(f"unreadable metadata: {exc}") from exc
        if len(keys) != len(hashes):
            raise IndexUnavailable("metadata lists disagree")
        hnsw = hnswlib.Index(space="cosine", dim=self.dim)
        try:
            hnsw.load_index(str(self._path(gen, "hnsw")), max_elements=max(len(keys), MIN_CAPACITY))
        except Exception as exc:  # hnswlib raises RuntimeError on truncated files
            raise IndexUnavailable(f"unreadable snapshot: {exc}") from exc
        if hnsw.get_current_count() != len(keys):
            raise IndexUnavailable("snapshot and metadata disagree")
        hnsw.set_ef(self._ef_setting)
        self._hnsw = hnsw
        self._keys = keys
        self._hashes = hashes
        self._labels = {k: i for i, k in enumerate(keys)}
        self._deleted = deleted
        self._complete = complete
        self._gen = gen
        self._gen_id = gen_id
        self._offset = 0
        self._journal_count = 0
        self._file_follow(self._path(gen, "hnsw"))

    def _write_snapshot(self, gen: int) -> None:
        """Save memory as generation ``gen`` and make it current (caller holds the flock)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        gen_id = uuid.uuid4().hex
        tmp = self.dir / f".gen-{gen}.hnsw.{os.getpid()}.tmp"
        self._hnsw.save_index(str(tmp))
        os.replace(tmp, self._path(gen, "hnsw"))
        self._file_follow(self._path(gen, "hnsw"))
        meta = {
            "gen": gen,
            "id": gen_id,
            "signature": self.signature,
            "dim": self.dim,
            "complete": self._complete,
            "keys": self._keys,
            "hashes": self._hashes,
            "deleted": sorted(self._deleted),
        }
        _write_atomic(self._path(gen, "json"), json.dumps(meta).encode())
        _write_atomic(self._path(gen, "journal"), b"")
        _write_atomic(self.dir / "CURRENT", json.dumps({"gen": gen, "id": gen_id}).encode())
        self._gen = gen
        self._gen_id = gen_id
        self._offset = 0
        self._journal_count = 0
        # Keep the previous generation: a reader may be loading it right now. Higher
        # numbers are leftovers from before a lost CURRENT (numbering restarted).
        for path in self.dir.glob("gen-*.*"):
            try:
                old = int(path.name.split(".")[0].removeprefix("gen-"))
            except ValueError:
                continue
            if old not in (gen, gen - 1):
                path.unlink(missing_ok=True)

    def _read_journal(self, *, strict: bool = True) -> int:
        """Apply complete journal lines written since the last read.

        ``strict``: a line that cannot be read raises ``JournalDamaged`` before anything
        is applied. Otherwise such lines are skipped; returns how many.
        """
        path = self._path(self._gen, "journal")
        try:
            with open(path, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:
            return 0
        end = data.rfind(b"\n") + 1  # a line still being written waits for next time
        if not end:
            return 0
        records = []
        damaged = 0
        for number, line in enumerate(data[:end].split(b"\n")):
            if not line.strip():
                continue
            try:
                records.append(self._parse_record(line))
            except Exception as exc:  # any malformed line: never a crash
                if strict:
                    raise JournalDamaged(
                        f"journal of generation {self._gen}, line {number + 1} after byte "
                        f"{self._offset}: {type(exc).__name__}: {exc}"
                    ) from exc
                damaged += 1
        self._apply_records(records)
        self._offset += end
        self._journal_count += len(records)
        return damaged

    def _repair_tail(self) -> None:
        """End a journal line left without its newline (caller holds the flock).

        Appends happen under the flock, so such a line is a writer killed mid-write, not
        one in progress. Ended, it reads as one damaged line (and triggers a repair)
        instead of gluing onto the next record.
        """
        current = self._read_current()
        if current is None:
            return
        try:
            with open(self._path(current[0], "journal"), "r+b") as fh:
                size = fh.seek(0, os.SEEK_END)
                if not size:
                    return
                fh.seek(size - 1)
                if fh.read(1) == b"\n":
                    return
                fh.seek(0, os.SEEK_END)
                fh.write(b"\n")
        except FileNotFoundError:
            return
        logger.warning("vector index %s: ended a torn journal line", self.kind.name)

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


def _dedupe(items: list[tuple[Key, str, np.ndarray]]) -> list[tuple[Key, str, np.ndarray]]:
    """The last change per key wins (hnswlib takes one vector per label per call)."""
    return list({key: (key, h, v) for key, h, v in items}.values())
