"""Issue 25: what one ``POST /api/v1/facts/`` costs inside the request.

Through DRF's ``APIClient`` as a curator, with the real encoder and the background jobs
queued (django-q2's ORM broker, as ``make run``; no worker runs here), so the figures are
the request's own: CPU time of the process per write (wall time beside it, for the load
of a shared machine), SQL statements per write, and the jobs a write leaves queued. The
facts index holds a few thousand facts first, so the near-duplicate search has
neighbours to read. Writes are new texts naming the benchmark's cast (a subject, the
entities named); a second set repeats stored texts (confirmations). Afterwards every
acknowledged fact is read back and no normalised text is stored twice.

``KGSITE_BENCH_PROFILE=1`` prints cProfile's view of 50 more writes (CPU time) to stderr
(``KGSITE_BENCH_PROFILE=PATH.prof`` also keeps the stats there); ``KGSITE_BENCH_SQL=1``
prints the statements of one write.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
import time

from benchmarks._django import bench_curator, database_vendor, percentiles, row_adder, setup
from benchmarks.fake_facts import cast, generate_facts

BENCH = "fact_write"


def _seed_cast() -> dict[str, str]:
    """The cast as entities (bulk, then the name index): normalised name -> id."""
    from entities.models import Entity
    from entities.name_index import name_index_rebuild
    from kgsite.text import normalize

    rows = [
        Entity(canonical_name=name, name_norm=normalize(name), type=entity_type)
        for entity_type, names in cast().items()
        for name in names
    ]
    Entity.objects.bulk_create(rows, batch_size=2000)
    name_index_rebuild()
    return {(e.name_norm, e.type): e.id for e in Entity.objects.all()}


def _seed_facts(facts: list, ids: dict) -> None:
    """Stored facts and their vectors, without the request path (a site in use)."""
    from entities.models import EntityFact, Fact
    from kgsite.text import normalize
    from kgsite.vectors.service import vector_rebuild

    rows, links = [], []
    for text, named in facts:
        entity_ids = [ids[(normalize(n), t)] for n, t in named if (normalize(n), t) in ids]
        fact = Fact(text=text, text_norm=normalize(text), source="bench")
        if entity_ids:
            fact.subject_id = entity_ids[0]
        rows.append(fact)
        links.append(entity_ids)
    Fact.objects.bulk_create(rows, batch_size=2000)
    EntityFact.objects.bulk_create(
        EntityFact(fact=f, entity_id=e, role="subject" if i == 0 else "mention")
        for f, entity_ids in zip(rows, links, strict=True)
        for i, e in enumerate(entity_ids)
    )
    vector_rebuild("facts")


def _payload(text: str, named: list, ids: dict) -> dict:
    from kgsite.text import normalize

    entity_ids = [ids[(normalize(n), t)] for n, t in named if (normalize(n), t) in ids]
    body: dict = {"text": text, "source": "bench"}
    if entity_ids:
        body["subject"] = entity_ids[0]
        body["entities"] = entity_ids[1:]
    return body


def _queued() -> int:
    from django_q.models import OrmQ

    return OrmQ.objects.count()


def _drain() -> dict[str, list[float]]:
    """Run the queued jobs here, oldest first, as a worker would: CPU ms per job, by the
    job's function (what each write costs the workers after its answer). The cluster's
    monitor then stores each result as it would (``MONITOR``: its CPU ms per job)."""
    import pydoc

    from django.utils import timezone
    from django_q.brokers import get_broker
    from django_q.models import OrmQ
    from django_q.monitor import save_task
    from django_q.signing import SignedPackage

    broker = get_broker()
    spent: dict[str, list[float]] = {}
    for row in OrmQ.objects.order_by("id"):
        task = SignedPackage.loads(row.payload)
        func = task["func"]
        if isinstance(func, str):
            func = pydoc.locate(func)
        name = f"{func.__module__}.{func.__qualname__}"
        c0 = time.process_time()
        result = func(*task.get("args", ()), **task.get("kwargs", {}))
        spent.setdefault(name, []).append((time.process_time() - c0) * 1000)
        row.delete()
        now = timezone.now()
        done = {**task, "result": result, "success": True, "started": now, "stopped": now}
        c0 = time.process_time()
        save_task({**done, "sync": True}, broker)  # sync: keep the benchmark's connection
        spent.setdefault(MONITOR, []).append((time.process_time() - c0) * 1000)
    return spent


MONITOR = "cluster monitor.store the job's result"


def _successes_stored(count: int = 250) -> None:
    """A site that has run a while holds django-q2's ``save_limit`` (250) stored
    successes, which the monitor re-reads to prune after each success it stores."""
    from django.utils import timezone
    from django_q.models import Success

    now = timezone.now()
    Success.objects.bulk_create(
        Success(id=f"{i:032x}", name=f"earlier-{i}", func="books.tasks.ingest", args=(i,),
                kwargs={}, result=None, started=now, stopped=now, success=True)
        for i in range(count)
    )  # fmt: skip


class Writer:
    """A curator's API client that remembers the facts it was told are stored."""

    def __init__(self, ids: dict) -> None:
        from rest_framework.test import APIClient

        self.client = APIClient()
        self.client.force_authenticate(bench_curator("bench-writer"))
        self.ids = ids
        self.acknowledged: set[int] = set()
        self.errors = 0

    def post(self, text: str, named: list) -> int:
        body = _payload(text, named, self.ids)
        response = self.client.post("/api/v1/facts/", body, format="json")
        if response.status_code not in (200, 201):
            self.errors += 1
        else:
            self.acknowledged.add(response.json()["fact"]["id"])
        return response.status_code


