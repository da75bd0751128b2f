"""Issue 3: entity detection speed (``entities.extraction``).

Builds the DB-backed gazetteer from 100,000 entities and 300,000 aliases (names from
``bench_lookup.generate``: accented people, organisations, places, technologies), then
matches a 1.5 MB text: English filler with planted mentions of canonical names and
aliases in varied case (upper, lower, NFD), as a book would contain. Reports build time
and memory, matching throughput (chars/s), whether every planted mention was found at
the right offsets, per-query latency on search-sized texts, the cost of the cache's
staleness check, and spaCy's throughput for unknown names through ``nlp.pipe``.
"""

from __future__ import annotations

import random
import sys
import time
import unicodedata

from benchmarks._django import database_vendor, percentiles, setup

SEED = 20240603
BUILD_GOAL_S = 10.0
THROUGHPUT_GOAL = 1_000_000  # chars/s: a 1.5 MB book in under two seconds
QUERY_GOAL_MS = 1.0

FILLER = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "was",
    "he",
    "that",
    "it",
    "his",
    "with",
    "as",
    "had",
    "for",
    "on",
    "at",
    "by",
    "not",
    "be",
    "from",
    "but",
    "which",
    "they",
    "this",
    "were",
    "all",
    "when",
    "there",
    "one",
    "she",
    "her",
    "into",
    "said",
    "so",
    "what",
    "more",
    "would",
    "could",
    "about",
    "over",
    "then",
    "them",
    "some",
    "only",
    "time",
    "after",
    "before",
    "little",
    "great",
    "upon",
    "down",
    "again",
    "through",
    "house",
    "people",
    "night",
    "never",
    "should",
    "while",
    "being",
    "between",
    "under",
    "against",
    "morning",
    "letter",
    "journey",
    "river",
    "mountain",
    "window",
    "garden",
    "evening",
    "question",
    "answer",
    "tests",
    "types",
    "trust",
    "rusty",
    "lang",
    "script",
    "node",
    "python",
    "java",
    "engine",
    "graph",
    "data",
    "system",
]


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
    except OSError:  # not Linux
        return float("nan")
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def _seed(rows: list[tuple[str, str, list[str]]]) -> float:
    from django.db import transaction

    from entities.models import Alias, Entity
    from kgsite.text import normalize

    start = time.perf_counter()
    entities = [
        Entity(canonical_name=name, name_norm=normalize(name), type=type_)
        for type_, name, _ in rows
    ]
    with transaction.atomic():
        Entity.objects.bulk_create(entities, batch_size=5000)
        Alias.objects.bulk_create(
            (
                Alias(entity=e, alias=a, alias_norm=normalize(a), type=e.type, manual=False)
                for e, (_, _, aliases) in zip(entities, rows, strict=True)
                for a in aliases
            ),
            batch_size=5000,
        )
    return time.perf_counter() - start


_VARIANTS = (
    lambda s: s,
    str.upper,
    str.lower,
    lambda s: unicodedata.normalize("NFD", s),
)


def make_text(
    rows: list[tuple[str, str, list[str]]], size: int, rng: random.Random
) -> tuple[str, list[tuple[int, int, str]]]:
    """Filler text with ~1 planted mention per 15 words; returns (text, [(start, end, name)])."""
    from kgsite.text import normalize

    parts: list[str] = []
    planted: list[tuple[int, int, str]] = []
    pos = 0
    while pos < size:
        sentence = " ".join(rng.choice(FILLER) for _ in range(rng.randint(6, 14)))
        if rng.random() < 0.8:
            _type, canonical, aliases = rng.choice(rows)
            surface = rng.choice([canonical, *aliases])
            variant = rng.choice(_VARIANTS)(surface)
            if normalize(variant) == normalize(surface):  # upper("ı") is "I": not the name
                surface = variant
            head = f"{sentence.capitalize()} "
            start = pos + len(head)
            planted.append((start, start + len(surface), canonical))
            sentence = f"{head}{surface} {rng.choice(FILLER)}"
        else:
            sentence = sentence.capitalize()
        piece = sentence + rng.choice([". ", ".\n", ".\n\n", "; "])
        parts.append(piece)
        pos += len(piece)
    return "".join(parts), planted


def _row(metric: str, value: object, unit: str, goal: str = "", ok: bool | None = None) -> dict:
    row = {"benchmark": "extraction", "metric": metric, "value": value, "unit": unit}
    return {**row, "goal": goal, **({} if ok is None else {"ok": ok})}


def _query_latency(gaz, rows_data, rng: random.Random) -> dict[str, float]:
    """Percentiles of one short agent question through the gazetteer."""
    queries = []
    for _ in range(2000):
        _type, canonical, aliases = rng.choice(rows_data)
        filler = " ".join(rng.choice(FILLER) for _ in range(8))
        queries.append(f"what did {rng.choice([canonical, *aliases])} say about {filler}?")
    samples = []
    for q in queries:
        t0 = time.perf_counter()
        gaz.find(q)
        samples.append((time.perf_counter() - t0) * 1000)
    return percentiles(samples)


