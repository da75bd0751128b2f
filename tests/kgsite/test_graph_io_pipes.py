"""export_graph and import_graph through pipes, as an operator moves a graph between
hosts (``export_graph - | ssh there manage.py import_graph -``), run as real processes
against a database of their own."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from entities.services import entity_store

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def empty_site(tmp_path):
    """The environment of a second, freshly migrated site (SQLite), and its file."""
    database = tmp_path / "there.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.dev",
        "DATABASE_URL": f"sqlite:///{database}",
        "KGSITE_DATA_DIR": str(tmp_path / "there"),
        "KGSITE_LOG_LEVEL": "ERROR",
    }
    env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True
    )
    return env, database


def names_in(database: Path) -> list[str]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT canonical_name FROM entities_entity ORDER BY 1")
        return [name for (name,) in rows]


def test_an_export_piped_into_import_graph_dash_arrives_whole(
    tmp_path, settings, empty_site, capsys
):
    """export_graph writes '-' (standard output), but import_graph read no '-' ("cannot
    read -: No such file or directory") and a pipe (/dev/stdin) ended in a traceback
    (it seeked back to the header)."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    entity_store(name="Ankara", type="place", description="capital city")
    entity_store(name="Bursa", type="place")
    call_command("export_graph", "-", verbosity=0)
    export = capsys.readouterr().out
    assert export.startswith('{"format": "kgsite-graph"')
    env, database = empty_site
    done = subprocess.run(
        [sys.executable, "manage.py", "import_graph", "-", "--skip-derived", "-v0"],
        cwd=ROOT, env=env, input=export, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "rows imported from -" in done.stdout
    assert names_in(database) == ["Ankara", "Bursa"]


def test_ctrl_c_during_an_import_is_one_line_and_writes_nothing(tmp_path, settings, empty_site):
    """Ctrl-C printed a KeyboardInterrupt traceback through Django's and the database
    driver's frames; the import is one transaction: nothing of it stays."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    entity_store(name="Ankara", type="place")
    entity_store(name="Bursa", type="place")
    # From a file: what the test process prints meanwhile (a queued job's line) is no row.
    call_command("export_graph", str(tmp_path / "graph.jsonl"), verbosity=0, stdout=io.StringIO())
    header, *_rows = (tmp_path / "graph.jsonl").read_text().splitlines(keepends=True)
    env, database = empty_site
    importing = subprocess.Popen(
        [sys.executable, "manage.py", "import_graph", "-", "--skip-derived"],
        cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # Ctrl-C as a terminal delivers it: a test run may ignore SIGINT (children inherit
        # that, and Python then never raises KeyboardInterrupt).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        importing.stdin.write(header.encode())
        importing.stdin.flush()  # the rows are still on their way
        shown = b""
        while b"rows" not in shown:  # the progress bar: the import has begun
            chunk = os.read(importing.stderr.fileno(), 4096)
            assert chunk, shown
            shown += chunk
        # The import waits for its first row (a signal during a query is SQLite's own
        # "interrupted" error, which names its line instead).
        time.sleep(2)
        importing.send_signal(signal.SIGINT)
        _out, err = importing.communicate(timeout=60)
    finally:
        if importing.poll() is None:
            importing.kill()
    said = [
        line
        for line in err.decode().replace("\r", "\n").splitlines()
        if line.strip() and "rows" not in line
    ]
    assert importing.returncode == 130, err.decode()
    assert said == ["import_graph: interrupted"], err.decode()
    assert names_in(database) == []