def _statements(writer: Writer, facts: list) -> tuple[list[int], int]:
    """Statements per new write, and per confirmation (the first text again)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for text, named in facts:
        with CaptureQueriesContext(connection) as ctx:
            writer.post(text, named)
        counts.append(len(ctx.captured_queries))
    if os.environ.get("KGSITE_BENCH_SQL"):
        print("  the statements of the last write:", file=sys.stderr)
        for query in ctx.captured_queries:
            print(f"    {query['sql'][:220]}", file=sys.stderr)
    with CaptureQueriesContext(connection) as ctx:
        writer.post(*facts[0])
    return counts, len(ctx.captured_queries)


def _profile(writer: Writer, facts: list) -> None:
    """cProfile's view (CPU clock) of these writes, then of the jobs they queued."""
    for what, work in (
        (f"{len(facts)} writes", lambda: [writer.post(text, named) for text, named in facts]),
        ("their background jobs", _drain),
    ):
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        work()
        profiler.disable()
        target = os.environ["KGSITE_BENCH_PROFILE"]
        if target.endswith(".prof"):
            profiler.dump_stats(
                target if what != "their background jobs" else target[:-5] + "-jobs.prof"
            )
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(60)
        print(f"  profile of {what} (CPU time):\n{out.getvalue()}", file=sys.stderr)


def _integrity(writer: Writer) -> tuple[int, int]:
    """(acknowledged facts not stored, normalised texts stored twice)."""
    from entities.models import Fact

    stored = set(Fact.objects.filter(pk__in=writer.acknowledged).values_list("pk", flat=True))
    norms = list(Fact.objects.values_list("text_norm", "scope", "kind"))
    return len(writer.acknowledged - stored), len(norms) - len(set(norms))


def _integrity_rows(row, writer: Writer) -> None:
    lost, duplicates = _integrity(writer)
    row("errors", writer.errors, "requests", "0", writer.errors == 0)
    row("lost writes (acknowledged, not stored)", lost, "facts", "0", lost == 0)
    row("duplicate texts stored", duplicates, "facts", "0", duplicates == 0)


def _background_rows(row, background: dict[str, list[float]], writes: int) -> None:
    row(
        "background CPU per write, jobs + monitor",
        sum(map(sum, background.values())) / writes,
        "ms",
    )
    for name, spent in sorted(background.items()):
        label = f"  {name.rsplit('.', 1)[-1]}: jobs, CPU mean"
        row(label, f"{len(spent)}, {sum(spent) / len(spent):.1f}", "ms")


def run(quick: bool = False) -> list[dict]:
    setup(BENCH)
    from django_q.conf import Conf

    # The request's own work: jobs are queued for a worker, not run inline.
    Conf.SYNC = False
    n_seed, n_timed, n_confirm = (2000, 100, 30) if quick else (5000, 300, 100)
    facts = generate_facts(n_seed + 40 + n_timed + 20 + 50)
    seed, warm = facts[:n_seed], facts[n_seed : n_seed + 40]
    timed = facts[n_seed + 40 : n_seed + 40 + n_timed]
    counted, profiled = facts[n_seed + 40 + n_timed :][:20], facts[-50:]

    ids = _seed_cast()
    t0 = time.perf_counter()
    _seed_facts(seed, ids)
    print(f"  seeded {n_seed:,} facts and their vectors in {time.perf_counter() - t0:.1f} s",
          file=sys.stderr)  # fmt: skip
    writer = Writer(ids)
    for text, named in warm:  # the encoder, the index and the pair model load here
        writer.post(text, named)
    _drain()  # the jobs' own models load here
    _successes_stored()

    cpu: list[float] = []
    wall: list[float] = []
    queued_before = _queued()
    for text, named in timed:
        w0, c0 = time.perf_counter(), time.process_time()
        writer.post(text, named)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    jobs = (_queued() - queued_before) / max(1, len(timed))
    background = _drain()
    confirm_cpu: list[float] = []
    for text, named in timed[:n_confirm]:
        c0 = time.process_time()
        writer.errors += writer.post(text, named) != 200
        confirm_cpu.append((time.process_time() - c0) * 1000)
    statements, confirm_statements = _statements(writer, counted)
    if os.environ.get("KGSITE_BENCH_PROFILE"):
        _profile(writer, profiled)

    rows: list[dict] = []
    row = row_adder(BENCH, rows)
    cpu_stats, wall_stats = percentiles(cpu), percentiles(wall)
    row("database", database_vendor(), "")
    row("stored facts before the timed writes (with vectors)", n_seed, "facts")
    row("timed writes (new texts)", len(timed), "requests")
    row("in-request CPU per write, mean", sum(cpu) / len(cpu), "ms")
    row("in-request CPU per write, p50", cpu_stats["p50"], "ms")
    row("in-request CPU per write, p99", cpu_stats["p99"], "ms")
    row("wall per write, p50", wall_stats["p50"], "ms")
    row("wall per write, p99", wall_stats["p99"], "ms")
    row("in-request CPU per confirmation, mean", sum(confirm_cpu) / len(confirm_cpu), "ms")
    row("SQL statements per write (new text), mean", sum(statements) / len(statements), "queries")
    row("SQL statements per confirmation", confirm_statements, "queries")
    row("background jobs queued per write", jobs, "jobs")
    _background_rows(row, background, len(timed))
    _integrity_rows(row, writer)
    row("load average (1 min) at the end", os.getloadavg()[0], "")
    return rows
