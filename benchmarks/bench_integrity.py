"""Issue 5: the integrity check with 10,000 stored facts.

Seeds 10,000 facts (2,000 people x 5 attributes: residence, birth year, employer, age,
favourite food) by bulk insert and builds the vector index from the database (as
``rebuild_vectors`` does; when the search app is installed). Then stores new facts of three sorts in
equal parts: conflicting ("lives in" another city), reworded duplicates (trailing full
stop dropped) and unrelated novelties, and measures:

* the synchronous part of ``fact_store`` (what an API client waits for): validation,
  the duplicate finders (exact text, then index neighbours + classifier), the insert,
  the commit and its on-commit hooks, with the background check only *enqueued* on
  django-q2's ORM broker as in production;
* ``fact_check`` (the background check: candidates, classifier, rows, notifications)
  for each new fact, p50/p95, and checks per second in one process;
* the same checks run through ``django_q.tasks.async_task`` (sync mode), i.e. with
  django-q2's own overhead, as checks per second;
* ``fact_store`` once more with every on-commit hook switched off, to show what the
  enqueueing itself costs (django-q2's ORM broker closes and reopens the database
  connection on each enqueue when ``CONN_MAX_AGE`` is 0, and SQLite checkpoints its WAL
  on that close).

The embedder is the hashing one by default (``kgsite.vectors.embedder.HashingEmbedder``)
so the figure is about integrity, not model inference; set ``KGSITE_EMBEDDER`` to the
sentence-transformers class to measure with the real model. The row "vector index"
says whether candidates came from the index or only from shared entities.
"""

from __future__ import annotations

import os
import random
import time

from benchmarks._django import percentiles, setup

SEED = 20240605


def _words(text: str) -> list[str]:
    return text.split()


FIRST = _words(
    "Ada Alan Amélie Anders Aoife Arjun Astrid Beatriz Björn Camille Carmen Chloé Dagny "
    "Dmitri Élodie Emeka Erik Fatima Felipe Freya Giulia Grete Hana Håkon Ingrid Ioana "
    "Jürgen José Kai Kenji Lars Léa Łukasz Malik Mei Milena Nadia Niamh Oskar Petra Priya "
    "Quentin Raúl Renée Sakura Seán Søren Tamás Thiago Ulla Valentina Yusuf Zoë Zoltán"
)
LAST = _words(
    "Abara Álvarez Bauer Bergström Brandão Castro Chen Dvořák Eriksen Fischer Fontaine "
    "Gómez Haddad Ivanova Jansen Kowalczyk Kühn Larsen Lefèvre López Mäkinen Moreau Müller "
    "Nakamura Nguyen Novák Okafor Pérez Petrović Rousseau Sánchez Schmidt Strauß Szabó "
    "Tanaka Varga Wagner Weiß Yılmaz Zimmermann"
)
CITIES = _words(
    "Paris Lyon Berlin Munich Rome Milan Lisbon Porto Madrid Seville Vienna Prague Warsaw "
    "Oslo Stockholm Helsinki Dublin Edinburgh Amsterdam Brussels Zurich Geneva Athens Sofia"
)
ORGS = _words(
    "Acme Globex Initech Umbrella Hooli Stark Wayne Wonka Tyrell Cyberdyne Soylent Aperture "
    "Vandelay Oscorp Gringotts Monarch Nakatomi Virtucon Prestige Massive Dynamic"
)
FOODS = _words("tea coffee pizza sushi pasta curry soup salad bread cheese chocolate rice")


def _people(n: int, rng: random.Random) -> list[str]:
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < n:
        name = f"{rng.choice(FIRST)} {rng.choice('ABCDEFGHJKLMNPRSTVW')}. {rng.choice(LAST)}"
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def _attributes(name: str, rng: random.Random) -> list[str]:
    return [
        f"{name} lives in {rng.choice(CITIES)}.",
        f"{name} was born in {rng.randint(1940, 2005)}.",
        f"{name} works at {rng.choice(ORGS)}.",
        f"{name} is {rng.randint(18, 90)} years old.",
        f"{name} likes {rng.choice(FOODS)}.",
    ]


def _new_fact(name: str, stored: list[str], sort: str, rng: random.Random) -> str:
    if sort == "conflict":
        city = stored[0].rsplit(" ", 1)[1].rstrip(".")
        return f"{name} lives in {rng.choice([c for c in CITIES if c != city])}."
    if sort == "duplicate":
        return rng.choice(stored).rstrip(".")
    return f"{name} speaks {rng.choice(['Welsh', 'Basque', 'Maltese', 'Icelandic'])}."


def _seed(n_people: int, rng: random.Random) -> tuple[list[str], dict, dict, float]:
    """Bulk-load the stored facts, then build the index from the database the way the
    rebuild command does (storing 10,000 facts one by one only measures seeding)."""
    from django.db import connection, transaction

    from entities.models import Entity, EntityFact, Fact
    from kgsite.text import normalize
    from kgsite.vectors.service import vector_rebuild

    people = _people(n_people, rng)
    stored: dict[str, list[str]] = {}
    entities: dict[str, Entity] = {}
    seed_start = time.perf_counter()
    with transaction.atomic():
        rows = [Entity(canonical_name=n, name_norm=normalize(n), type="person") for n in people]
        for entity in Entity.objects.bulk_create(rows):
            entities[entity.canonical_name] = entity
        facts, links = [], []
        for name in people:
            stored[name] = _attributes(name, rng)
            facts += [
                Fact(text=t, text_norm=normalize(t), subject=entities[name]) for t in stored[name]
            ]
        for fact in Fact.objects.bulk_create(facts, batch_size=1000):
            links.append(EntityFact(entity_id=fact.subject_id, fact=fact, role="subject"))
        EntityFact.objects.bulk_create(links, batch_size=1000)
    vector_rebuild("facts")
    if connection.vendor == "postgresql":
        # Fresh statistics, as autovacuum keeps them in production: right after a bulk
        # load the planner believes the tables are empty and picks nested scans.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return people, stored, entities, time.perf_counter() - seed_start


