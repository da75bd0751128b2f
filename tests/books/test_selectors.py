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
