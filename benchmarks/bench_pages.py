"""Issue 11: curator page server time at 100,000 entities (300,000 aliases, 100,000
facts), measured through Django's test client with a logged-in curator (the whole
request: middleware, session, views, selectors, templates; no network, no browser).

Pages: the dashboard (every app's panel: counts, jobs, open contradictions, recent
curator actions), the entity page of randomly chosen entities (aliases, facts, book
mentions, merge panel), and search as you type (an HTMX request for the results of a
three-letter prefix). The data is bench_lookup's seeded generator, so names look real.
"""

from __future__ import annotations

import os
import random
import sys
import time

from benchmarks._django import bench_curator, database_vendor, percentiles, setup

SEED = 20261123
GOAL_MS = {"dashboard": 200.0, "entity page": 100.0, "search as you type": 100.0}
LOAD = "load average {:.1f} on {} cores"


def _row(metric: str, value: object, unit: str, goal: str = "", ok: bool | None = None) -> dict:
    return {"benchmark": "pages", "metric": metric, "value": value, "unit": unit, "goal": goal,
            "ok": ok}  # fmt: skip


def _history(user, entities: list, rng: random.Random) -> None:
    """What a dashboard shows on a site in use: audit rows, some notifications."""
    from kgsite.models import AuditEntry
    from notifications.services import notification_create

    AuditEntry.objects.bulk_create(
        AuditEntry(
            actor=user,
            action=rng.choice(["alias.add", "entity.update", "contradiction.resolve"]),
            target_type="entities.entity",
            target_id=e.pk,
            payload={},
        )
        for e in rng.sample(entities, 5000)
    )
    for i in range(50):
        notification_create(type="system", urgency=rng.choice(["high", "medium", "low"]),
                            title=f"bench notice {i}", key=f"bench:{i}")  # fmt: skip


def _time(client, urls: list[str], **headers) -> list[float]:
    samples = []
    for url in urls:
        start = time.perf_counter()
        response = client.get(url, **headers)
        samples.append((time.perf_counter() - start) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
    return samples


def run(quick: bool = False) -> list[dict]:
    setup("pages")
    from django.test import Client

    from benchmarks.bench_lookup import generate, seed

    n_entities = 10_000 if quick else 100_000
    n_requests = 50 if quick else 200
    rng = random.Random(SEED)
    data = generate(n_entities, rng)
    entities, seed_s = seed(data)
    print(f"  seeded {len(entities):,} entities in {seed_s:.1f} s", file=sys.stderr)
    user = bench_curator("bench-curator")
    _history(user, entities, rng)

    client = Client()
    client.force_login(user)
    pages = {
        # The framework's own cost on this machine right now (session, auth, template):
        # a page that reads no graph data, to read the others against.
        "baseline (notification badge)": (["/notifications/badge"] * n_requests, {}),
        "dashboard": (["/"] * n_requests, {}),
        "entity page": ([f"/entities/{e.pk}/" for e in rng.sample(entities, n_requests)], {}),
        "search as you type": (
            [f"/entities/?q={e.canonical_name[:3]}" for e in rng.sample(entities, n_requests)],
            {"HTTP_HX_REQUEST": "true"},
        ),
    }
    vendor = database_vendor()
    rows = [
        _row("database", vendor, ""),
        _row("entities", len(entities), "rows"),
        _row("requests per page", n_requests, "requests"),
    ]
    for name, (urls, headers) in pages.items():
        _time(client, urls[:10], **headers)  # warm: templates compiled, caches filled
        stats = percentiles(_time(client, urls, **headers))
        goal = GOAL_MS.get(name)
        rows.append(_row(f"{name} p50", round(stats["p50"], 1), "ms"))
        if goal is None:
            rows.append(_row(f"{name} p95", round(stats["p95"], 1), "ms"))
            continue
        rows.append(
            _row(f"{name} p95", round(stats["p95"], 1), "ms", f"< {goal:g} ms", stats["p95"] < goal)
        )
    rows.append(_row("machine", LOAD.format(os.getloadavg()[0], os.cpu_count()), ""))
    return rows
