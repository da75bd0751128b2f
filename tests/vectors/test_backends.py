"""The choice of vector backend, and pgvector's promise: hosts share only the database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from entities import services
from kgsite.vectors import service
from tests.conftest import pgvector_backend

ROOT = Path(__file__).resolve().parents[2]

needs_pgvector = pytest.mark.skipif(
    not pgvector_backend(), reason="needs KGSITE_VECTOR_BACKEND=pgvector (CI's third run)"
)


def run_host(script: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_pgvector_on_sqlite_is_refused_in_one_readable_line(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.base",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "KGSITE_DATA_DIR": str(tmp_path),
        "KGSITE_VECTOR_BACKEND": "pgvector",
    }
    done = run_host("import django; django.setup()", env)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "KGSITE_VECTOR_BACKEND=pgvector needs PostgreSQL" in last
    assert "KGSITE_VECTOR_BACKEND=hnswlib" in last


STORE = """
import sys
import django

django.setup()
from entities import services

print(services.fact_store(text=sys.argv[1]).fact.pk)
"""

SEARCH = """
import json
import sys
import django

django.setup()
from entities.search.kinds import similar_facts
from kgsite.vectors.service import vector_index

hits = similar_facts(sys.argv[1], 3)
print(json.dumps({"hits": hits, "complete": vector_index("facts").complete}))
"""


def host_env(tmp_path: Path, name: str) -> dict[str, str]:
    """A host of its own: its own data and vector directories, the same database."""
    data = tmp_path / name
    data.mkdir()
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.test",
        "DATABASE_URL": url,
        "KGSITE_VECTOR_BACKEND": "pgvector",
        "KGSITE_DATA_DIR": str(data),
        "KGSITE_VECTOR_DIR": str(data / "vectors"),
        "TMPDIR": str(data),
        "PYTHONPATH": str(ROOT),
    }


@needs_pgvector
@pytest.mark.django_db(transaction=True)
def test_a_fact_stored_on_one_host_is_found_by_a_search_on_another(tmp_path, vector_dir):
    # Both hosts start with the store already built (as after a deploy's rebuild).
    services.fact_store(text="The payroll batch runs every night at two")
    service.vector_rebuild("facts")
    web, worker = host_env(tmp_path, "web"), host_env(tmp_path, "worker")

    stored = run_host(STORE, worker, "The billing service writes invoices to PostgreSQL")
    assert stored.returncode == 0, stored.stderr
    fact_id = int(stored.stdout.strip().splitlines()[-1])

    found = run_host(SEARCH, web, "billing invoices PostgreSQL")
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout.strip().splitlines()[-1])
    assert answer["hits"][0][0] == fact_id and answer["complete"] is True
    # Neither host wrote vector files: the vectors live in the database only.
    for host in ("web", "worker"):
        assert not list((tmp_path / host).rglob("*.hnsw"))
        assert not list((tmp_path / host).rglob("*.journal"))


@needs_pgvector
@pytest.mark.django_db(transaction=True)
def test_pgvector_writes_the_vector_when_the_fact_commits_without_the_queue(
    vector_dir, monkeypatch
):
    queued: list = []
    monkeypatch.setattr(service, "vector_upsert_enqueue", lambda *args: queued.append(args))
    fact = services.fact_store(text="Deploys are frozen during the holiday week").fact
    assert fact.pk in service.vector_index("facts")
    assert queued == []
