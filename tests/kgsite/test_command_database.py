"""Commands run against a database nobody migrated (a new DATABASE_URL, a fresh
PostgreSQL database): one line naming the remedy and a non-zero exit, as an operator
runs them, in a process of their own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "command",
    [
        ["entity_get", "Ankara"],  # reads through the raw SQLite connection
        ["delete_book", "Notes"],
        ["export_graph", "graph.jsonl"],
    ],
)
def test_a_database_never_migrated_is_one_line_saying_to_migrate(tmp_path, command):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.dev",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'new.sqlite3'}",
        "KGSITE_DATA_DIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *command, "-v0"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"{command[0]}: the database is not migrated (")
    assert lines[0].endswith("run 'manage.py migrate' first")
    assert not (tmp_path / "graph.jsonl").exists()


def test_a_database_that_cannot_be_reached_is_one_line_naming_where(tmp_path):
    """PostgreSQL down (or a DATABASE_URL naming the wrong port) was a traceback through
    psycopg's connection attempts."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.dev",
        "DATABASE_URL": "postgres://kg:hunter2@127.0.0.1:1/kg",  # nothing listens on port 1
        "KGSITE_DATA_DIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "delete_book", "Notes"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("delete_book: cannot connect to the database (")
    assert "port 1" in lines[0] and lines[0].endswith("check DATABASE_URL")
    assert "hunter2" not in done.stderr