def _matching(gaz, text: str, planted) -> tuple[list, float, float, int, float]:
    """Mentions in the big text, throughput, planted recall, bad offsets, ASCII speed."""
    gaz.find(text[:10_000])  # warm up
    t0 = time.perf_counter()
    found = gaz.find(text)
    throughput = len(text) / (time.perf_counter() - t0)
    # A planted mention counts if a hit starts where it starts and ends at or after its
    # end: a longer name running into the next word legitimately wins.
    ends = {d.start: d.end for d in found}
    recall = sum(ends.get(s, -1) >= e for s, e, _n in planted) / max(len(planted), 1)
    wrong_offsets = sum(
        1 for d in found if text[d.start : d.end] != d.surface_form or not d.surface_form
    )
    ascii_text = text.encode("ascii", "ignore").decode()
    t0 = time.perf_counter()
    gaz.find(ascii_text)
    ascii_throughput = len(ascii_text) / (time.perf_counter() - t0)
    return found, throughput, recall, wrong_offsets, ascii_throughput


def _staleness_checks() -> tuple[list[float], list[float]]:
    from entities.extraction.gazetteer import _fingerprint, gazetteer_get

    gazetteer_get()  # builds the cached one
    cheap_ms, full_ms = [], []
    for _ in range(20):
        t0 = time.perf_counter()
        _fingerprint(full=False)
        cheap_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        _fingerprint(full=True)
        full_ms.append((time.perf_counter() - t0) * 1000)
    return cheap_ms, full_ms


def _spacy_pass(text: str) -> tuple[float, int]:
    """Seconds for spaCy's unknown-name pass over 2 kB chunks, and names it found."""
    from entities.extraction.gazetteer import extract_entities_batch, spacy_nlp

    chunks = [text[i : i + 2000] for i in range(0, len(text), 2000)]
    spacy_nlp()
    t0 = time.perf_counter()
    batch = extract_entities_batch(chunks, include_unknown=True)
    nlp_s = time.perf_counter() - t0
    return nlp_s, sum(1 for hits in batch for d in hits if d.canonical_id is None)


def run(quick: bool = False) -> list[dict]:
    setup("extraction")
    from benchmarks.bench_lookup import generate
    from entities.extraction.gazetteer import Gazetteer, _regexes

    n_entities = 10_000 if quick else 100_000
    text_size = 150_000 if quick else 1_500_000
    rng = random.Random(SEED)
    rows_data = generate(n_entities, rng)
    seed_s = _seed(rows_data)
    n_aliases = sum(len(a) for _, _, a in rows_data)
    print(f"  seeded {n_entities:,} entities in {seed_s:.1f} s", file=sys.stderr)
    _regexes()  # one-off Unicode scan, paid once per process; not part of a build

    rss0 = _rss_mb()
    t0 = time.perf_counter()
    gaz = Gazetteer.from_db()
    build_s = time.perf_counter() - t0
    rss1 = _rss_mb()

    text, planted = make_text(rows_data, text_size, rng)
    found, throughput, recall, wrong_offsets, ascii_throughput = _matching(gaz, text, planted)
    query = _query_latency(gaz, rows_data, rng)
    cheap_ms, full_ms = _staleness_checks()
    nlp_chars = 20_000 if quick else 100_000
    nlp_s, unknown = _spacy_pass(text[:nlp_chars])

    return [
        _row("database", database_vendor(), ""),
        _row("entities", n_entities, "rows"),
        _row("aliases", n_aliases, "rows"),
        _row("distinct names in gazetteer", len(gaz), "names"),
        _row(
            "build from DB",
            build_s,
            "s",
            f"< {BUILD_GOAL_S:g} s",
            build_s < BUILD_GOAL_S if not quick else None,
        ),
        _row("gazetteer memory (RSS growth)", rss1 - rss0, "MB"),
        _row("text size", len(text), "chars"),
        _row("mentions found", len(found), "mentions"),
        _row(
            "matching throughput (accented names, some NFD)",
            throughput,
            "chars/s",
            f">= {THROUGHPUT_GOAL:,}",
            throughput >= THROUGHPUT_GOAL,
        ),
        _row("matching throughput (ASCII-only text)", ascii_throughput, "chars/s"),
        _row(
            "planted mentions found (or a longer name there)", recall, "share", "1.0", recall == 1.0
        ),
        _row(
            "hits whose offsets do not give their surface",
            wrong_offsets,
            "hits",
            "0",
            not wrong_offsets,
        ),
        _row("query-sized text p50", query["p50"], "ms"),
        _row(
            "query-sized text p99",
            query["p99"],
            "ms",
            f"< {QUERY_GOAL_MS:g} ms",
            query["p99"] < QUERY_GOAL_MS,
        ),
        _row("staleness check p50 (every 5 s)", percentiles(cheap_ms)["p50"], "ms"),
        _row("full staleness check p50 (every 60 s)", percentiles(full_ms)["p50"], "ms"),
        _row("spaCy unknown-name pass (nlp.pipe, 2 kB chunks)", nlp_chars / nlp_s, "chars/s"),
        _row("unknown names found by spaCy", unknown, "mentions"),
    ]
