"""Reads over the mention index: the defines evaluation is exact about where."""

from __future__ import annotations

import pytest

from books.models import Book, Chunk, Mention
from books.selectors import defines_evaluate
from entities.services import entity_store


@pytest.fixture
def shelf(db):
    """Books, chunks and defines marks written directly: the evaluation only reads."""
    books: dict[str, Book] = {}

    def mark(source: str, path: list[str], name: str, type_: str, kind: str = "defines"):
        book = books.get(source)
        if book is None:
            book = books[source] = Book.objects.create(
                title=source, title_norm=source, source_name=source, format="markdown"
            )
        chunk = Chunk.objects.create(
            book=book, ordinal=book.chunks.count(), heading_path=path, text=name, start=0, end=1
        )
        entity, _ = entity_store(name=name, type=type_)
        Mention.objects.create(
            entity=entity, book=book, chunk=chunk, mention_type=kind, start=0, end=1
        )

    return mark


def row(name: str, type_: str, file: str, heading: str) -> dict[str, str]:
    return {
        "entity_name": name,
        "entity_type": type_,
        "defining_file": file,
        "defining_heading": heading,
    }


def test_only_the_chunk_under_the_expected_heading_counts(shelf):
    # Marked in a sub-section of the item's own heading: not its defining chunk.
    shelf("m.md", ["Monsters", "Aboleth", "Legendary Actions"], "Aboleth", "monster")
    result = defines_evaluate(rows=[row("Aboleth", "monster", "m.md", "Aboleth")])
    assert (result.found, result.precise, result.claimed) == (0, 0, 1)
    assert "MISS 'Aboleth' (monster)" in result.misses[0]

    shelf("m.md", ["Monsters", "Monsters (A)", "Aboleth "], "Aboleth", "monster")
    result = defines_evaluate(rows=[row("Aboleth", "monster", "m.md", "ABOLETH")])
    assert result.found == 1  # case and spacing aside
    assert result.precise == 0  # still also marked under "Legendary Actions"
    assert "Legendary Actions" in result.extras[0]


def test_a_catalogue_section_accepts_its_sub_sections(shelf):
    # The armour table sits under "Armor > Heavy Armor"; the row names "Armor".
    shelf("e.md", ["Equipment", "Armor", "Heavy Armor"], "Leather", "equipment")
    result = defines_evaluate(rows=[row("Leather", "equipment", "e.md", "Armor")])
    assert (result.recall, result.precision) == (1.0, 1.0)
    # Another file with the same heading is not the defining file.
    other = defines_evaluate(rows=[row("Leather", "equipment", "x.md", "Armor")])
    assert other.recall == 0.0


def test_a_same_named_entity_of_another_type(shelf):
    shelf("e.md", ["Equipment", "Armor"], "Shield", "equipment")
    # A homonym in another file (the Shield spell) does not count against precision.
    shelf("s.md", ["Spells", "Shield"], "Shield", "spell")
    result = defines_evaluate(rows=[row("Shield", "equipment", "e.md", "Armor")])
    assert (result.recall, result.precision) == (1.0, 1.0)
    # In the defining file itself a second type is a mistyped duplicate: it does.
    shelf("e.md", ["Equipment", "Armor", "Light Armor"], "Shield", "other")
    result = defines_evaluate(rows=[row("Shield", "equipment", "e.md", "Armor")])
    assert (result.recall, result.precision) == (1.0, 0.0)
    assert "[other]" in result.extras[0]


def test_references_are_neither_found_nor_claimed(shelf):
    shelf("c.md", ["Conditions", "Blinded"], "Blinded", "condition", kind="references")
    result = defines_evaluate(rows=[row("Blinded", "condition", "c.md", "Blinded")])
    assert (result.found, result.claimed) == (0, 0)


# --- the three index queries ------------------------------------------------------------

MENTION_INDEXES = ("mention_entity_type_idx", "mention_entity_book_idx", "mention_book_entity_idx")


@pytest.fixture
def big_index(db):
    """40 books x 25 chunks x 10 mentions (10,000 rows over 300 entities), analysed, so
    a planner that can use an index prefers it to reading the whole table."""
    import random

    from django.db import connection

    from entities.models import Entity

    rng = random.Random(4)
    entities = Entity.objects.bulk_create(
        [
            Entity(canonical_name=f"Thing {i}", name_norm=f"thing {i}", type="other")
            for i in range(300)
        ]
    )
    books = Book.objects.bulk_create(
        [
            Book(title=f"B{i}", title_norm=f"b{i}", source_name=f"b{i}.md", format="markdown")
            for i in range(40)
        ]
    )
    chunks = Chunk.objects.bulk_create(
        [
            Chunk(book=b, ordinal=o, heading_path=["H"], text="t", start=o, end=o + 1)
            for b in books
            for o in range(25)
        ]
    )
    if any(c.pk is None for c in chunks):  # pragma: no cover - backends without RETURNING
        chunks = list(Chunk.objects.order_by("pk"))
    Mention.objects.bulk_create(
        [
            Mention(
                entity=e,
                book_id=c.book_id,
                chunk=c,
                mention_type="defines" if j == 0 else "references",
                start=c.start,
                end=c.end,
            )
            for c in chunks
            for j, e in enumerate(rng.sample(entities, 10))
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE" if connection.vendor == "sqlite" else "ANALYZE books_mention")
    return entities[7], books[3]


def run_once(call):
    """Run ``call`` and return its result and its one SQL statement (the test fails if
    it takes more than one query)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        result = call()
    assert len(captured.captured_queries) == 1, [q["sql"] for q in captured.captured_queries]
    return result, captured.captured_queries[0]["sql"]


def explain(sql: str) -> str:
    from django.db import connection

    prefix = "EXPLAIN QUERY PLAN " if connection.vendor == "sqlite" else "EXPLAIN "
    with connection.cursor() as cursor:
        cursor.execute(prefix + sql)
        return "\n".join(" ".join(map(str, row)) for row in cursor.fetchall())


def assert_indexed(sql: str) -> str:
    plan = explain(sql)
    assert any(name in plan for name in MENTION_INDEXES), plan
    assert "Seq Scan on books_mention" not in plan, plan  # PostgreSQL
    assert "SCAN books_mention" not in plan.replace("SEARCH books_mention", ""), plan  # SQLite
    return plan


def test_mentions_of_an_entity_is_one_indexed_query(big_index):
    from books.selectors import entity_mentions

    entity, _book = big_index
    mentions, sql = run_once(lambda: list(entity_mentions(entity=entity)))
    assert_indexed(sql)
    assert mentions and {m.entity_id for m in mentions} == {entity.pk}
    assert mentions[0].book.title and mentions[0].chunk.heading_path  # joined, not fetched


def test_mentions_in_a_book_is_one_indexed_query(big_index):
    from books.selectors import book_mentions

    _entity, book = big_index
    mentions, sql = run_once(lambda: list(book_mentions(book_id=book.pk)))
    assert "mention_book_entity_idx" in assert_indexed(sql)
    assert len(mentions) == 250 and {m.book_id for m in mentions} == {book.pk}


def test_books_mentioning_an_entity_is_one_indexed_query(big_index):
    from books.selectors import entity_books

    entity, _book = big_index
    books, sql = run_once(lambda: entity_books(entity=entity))
    assert_indexed(sql)
    expected = Mention.objects.filter(entity=entity).values("book_id").distinct().count()
    assert len(books) == expected
    assert sum(b.mentions for b in books) == Mention.objects.filter(entity=entity).count()
    # Defining books first, then by number of mentions.
    keys = [(-b.defines, -b.mentions) for b in books]
    assert keys == sorted(keys)
