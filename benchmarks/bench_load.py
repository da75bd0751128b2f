"""Writes that keep up (issues 25 and 27): the production profile (gunicorn, Redis,
background workers) started cold on a scratch database, 8 writers and 4 readers at once,
on SQLite and on PostgreSQL (``benchmarks.load`` does the work).

Rows per database: ``POST /facts/`` p50 and p99 (goal p99 < 300 ms), requests per
second in all, and errors, duplicates and lost writes (goal 0 each). The PostgreSQL
server is ``DATABASE_URL`` when it names one (``--postgres``), else
``KGSITE_LOAD_POSTGRES`` (default the local server); a scratch database is made on it.
"""

from __future__ import annotations

import os

from benchmarks import load

GOAL_P99_MS = 300.0


def _server() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        return url
    return os.environ.get("KGSITE_LOAD_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")


def run(quick: bool = False) -> list[dict]:
    seconds = "10" if quick else "30"
    args = load.parse_args(
        ["--profiles", "prod:sqlite,prod:postgres", "--seconds", seconds, "--cold",
         "--postgres", _server()]
    )  # fmt: skip
    results = load.run_all(args)
    load.report(results)  # the per-endpoint table, on stdout as progress
    rows = []
    for spec, r in results.items():
        writes = r["times"].get("POST /facts/", [])
        total = sum(map(len, r["times"].values()))
        label = f"{spec} cold, {args.writers} writers + {args.readers} readers"
        p99 = load._pct(writes, 0.99)
        rows += [
            {"metric": f"{label}: POST /facts/ p50", "value": load._pct(writes, 0.5),
             "unit": "ms", "goal": ""},
            {"metric": f"{label}: POST /facts/ p99", "value": p99, "unit": "ms",
             "goal": f"< {GOAL_P99_MS:.0f}", "ok": p99 < GOAL_P99_MS},
            {"metric": f"{label}: POST /facts/ per second", "value": len(writes) / r["elapsed"],
             "unit": "req/s", "goal": ""},
            {"metric": f"{label}: requests per second", "value": total / r["elapsed"],
             "unit": "req/s", "goal": ""},
            {"metric": f"{label}: server CPU per request (web + workers)",
             "value": load.cpu_per_request(r), "unit": "ms", "goal": "",
             "note": f"load average {r['load_average']:.1f} at start"},
            {"metric": f"{label}: errors / duplicates / lost writes",
             "value": sum(r["errors"].values()) + r["duplicates"] + r["lost"], "unit": "",
             "goal": "0", "ok": not (sum(r["errors"].values()) or r["duplicates"] or r["lost"]),
             "note": "; ".join(f"{k} x{v}" for k, v in sorted(r["errors"].items()))},
        ]  # fmt: skip
    return [{"benchmark": "load", **row} for row in rows]
