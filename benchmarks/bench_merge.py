"""Issue 11: merging two entities with 1,000 facts and 5,000 book mentions each, its
undo, and the duplicate scan at 100,000 entities.

The two entities share a fifth of their facts (links that collapse into one, with the
stronger role kept) and half of their chunks (mentions that collapse into one); each
has aliases. ``entity_merge`` and ``entity_merge_undo`` are timed as a caller sees them,
commit included. The fact-saved hooks are switched off while timing: in production
they queue one integrity re-check per relinked fact for the worker, but the benchmark
settings run queued jobs inline, which would time the integrity checks instead.
After the undo, every row of the two entities is compared with the state before.

The duplicate scan loads every name, blocks by word and word prefix and scores each
block with rapidfuzz; names are made of generated syllables (about 27,000 distinct
words), so blocks are small as with real names. Embedding neighbours are only looked
up for a focused scan (or a graph under ``EMBED_FULL_LIMIT`` entities).
"""

from __future__ import annotations

import os
import random
import time

from benchmarks._django import setup

SEED = 20261123
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ra",
    "su",
    "to",
    "vi",
    "be",
    "da",
    "fe",
    "go",
    "hu",
    "ji",
    "ku",
    "la",
    "mo",
    "ni",
    "po",
    "qu",
    "re",
    "si",
    "tu",
    "va",
    "we",
    "xi",
    "ya",
    "zo",
    "ar",
    "en",
]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(3)).capitalize()


def _graph(n_facts: int, n_mentions: int):
    """Survivor and duplicate with their facts, aliases and mentions, bulk-loaded."""
    from django.db import transaction

    from books.models import Book, Chunk, Mention
    from entities.models import Alias, Entity, EntityFact, Fact
    from kgsite.text import normalize

    with transaction.atomic():
        a = Entity.objects.create(
            canonical_name="Ilse Brandvik", name_norm="ilse brandvik", type="person"
        )
        b = Entity.objects.create(
            canonical_name="I. Brandvik", name_norm="i. brandvik", type="person"
        )
        Alias.objects.bulk_create(
            [
                Alias(entity=a, alias=f"Brandvik A{i}", alias_norm=f"brandvik a{i}", type="person")
                for i in range(5)
            ]
            + [
                Alias(entity=b, alias=f"Brandvik B{i}", alias_norm=f"brandvik b{i}", type="person")
                for i in range(5)
            ]
        )
        shared = n_facts // 5
        texts = [f"Brandvik note {i}." for i in range(2 * n_facts - shared)]
        facts = Fact.objects.bulk_create(
            [Fact(text=t, text_norm=normalize(t)) for t in texts], batch_size=1000
        )
        links = []
        for i, fact in enumerate(facts):
            if i < n_facts:
                links.append(
                    EntityFact(entity=a, fact=fact, role="subject" if i % 2 else "mention")
                )
            if i >= n_facts - shared:
                links.append(EntityFact(entity=b, fact=fact, role="subject" if i % 3 else "object"))
        EntityFact.objects.bulk_create(links, batch_size=1000)
        Fact.objects.filter(pk__in=[f.pk for f in facts[n_facts:]]).update(subject=b)
        book = Book.objects.create(
            title="Brandvik papers", title_norm="brandvik papers", format="text"
        )
        n_chunks = n_mentions + n_mentions // 2
        chunks = Chunk.objects.bulk_create(
            [Chunk(book=book, ordinal=i, text="x", start=i, end=i + 1) for i in range(n_chunks)],
            batch_size=1000,
        )
        mentions = [
            Mention(entity=a, book=book, chunk=c, mention_type="references", start=0, end=1)
            for c in chunks[:n_mentions]
        ] + [
            Mention(entity=b, book=book, chunk=c, mention_type="references", start=0, end=1)
            for c in chunks[n_chunks - n_mentions :]
        ]
        Mention.objects.bulk_create(mentions, batch_size=2000)
    return a, b


def _state(ids: list[str]) -> dict:
    from books.models import Mention
    from entities.models import Alias, Entity, EntityFact, Fact

    return {
        "entities": sorted(Entity.objects.filter(pk__in=ids).values_list()),
        "aliases": sorted(Alias.objects.filter(entity_id__in=ids).values_list()),
        "links": sorted(EntityFact.objects.filter(entity_id__in=ids).values_list()),
        "subjects": sorted(Fact.objects.filter(subject_id__in=ids).values_list("pk", "subject_id")),
        "mentions": sorted(Mention.objects.filter(entity_id__in=ids).values_list()),
    }


def _merge_rows(quick: bool) -> list[dict]:
    from entities import hooks
    from entities.services import entity_merge, entity_merge_undo

    n_facts, n_mentions = (200, 1000) if quick else (1000, 5000)
    a, b = _graph(n_facts, n_mentions)
    before = _state([a.pk, b.pk])
    with hooks.suspended():
        start = time.perf_counter()
        plan = entity_merge(survivor=a, duplicates=[b], actor=None, preview=True).plan
        preview_s = time.perf_counter() - start
        start = time.perf_counter()
        merge = entity_merge(survivor=a, duplicates=[b], actor=None).merge
        merge_s = time.perf_counter() - start
        start = time.perf_counter()
        entity_merge_undo(merge=merge, actor=None)
        undo_s = time.perf_counter() - start
    exact = _state([a.pk, b.pk]) == before
    size = f"{n_facts:,} facts + {n_mentions:,} mentions each"
    return [
        {
            "metric": f"merge preview ({size})",
            "value": preview_s,
            "unit": "s",
            "goal": "",
            "note": f"moves {plan.moves}",
        },
        {
            "metric": f"merge ({size})",
            "value": merge_s,
            "unit": "s",
            "goal": "< 10 s",
            "ok": merge_s < 10,
        },
        {
            "metric": "undo of that merge",
            "value": undo_s,
            "unit": "s",
            "goal": "< 10 s",
            "ok": undo_s < 10,
        },
        {
            "metric": "undo restored every row exactly",
            "value": exact,
            "unit": "",
            "goal": "True",
            "ok": exact,
        },
    ]


def _scan_rows(quick: bool) -> list[dict]:
    from django.db import transaction

    from entities.duplicates import duplicate_candidates
    from entities.models import Entity
    from kgsite.text import normalize

    n = 10_000 if quick else 100_000
    rng = random.Random(SEED)
    seen: set[str] = set()
    rows = []
    while len(rows) < n:
        name = f"{_word(rng)} {_word(rng)}"
        norm = normalize(name)
        if norm in seen:
            continue
        seen.add(norm)
        rows.append(
            Entity(canonical_name=name, name_norm=norm, type=rng.choice(["person", "place"]))
        )
    with transaction.atomic():
        Entity.objects.bulk_create(rows, batch_size=2000)
    start = time.perf_counter()
    found = duplicate_candidates()
    scan_s = time.perf_counter() - start
    pairs = len(found.evidence)
    return [
        {
            "metric": f"duplicate scan of {n:,} entities (names)",
            "value": scan_s,
            "unit": "s",
            "goal": "< 120 s",
            "ok": scan_s < 120,
            "note": f"{pairs:,} candidate pairs",
        },
    ]


def run(quick: bool = False) -> list[dict]:
    os.environ.setdefault("KGSITE_EMBEDDER", "kgsite.vectors.embedder.HashingEmbedder")
    setup("merge")
    rows = _merge_rows(quick) + _scan_rows(quick)
    return [{"benchmark": "merge", **row} for row in rows]
