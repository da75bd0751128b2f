"""``manage.py serve`` (what ``make run`` and ``make prod`` start): SIGTERM stops all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
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
        base = os.nice(0)  # the test run's own niceness (a run under `nice` starts at 10)
        assert workers and all(nice[pid] == min(base + 7, 19) for pid in workers), nice
        assert [nice[pid] for pid in started if b"time.sleep" in _cmdline(pid)] == [base]
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=60) == 0
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert [p for p in started if _alive(p)] == []  # no orphaned worker
    finally:
        if serve.poll() is None:
            serve.kill()


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve_env(tmp_path) -> dict:
    env = {**os.environ, "KGSITE_DATA_DIR": str(tmp_path), "KGSITE_LOG_LEVEL": "ERROR"}
    env.pop("REDIS_URL", None)
    return env


def test_the_terminal_ends_with_the_address_and_the_chatter_goes_to_the_log(tmp_path):
    """What ``make run`` relies on: the --say lines once the URL answers, last; the
    server's own output in the log file, not on the terminal."""
    port = _free_port()
    log = tmp_path / "logs" / "run.log"
    server = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--workers", "0", "--log", str(log),
         "--ready-url", f"http://127.0.0.1:{port}/", "--say", "up at the address",
         "--say", "log in as someone", "--", *server],
        cwd=ROOT, env=_serve_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        first = serve.stdout.readline()  # blocks until serve prints (or exits: "")
        second = serve.stdout.readline()
        serve.send_signal(signal.SIGTERM)
        rest, errors = serve.communicate(timeout=60)
    finally:
        if serve.poll() is None:
            serve.kill()
    assert (first, second) == ("up at the address\n", "log in as someone\n")
    assert serve.returncode == 0, errors
    assert rest == f"Stopped (the server's and workers' output is in {log}).\n"
    written = log.read_text()
    assert "=== manage.py serve" in written and '"GET / HTTP/1.1" 200' in written


def test_a_server_that_stops_at_once_shows_the_end_of_its_log(tmp_path):
    log = tmp_path / "run.log"
    server = [sys.executable, "-c", "print('Error: That port is already in use.'); exit(1)"]
    done = subprocess.run(
        [sys.executable, "manage.py", "serve", "--workers", "0", "--log", str(log),
         "--ready-url", "http://127.0.0.1:9/", "--say", "never printed", "--", *server],
        cwd=ROOT, env=_serve_env(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert "never printed" not in done.stdout
    assert "Error: That port is already in use." in done.stderr
    assert done.stderr.rstrip().endswith("the server exited with status 1")


def test_an_address_another_server_answers_at_is_refused_before_anything_starts(tmp_path):
    """Else the other server's answer would be announced as ours (a second ``make run``)."""
    port = _free_port()
    other = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until the other server answers
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except OSError:
                time.sleep(0.2)
        log = tmp_path / "run.log"
        done = subprocess.run(
            [sys.executable, "manage.py", "serve", "--workers", "0", "--log", str(log),
             "--ready-url", url, "--say", "never printed", "--", sys.executable, "-c", "0"],
            cwd=ROOT, env=_serve_env(tmp_path), capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        other.kill()
        other.wait()
    assert done.returncode == 1 and "never printed" not in done.stdout
    assert f"something already answers at {url}" in done.stderr
    assert not log.exists()  # nothing was started