def _store_all(plan, entities) -> tuple[list[float], list[int], int, int]:
    """Synchronous part of fact_store, the check enqueued on the ORM broker."""
    from django_q.conf import Conf
    from django_q.models import OrmQ

    from entities import services as entity_services

    store_ms: list[float] = []
    created: list[int] = []
    confirmed = 0
    Conf.SYNC = False
    try:
        for name, text in plan:
            t0 = time.perf_counter()
            result = entity_services.fact_store(text=text, subject=entities[name])
            store_ms.append((time.perf_counter() - t0) * 1000)
            if result.action == "created":
                created.append(result.fact.pk)
            else:
                confirmed += 1
    finally:
        Conf.SYNC = True
    queued = OrmQ.objects.count()
    OrmQ.objects.all().delete()
    return store_ms, created, confirmed, queued


def _check_all(created: list[int]) -> tuple[list[float], int, float]:
    """The background check as a service call."""
    from integrity import services

    check_ms: list[float] = []
    candidates = 0
    t_all = time.perf_counter()
    for fact_id in created:
        t0 = time.perf_counter()
        result = services.fact_check(fact_id=fact_id)
        check_ms.append((time.perf_counter() - t0) * 1000)
        candidates += result.checked
    return check_ms, candidates, time.perf_counter() - t_all


def _queue_all(created: list[int]) -> float:
    """The same checks through django-q2 (sync mode: task packing, result row)."""
    from django_q.tasks import async_task

    from integrity.tasks import INTEGRITY_GROUP, fact_check_task

    t_all = time.perf_counter()
    for fact_id in created:
        async_task(fact_check_task, fact_id, group=INTEGRITY_GROUP)
    return time.perf_counter() - t_all


def _store_bare(people, stored, entities, sorts, n_new, rng) -> list[float]:
    """fact_store with its on-commit hooks switched off: what enqueueing costs."""
    from entities import hooks
    from entities import services as entity_services

    bare_ms: list[float] = []
    with hooks.suspended():
        for i, name in enumerate(rng.sample(people, n_new)):
            text = _new_fact(name, stored[name], sorts[i % 3], rng)
            t0 = time.perf_counter()
            entity_services.fact_store(text=text, subject=entities[name])
            bare_ms.append((time.perf_counter() - t0) * 1000)
    return bare_ms


def _row(metric: str, value, unit: str = "", goal: str = "") -> dict:
    return {"benchmark": "integrity", "metric": metric, "value": value, "unit": unit, "goal": goal}


def run(quick: bool = False) -> list[dict]:
    os.environ.setdefault("KGSITE_EMBEDDER", "kgsite.vectors.embedder.HashingEmbedder")
    setup("integrity")

    from django.conf import settings

    from entities.models import Fact
    from integrity import services
    from integrity.models import Contradiction
    from notifications.models import Notification

    rng = random.Random(SEED)
    n_new = 60 if quick else 300
    people, stored, entities, seed_s = _seed(400 if quick else 2000, rng)
    n_stored = Fact.objects.count()
    index_used = bool(services.similar(stored[people[0]][0], k=3, min_score=0.0))

    sorts = ("conflict", "duplicate", "novel")
    plan = []
    for i, name in enumerate(rng.sample(people, n_new)):
        plan.append((name, _new_fact(name, stored[name], sorts[i % 3], rng)))

    store_ms, created, confirmed, queued = _store_all(plan, entities)
    check_ms, candidates, check_s = _check_all(created)
    found = Contradiction.objects.count()
    high = Notification.objects.filter(type="contradiction", urgency="high").count()
    Contradiction.objects.all().delete()
    Notification.objects.all().delete()
    task_s = _queue_all(created)
    found_again = Contradiction.objects.count()
    bare_ms = _store_bare(people, stored, entities, sorts, n_new, rng)

    n = len(created)
    store_p = percentiles(store_ms)
    check_p = percentiles(check_ms)
    bare_p = percentiles(bare_ms)
    return [
        _row("stored facts", n_stored, "facts"),
        _row("embedder", settings.KGSITE_EMBEDDER.rsplit(".", 1)[-1]),
        _row("vector index", "used" if index_used else "absent (entity links only)"),
        _row("seeding (bulk insert + index rebuild)", round(seed_s, 1), "s"),
        _row("fact_store sync part p50", round(store_p["p50"], 2), "ms"),
        _row("fact_store sync part p95", round(store_p["p95"], 2), "ms"),
        _row("fact_store without on-commit hooks p50", round(bare_p["p50"], 2), "ms"),
        _row("fact_store without on-commit hooks p95", round(bare_p["p95"], 2), "ms"),
        _row("new facts created / confirmed", f"{n} / {confirmed}"),
        _row("checks enqueued", queued, "tasks"),
        _row("fact_check p50", round(check_p["p50"], 2), "ms"),
        _row("fact_check p95", round(check_p["p95"], 2), "ms"),
        _row("pairs classified per check", round(candidates / n, 1) if n else 0, "pairs"),
        _row("fact_check throughput", round(n / check_s, 1) if check_s else 0, "checks/s"),
        _row("django-q task throughput (sync)", round(n / task_s, 1) if task_s else 0, "checks/s"),
        _row("contradictions found (HIGH)", f"{found} ({high})"),
        _row("contradictions found via django-q", found_again),
    ]
