"""Entity merges, books' part: moving mentions to the survivor and back (a merge mover)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from kgsite.errors import Wording

from ..models import Book, Chunk, Mention

# --- entity merges: books' part (registered in BooksConfig.ready() as a merge mover) -----

_MENTION_FIELDS = (
    "id",
    "entity_id",
    "book_id",
    "chunk_id",
    "mention_type",
    "surface",
    "start",
    "end",
    "count",
    "context",
)


def _mentions_set(values: list[tuple[int, str, int]]) -> None:
    """Set (mention_type, count) per row with one UPDATE per distinct pair: a CASE per
    row (``bulk_update``) takes seconds on thousands of rows."""
    groups: dict[tuple[str, int], list[int]] = {}
    for pk, kind, count in values:
        groups.setdefault((kind, count), []).append(pk)
    for (kind, count), pks in groups.items():
        for start in range(0, len(pks), 500):
            Mention.objects.filter(pk__in=pks[start : start + 500]).update(
                mention_type=kind, count=count
            )


def mentions_count(entity_ids: list[str]) -> int:
    """How many mentions a merge of these duplicates would move (the preview)."""
    return Mention.objects.filter(entity_id__in=entity_ids).count()


def mentions_merge(survivor_id: str, duplicate_ids: list[str]) -> dict:
    """Point the duplicates' mentions at the survivor, inside the merge's transaction.

    A chunk holds one mention per entity: where it already mentions the survivor (or an
    earlier duplicate), that row absorbs the other one (counts add up, "defines" wins)
    and the absorbed row is kept whole in the payload, so undo can recreate it.
    """
    order = {pk: i for i, pk in enumerate(duplicate_ids)}
    rows = list(Mention.objects.filter(entity_id__in=duplicate_ids).values(*_MENTION_FIELDS))
    rows.sort(key=lambda r: (order[r["entity_id"]], r["id"]))
    kept: dict[int, dict] = {}
    chunk_ids = sorted({r["chunk_id"] for r in rows})
    for start in range(0, len(chunk_ids), 500):
        for row in Mention.objects.filter(
            entity_id=survivor_id, chunk_id__in=chunk_ids[start : start + 500]
        ).values("id", "chunk_id", "mention_type", "count"):
            kept[row["chunk_id"]] = row
    moved, absorbed, before = [], [], {}
    for row in rows:
        target = kept.get(row["chunk_id"])
        if target is None:
            kept[row["chunk_id"]] = dict(row)
            moved.append([row["id"], row["entity_id"], row["book_id"]])
            continue
        absorbed.append(row)
        before.setdefault(target["id"], [target["mention_type"], target["count"]])
        target["count"] += row["count"]
        if row["mention_type"] == Mention.Type.DEFINES:
            target["mention_type"] = Mention.Type.DEFINES
    absorbed_ids = [r["id"] for r in absorbed]
    for start in range(0, len(absorbed_ids), 500):
        Mention.objects.filter(pk__in=absorbed_ids[start : start + 500]).delete()
    _mentions_set(
        [
            (row["id"], row["mention_type"], row["count"])
            for row in kept.values()
            if row["id"] in before
        ]
    )
    moved_ids = [pk for pk, _e, _b in moved]
    for start in range(0, len(moved_ids), 500):
        Mention.objects.filter(pk__in=moved_ids[start : start + 500]).update(entity_id=survivor_id)
    return {"moved": moved, "absorbed": absorbed, "changed": [[k, *v] for k, v in before.items()]}


def mentions_merge_problems(survivor_id: str, duplicate_ids: list[str], payload: dict) -> list[str]:
    """Books changed since the merge (re-ingested or deleted): their mentions cannot
    be put back as they were."""
    expected = {pk: book_id for pk, _e, book_id in payload["moved"]}
    expected.update({pk: None for pk, _m, _c in payload["changed"]})
    present: set[int] = set()
    ids = sorted(expected)
    for start in range(0, len(ids), 500):
        present |= set(
            Mention.objects.filter(
                pk__in=ids[start : start + 500], entity_id=survivor_id
            ).values_list("pk", flat=True)
        )
    chunks = sorted({row["chunk_id"] for row in payload["absorbed"]})
    chunks_there: set[int] = set()
    for start in range(0, len(chunks), 500):
        chunks_there |= set(
            Chunk.objects.filter(pk__in=chunks[start : start + 500]).values_list("pk", flat=True)
        )
    books = {b for pk, b in expected.items() if pk not in present and b is not None}
    books |= {r["book_id"] for r in payload["absorbed"] if r["chunk_id"] not in chunks_there}
    missing = len(ids) - len(present)
    if not missing and not books and len(chunks_there) == len(chunks):
        return []
    titles = sorted(Book.objects.filter(pk__in=books).values_list("title", flat=True))
    named = (
        ", ".join(f"'{t}'" for t in titles) if titles else Wording(gettext_noop("a deleted book"))
    )
    return [
        Wording(
            gettext_noop(
                "mentions in %(books)s changed since the merge (book re-ingested or deleted)"
            ),
            {"books": named},
        )
    ]


def mentions_merge_undo(survivor_id: str, duplicate_ids: list[str], payload: dict) -> None:
    """Put the mentions back as ``mentions_merge`` found them (same ids)."""
    _mentions_set([(pk, kind, count) for pk, kind, count in payload["changed"]])
    by_entity: dict[str, list[int]] = {}
    for pk, entity_id, _book_id in payload["moved"]:
        by_entity.setdefault(entity_id, []).append(pk)
    for entity_id, pks in by_entity.items():
        for start in range(0, len(pks), 500):
            Mention.objects.filter(pk__in=pks[start : start + 500]).update(entity_id=entity_id)
    Mention.objects.bulk_create([Mention(**row) for row in payload["absorbed"]], batch_size=1000)
