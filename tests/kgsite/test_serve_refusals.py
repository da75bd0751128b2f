"""``manage.py serve`` refusing to start: one readable line and a non-zero exit, and no
worker left running behind it (a worker started before the refusal is stopped)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")


def _env(tmp_path) -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.dev",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
        "KGSITE_DATA_DIR": str(tmp_path),
        "KGSITE_LOG_LEVEL": "ERROR",
    }
    env.pop("REDIS_URL", None)
    return env


def _serve(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "serve", *args],
        cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=180,
    )  # fmt: skip


def _refusal(done: subprocess.CompletedProcess) -> str:
    assert done.returncode not in (0, None)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("CommandError: "), done.stderr
    return lines[0]


def _started_with(marker: str) -> list[int]:
    """Processes whose environment holds ``marker`` (this test's data directory)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def test_a_server_program_that_does_not_exist_is_one_line(tmp_path):
    line = _refusal(_serve(tmp_path, "--workers", "0", "--", str(tmp_path / "no-server")))
    assert "cannot start the server" in line and "no-server" in line


def test_a_log_that_cannot_be_written_is_one_line_before_anything_starts(tmp_path):
    (tmp_path / "taken").write_text("a file, not a folder")
    log = tmp_path / "taken" / "run.log"
    line = _refusal(_serve(tmp_path, "--workers", "0", "--log", str(log), "--", "true"))
    assert f"cannot write the log {log}" in line


def test_negative_workers_are_one_line(tmp_path):
    assert "--workers" in _refusal(_serve(tmp_path, "--workers", "-1", "--", "true"))


def test_the_workers_started_before_a_refused_server_are_stopped(tmp_path):
    env = _env(tmp_path)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True
    )
    done = _serve(tmp_path, "--workers", "1", "--", str(tmp_path / "no-server"))
    assert "cannot start the server" in _refusal(done)
    marker = f"KGSITE_DATA_DIR={tmp_path}"
    deadline = time.monotonic() + 30  # a stopped worker takes a moment to exit
    while _started_with(marker) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert _started_with(marker) == []  # no orphaned worker
