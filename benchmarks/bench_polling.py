"""Issue 23: what the live updates cost. The pages poll (htmx ``every``): the bell's badge
every 10 s (its panel reloads only when the count changes), the dashboard's counts and
the inbox's count every 15 s, a running job every 1 s. Measured here: each polled
answer's server time and size through Django's test client (middleware, session,
queries, template) on a site in use, and what one open tab costs per minute.

Server-sent events were the alternative: one long-lived response per open tab. Under
the production server (gunicorn's sync workers, a handful per machine) every open tab
would hold a worker for as long as it stays open, so a few curators would starve the
site; and a change would still have to be found by a query loop on the server. Polling
costs the figures below and holds nothing.
"""

from __future__ import annotations

import os
import random
import sys
import time

from benchmarks._django import database_vendor, percentiles, setup

SEED = 20261126
# (name, url, seconds between polls while the page is open)
POLLED = [
    ("bell badge", "/notifications/badge", 10),
    ("bell panel (on a change)", "/notifications/panel", 0),
    ("dashboard counts", "/dashboard/counts", 15),
    ("inbox count", "/integrity/count", 15),
]


def _row(metric: str, value: object, unit: str, goal: str = "", ok: bool | None = None) -> dict:
    return {"benchmark": "polling", "metric": metric, "value": value, "unit": unit,
            "goal": goal, "ok": ok}  # fmt: skip


def _site(n_entities: int, rng: random.Random):
    """A site in use: entities with facts, open contradictions, notifications, jobs."""
    from django.contrib.auth.models import Group, Permission, User

    from books.models import IngestJob
    from entities.models import Entity
    from entities.services import fact_store
    from integrity.detection.classifier import Verdict
    from integrity.services import contradiction_store
    from notifications.services import notification_create

    Entity.objects.bulk_create(
        Entity(canonical_name=f"Bench entity {i}", name_norm=f"bench entity {i}", type="thing")
        for i in range(n_entities)
    )
    entities = list(Entity.objects.all()[:200])
    for i in range(60):
        e = rng.choice(entities)
        a = fact_store(text=f"{e.canonical_name} weighs {i} kg", entities=[e]).fact
        b = fact_store(text=f"{e.canonical_name} weighs {i + 7} kg", entities=[e]).fact
        verdict = Verdict("contradiction", "number", rng.uniform(0.5, 1.0), "weights differ")
        contradiction_store(fact_a=a, fact_b=b, verdict=verdict)
    for i in range(200):
        notification_create(type="system", urgency=rng.choice(["high", "medium", "low"]),
                            title=f"bench notice {i}", key=f"bench-poll:{i}")  # fmt: skip
    IngestJob.objects.bulk_create(
        IngestJob(title=f"book {i}", status="done", result={"chunks": 10}) for i in range(10)
    )
    user = User.objects.create_user("bench-poller", password="x")
    group, _ = Group.objects.get_or_create(name="curators")
    group.permissions.add(Permission.objects.get(codename="curate"))
    user.groups.add(group)
    return user


def _time(client, url: str, n: int) -> tuple[list[float], int]:
    samples, size = [], 0
    for _ in range(n):
        start = time.perf_counter()
        response = client.get(url, HTTP_HX_REQUEST="true")
        samples.append((time.perf_counter() - start) * 1000)
        size = len(response.content)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
    return samples, size


def run(quick: bool = False) -> list[dict]:
    setup("polling")
    from django.test import Client

    rng = random.Random(SEED)
    n_entities = 2_000 if quick else 20_000
    n = 50 if quick else 200
    user = _site(n_entities, rng)
    print(f"  seeded {n_entities:,} entities", file=sys.stderr)
    client = Client()
    client.force_login(user)
    rows = [_row("database", database_vendor(), ""), _row("entities", n_entities, "rows")]
    per_minute_ms = 0.0
    per_minute_bytes = 0
    for name, url, every in POLLED:
        _time(client, url, 5)  # warm
        samples, size = _time(client, url, n)
        stats = percentiles(samples)
        rows.append(_row(f"{name} p50", round(stats["p50"], 1), "ms"))
        rows.append(_row(f"{name} p95", round(stats["p95"], 1), "ms"))
        rows.append(_row(f"{name} size", size, "bytes"))
        if every:
            per_minute_ms += stats["p50"] * 60 / every
            per_minute_bytes += size * 60 // every
    rows.append(_row("one open tab (badge + dashboard + inbox)", round(per_minute_ms, 1),
                     "ms of server time per minute"))  # fmt: skip
    rows.append(_row("one open tab, transferred", per_minute_bytes, "bytes per minute"))
    rows.append(_row("machine", f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", ""))
    return rows
