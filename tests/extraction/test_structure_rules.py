"""The small rules of ``books.extraction.structure`` a reader meets in any reference
book: a heading's numbering and letter range do not hide its kind, plural topics are
not items, two spellings of one name are one claim, and on any text the structural
definitions point inside their chunk at the name they report."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from books.chunking import chunk_sections
from books.extraction.structure import (
    DefinedEntity,
    block_type,
    chapter_type,
    defined_entities,
    heading_key,
    is_item_name,
    name_key,
    resolve_definitions,
)
from books.parsing import parse_document


@pytest.mark.parametrize(
    ("heading", "key"),
    [
        ("Appendix QX-B: Creatures (D-F)", "creatures"),
        ("Chapter 7. Magic Items", "magic items"),
        ("Spells (M)", "spells"),
        ("Lanterns of the North", "lanterns of the north"),
    ],
)
def test_heading_key_drops_numbering_and_letter_ranges(heading, key):
    assert heading_key(heading) == key


def test_a_typed_chapter_is_found_through_its_prefix_and_suffix():
    assert chapter_type(("Book 2: Creatures (A-C)", "Marsh Glider")) == "monster"
    assert chapter_type(("Lanterns", "Marsh Glider")) is None


@pytest.mark.parametrize(
    ("name", "item"),
    [
        ("Marsh Glider", True),
        ("Glass Abacus", True),  # ends in "s" but is singular
        ("Hit Points", False),
        ("Lantern Features", False),
        ("Spells", False),  # a chapter keyword, never one item
        ("", False),
        ("x" * 81, False),
    ],
)
def test_is_item_name_tells_single_items_from_topics(name, item):
    assert is_item_name(name) is item


def test_block_markers_announce_the_type_of_the_item_below():
    assert block_type("*3rd-level conjuration*\nYou call a fog.") == "spell"
    assert block_type("\n*Wondrous item, very rare*\nThis cloak hums.") == "magic_item"
    stat = "*Large beast, unaligned*\n\n**Armor Class** 12\n**Hit Points** 30"
    assert block_type(stat) == "monster"
    assert block_type("*Large beast, unaligned*\nIt roams the marsh.") is None
    assert block_type("A plain paragraph about lanterns.") is None


def test_two_spellings_of_one_name_are_one_key():
    assert name_key("Marsh  Glider’s Call") == name_key("marsh glider's call")


def test_the_strongest_claim_wins_then_the_earliest():
    heading = DefinedEntity("Marsh Glider", "monster", 0, 12, "heading")
    block = DefinedEntity("Marsh Glider", "monster", 0, 12, "block")
    sentence = DefinedEntity("marsh glider", "monster", 5, 17, "sentence")
    kept = resolve_definitions([[sentence], [heading], [block], [heading]])
    assert kept == [[], [], [block], []]
    other_type = DefinedEntity("Marsh Glider", "other", 0, 12, "entry")
    assert resolve_definitions([[heading], [other_type]]) == [[heading], [other_type]]


# --- on any text -----------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "# Spells\n",
        "## Marsh Glider\n",
        "*2nd-level evocation*\n",
        "# Armor\n",
        "| Name | Cost |\n|---|---|\n| Glass Plate | 5 gp |\n",
        "**Fogwalk.** A lantern walks.\n",
        "Lanterns are lamps.\n",
        "- **Hollow**: an empty thing.\n",
        "\n",
        "Some prose about nothing much at all.\n",
    ]
)
_DOCUMENT = st.lists(_PIECES | st.text(max_size=30), min_size=1, max_size=14).map("".join)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_DOCUMENT)
def test_structural_definitions_point_inside_their_chunk(text):
    if not text.strip():
        return
    try:
        document = parse_document(text.encode(), fmt="markdown")
    except Exception as exc:  # noqa: BLE001 - only the refusal of empty text is allowed
        assert type(exc).__name__ == "InvalidInput"
        return
    for chunk in chunk_sections(document.sections, max_chars=400):
        for entity in defined_entities(chunk, document_text=document.text):
            assert 0 <= entity.start <= entity.end <= len(chunk.text)
            assert entity.name and entity.type
