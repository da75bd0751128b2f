"""``manage.py serve`` (what ``make run`` and ``make prod`` start): SIGTERM stops all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state, ppid, ...; field N
    of proc(5) is item N - 3), or None when the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _descendants(pid: int) -> set[int]:
    """Every process below pid (from /proc): the server, the workers and their children."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        stat = _stat(int(entry.name)) if entry.name.isdigit() else None
        if stat is not None:
            children.setdefault(int(stat[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def _nice(pid: int) -> int | None:
    stat = _stat(pid)
    return int(stat[16]) if stat is not None else None


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads the process table from /proc")
def test_sigterm_stops_the_server_and_its_worker(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.dev",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
        "KGSITE_DATA_DIR": str(tmp_path),
        "KGSITE_LOG_LEVEL": "ERROR",
        "KGSITE_WORKER_NICE": "7",
    }
    env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True
    )
    server = [sys.executable, "-c", "import time; time.sleep(300)"]
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--workers", "1", "--", *server],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        # The server, the qcluster and the processes qcluster forks (guard, workers, ...).
        while len(_descendants(serve.pid)) < 4 and time.monotonic() < deadline:
            time.sleep(0.3)
        started = _descendants(serve.pid)
        assert len(started) >= 4, started
        # The workers yield the CPU to the web server (KGSITE_WORKER_NICE); the server not.
        nice = {pid: _nice(pid) for pid in started}
        workers = [pid for pid in started if b"qcluster" in _cmdline(pid)]
        assert workers and all(nice[pid] == 7 for pid in workers), nice
        assert [nice[pid] for pid in started if b"time.sleep" in _cmdline(pid)] == [0]
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=60) == 0
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert [p for p in started if _alive(p)] == []  # no orphaned worker
    finally:
        if serve.poll() is None:
            serve.kill()
