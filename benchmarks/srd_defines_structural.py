"""Structural "defines" heuristics against srd_defines_dev.tsv, offline and without Django.

    python benchmarks/srd_defines_structural.py /work/shared/corpus/srd \
        /work/shared/eval/srd_defines_dev.tsv [--max-chars 1500]

Every chapter file is parsed and chunked as the ingest will do, ``defined_entities``
runs on every chunk and ``resolve_definitions`` keeps one defining chunk per
(name, type) across the whole SRD. For each dev row:

* recall: a chunk of ``defining_file`` that lies under ``defining_heading`` (the
  heading ends its path, or is an ancestor of it: tables often sit in a sub-section)
  defines ``entity_name`` (case-insensitive, aliases included); "exact" is the rule of
  ``eval_defines``: the chunk's own heading is ``defining_heading``, or a sub-section
  of it when that heading is a catalogue section rather than the entity's own name;
* precision: no other chunk of the SRD defines that name with the row's type
  ("name-only" also counts claims of any type, e.g. the Elephant mount vs the
  Elephant creature).

Prints a table and exits 0.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from books.chunking import ChunkDraft, chunk_sections  # noqa: E402
from books.extraction.structure import (  # noqa: E402
    DefinedEntity,
    defined_entities,
    name_key,
    resolve_definitions,
)
from books.parsing import detect_format, parse_document  # noqa: E402

Claim = tuple[str, ChunkDraft, DefinedEntity]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("srd_dir", type=Path)
    parser.add_argument("dev_tsv", type=Path)
    parser.add_argument("--max-chars", type=int, default=1500)
    parser.add_argument("--show-all", action="store_true", help="list every definition")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    chunks: list[tuple[str, ChunkDraft]] = []
    texts: dict[str, str] = {}
    for path in sorted(args.srd_dir.glob("*.md")):
        document = parse_document(path.read_bytes(), fmt=detect_format(path.name))
        texts[path.name] = document.text
        drafts = chunk_sections(document.sections, max_chars=args.max_chars)
        chunks.extend((path.name, chunk) for chunk in drafts)
    parsed = time.perf_counter()
    per_chunk = [
        defined_entities(chunk, document_text=texts[filename]) for filename, chunk in chunks
    ]
    raw_claims = sum(len(e) for e in per_chunk)
    per_chunk = resolve_definitions(per_chunk)
    finished = time.perf_counter()

    by_name: dict[str, list[Claim]] = defaultdict(list)
    for (filename, chunk), entities in zip(chunks, per_chunk, strict=True):
        for entity in entities:
            for label in {name_key(entity.name), *map(name_key, entity.aliases)}:
                by_name[label].append((filename, chunk, entity))

    rows = list(csv.DictReader(args.dev_tsv.open(encoding="utf-8"), delimiter="\t"))
    hits = strict_hits = 0
    claimed = precise = claimed_any = precise_any = 0
    misses: list[str] = []
    wrong: list[str] = []
    homonyms: list[str] = []
    for row in rows:
        name, type_ = row["entity_name"], row["entity_type"]
        heading = row["defining_heading"].casefold()
        claims = by_name.get(name_key(name), [])
        expected = [
            claim
            for claim in claims
            if claim[0] == row["defining_file"]
            and heading in (h.casefold() for h in claim[1].heading_path)
        ]
        if expected:
            hits += 1
            strict_hits += any(
                c[1].heading_path[-1].casefold() == heading
                or (heading != name.casefold() and heading in _lower(c[1].heading_path[:-1]))
                for c in expected
            )
        else:
            misses.append(
                f"  MISS {name!r} ({type_}) expected in {row['defining_file']} "
                f"under {row['defining_heading']!r}; claimed by {_where(claims) or 'nobody'}"
            )
        right_chunks = {(c[0], c[1].ordinal) for c in expected}
        typed = [c for c in claims if c[2].type == type_]
        if typed:
            claimed += 1
            if expected and {(c[0], c[1].ordinal) for c in typed} <= right_chunks:
                precise += 1
            else:
                others = [c for c in typed if (c[0], c[1].ordinal) not in right_chunks]
                wrong.append(f"  EXTRA {name!r} ({type_}) also defined by {_where(others)}")
        if claims:
            claimed_any += 1
            if bool(expected) and {(c[0], c[1].ordinal) for c in claims} <= right_chunks:
                precise_any += 1
            elif typed:
                others = [c for c in claims if c[2].type != type_]
                homonyms.append(f"  HOMONYM {name!r} ({type_}) also names {_where(others)}")

    total = len(rows)
    print(f"SRD structural defines ({len(chunks)} chunks, max_chars={args.max_chars})")
    print(f"{'metric':<34}{'value':>10}")
    print(f"{'dev rows':<34}{total:>10}")
    print(f"{'recall (under heading)':<34}{hits / total:>10.3f}")
    print(f"{'recall (exact, as eval_defines)':<34}{strict_hits / total:>10.3f}")
    print(f"{'precision (same type)':<34}{_ratio(precise, claimed):>10.3f}")
    print(f"{'precision (name only)':<34}{_ratio(precise_any, claimed_any):>10.3f}")
    print(f"{'definitions kept / claimed':<34}{sum(map(len, per_chunk)):>6}/{raw_claims}")
    print(f"{'parse+chunk seconds':<34}{parsed - started:>10.3f}")
    print(f"{'defined_entities seconds':<34}{finished - parsed:>10.3f}")
    types = Counter(e.type for entities in per_chunk for e in entities)
    print("definitions by type: " + ", ".join(f"{t}={n}" for t, n in types.most_common()))
    for line in misses + wrong + homonyms:
        print(line)
    if args.show_all:
        for (filename, chunk), entities in zip(chunks, per_chunk, strict=True):
            for e in entities:
                print(f"  {e.type:<11} {e.via:<9} {e.name!r:<40} {filename} {chunk.heading_path}")
    return 0


def _where(claims: list[Claim]) -> str:
    return "; ".join(
        f"{filename} {' > '.join(chunk.heading_path[-2:])} [{entity.type}/{entity.via}]"
        for filename, chunk, entity in claims
    )


def _lower(headings) -> list[str]:
    return [h.casefold() for h in headings]


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


if __name__ == "__main__":
    sys.exit(main())
