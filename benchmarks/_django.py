"""Django setup and statistics shared by the benchmarks.

Each benchmark runs in its own process (see ``benchmarks.__main__``) and calls
:func:`setup` once, so it gets a fresh, migrated scratch database that is removed when
the process ends. The developer's own database is never touched:

* by default the database is a temporary SQLite file;
* if ``DATABASE_URL`` names a server database (PostgreSQL), a scratch database
  ``kgsite_bench_<prefix>_<pid>`` is created on that server and dropped at exit; the
  database named in the URL is only used to connect.
"""

from __future__ import annotations

import atexit
import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

_STATE: dict[str, object] = {}


def setup(tmp_prefix: str, database_url: str | None = None, keep: Path | None = None) -> Path:
    """Configure Django on a scratch database and migrate it; return the temp directory.

    With ``keep`` (a directory), the data directory and the database are kept for the
    next run instead (a benchmark's cached fixture): SQLite's file lives in ``keep``, a
    server database is named after it and not dropped."""
    if "tmp_dir" in _STATE:
        return _STATE["tmp_dir"]  # type: ignore[return-value]
    if keep is not None:
        tmp_dir = Path(keep)
        tmp_dir.mkdir(parents=True, exist_ok=True)
    else:
        tmp_dir = Path(tempfile.mkdtemp(prefix=f"kgsite-bench-{tmp_prefix}-"))
        atexit.register(shutil.rmtree, tmp_dir, ignore_errors=True)

    url = database_url or os.environ.get("DATABASE_URL", "")
    if url and not url.startswith("sqlite"):
        suffix = f"keep_{tmp_dir.name}" if keep is not None else str(os.getpid())
        url = _scratch_server_database(url, tmp_prefix, suffix, drop=keep is None)
    else:
        # A SQLite DATABASE_URL in the environment is the developer's own file: ignore it.
        url = f"sqlite:///{tmp_dir / 'bench.sqlite3'}"

    os.environ["DATABASE_URL"] = url
    os.environ["KGSITE_DATA_DIR"] = str(tmp_dir)
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["DJANGO_SETTINGS_MODULE"] = "kgsite.settings.bench"

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    _STATE["tmp_dir"] = tmp_dir
    return tmp_dir


def database_vendor() -> str:
    """ "sqlite" or "postgresql": the goal of some benchmarks holds for one engine only."""
    from django.db import connection

    return connection.vendor


def _scratch_server_database(url: str, tmp_prefix: str, suffix: str, *, drop: bool = True) -> str:
    """Create a throwaway database next to the one ``url`` names; drop it at exit (or,
    with ``drop`` false, keep it and reuse it next time)."""
    import dj_database_url
    import psycopg

    cfg = dj_database_url.parse(url)
    name = re.sub(r"[^a-z0-9_]", "_", f"kgsite_bench_{tmp_prefix}_{suffix}".lower())[:63]
    conninfo = {
        "host": cfg.get("HOST") or None,
        "port": cfg.get("PORT") or None,
        "user": cfg.get("USER") or None,
        "password": cfg.get("PASSWORD") or None,
        "dbname": "postgres",
    }
    conninfo = {k: v for k, v in conninfo.items() if v is not None}
    with psycopg.connect(**conninfo, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if drop or not exists:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')

    def dropper() -> None:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(**conninfo, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    if drop:
        atexit.register(dropper)
    base, _, query = url.partition("?")
    base = base.rsplit("/", 1)[0]
    return f"{base}/{name}" + (f"?{query}" if query else "")


def row_adder(benchmark: str, rows: list[dict]):
    """A ``row(metric, value, unit, goal="", ok=None, note="")`` that appends one table
    row of ``benchmark`` to ``rows`` (``ok`` only when a goal was checked)."""

    def row(metric, value, unit, goal="", ok=None, note=""):
        item = {"benchmark": benchmark, "metric": metric, "value": value, "unit": unit,
                "goal": goal, "note": note}  # fmt: skip
        if ok is not None:
            item["ok"] = ok
        rows.append(item)

    return row


def percentiles(samples_ms: Iterable[float]) -> dict[str, float]:
    """p50/p95/p99 with linear interpolation between closest ranks (numpy's default)."""
    data = sorted(samples_ms)
    if not data:
        return {"p50": math.nan, "p95": math.nan, "p99": math.nan}

    def at(q: float) -> float:
        pos = (len(data) - 1) * q
        lo, hi = math.floor(pos), math.ceil(pos)
        return data[lo] + (data[hi] - data[lo]) * (pos - lo)

    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99)}


def bench_curator(username: str):
    """A user in the curators group (with the ``curate`` permission), for benchmarks that
    write as a curator."""
    from django.contrib.auth.models import Group, Permission, User

    user = User.objects.create_user(username, password="x")
    group, _ = Group.objects.get_or_create(name="curators")
    group.permissions.add(Permission.objects.get(codename="curate"))
    user.groups.add(group)
    return user
