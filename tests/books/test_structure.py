"""Structural "defines" heuristics: which chunk defines which entity, and of what type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from books.chunking import ChunkDraft, chunk_sections
from books.extraction.structure import (
    ENTITY_TYPES,
    DefinedEntity,
    chapter_type,
    defined_entities,
    resolve_definitions,
    type_from_headings,
)
from books.parsing import detect_format, parse_document

DATA = Path(__file__).resolve().parent.parent / "data" / "books"


def chunk_file(name: str, max_chars: int = 1500) -> tuple[str, list[ChunkDraft]]:
    doc = parse_document((DATA / name).read_bytes(), fmt=detect_format(name))
    return doc.text, chunk_sections(doc.sections, max_chars=max_chars)


def definitions(name: str, max_chars: int = 1500) -> list[tuple[ChunkDraft, DefinedEntity]]:
    text, chunks = chunk_file(name, max_chars)
    return [(c, e) for c in chunks for e in defined_entities(c, document_text=text)]


def defined_names(name: str, **kwargs) -> dict[str, str]:
    return {e.name: e.type for _, e in definitions(name, **kwargs)}


def chunk_for(chunks: list[ChunkDraft], heading: str) -> ChunkDraft:
    return next(c for c in chunks if c.heading_path[-1] == heading)


def markdown_chunks(text: str, max_chars: int = 1500) -> list[ChunkDraft]:
    doc = parse_document(text.encode(), fmt="markdown")
    return chunk_sections(doc.sections, max_chars=max_chars)


# --- types from headings ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (("Spells", "Spells (A)", "Acid Arrow"), "spell"),
        (("Monsters", "Monsters (A)", "Angels", "Solar"), "monster"),
        (("Appendix MM-A: Miscellaneous Creatures", "Creatures (A-C)", "Ape"), "monster"),
        (("Appendix MM-B: Nonplayer Characters", "Assassin"), "monster"),
        (("Magic Items", "Magic Items (B)", "Bag of Holding"), "magic_item"),
        (("Appendix PH-A: Conditions", "Conditions", "Blinded"), "condition"),
        (("Classes", "Druid"), "class"),
        (("Classes", "Monk", "Monastic Traditions", "Way of the Open Hand"), "other"),
        (("Equipment", "Armor", "Heavy Armor"), "equipment"),
        (("Equipment", "Mounts and Vehicles"), "equipment"),
        (
            ("Appendix PH-B: Fantasy-Historical Pantheons", "Pantheons", "The Norse Pantheon"),
            "other",
        ),
        (("Gamemastering", "Traps", "Sample Traps", "Collapsing Roof"), "other"),
        (("Combat", "Cover"), "other"),
    ],
)
def test_type_from_headings(path, expected):
    assert type_from_headings(path) == expected
    assert expected in ENTITY_TYPES


def test_chapter_type_is_none_outside_typed_chapters():
    assert chapter_type(("Combat", "Cover")) is None
    assert chapter_type(("Spells", "Spells (A)", "Acid Arrow")) == "spell"
    assert type_from_headings(()) is None


# --- headings that define --------------------------------------------------------------


def test_spell_heading_with_spell_block_defines_the_spell():
    _, chunks = chunk_file("srd-spells-excerpt.md")
    chunk = chunk_for(chunks, "Acid Arrow")
    [entity] = defined_entities(chunk)
    assert (entity.name, entity.type, entity.via) == ("Acid Arrow", "spell", "block")
    assert chunk.text[entity.start : entity.end] == "Acid Arrow"
    names = defined_names("srd-spells-excerpt.md")
    assert len(names) == 40
    assert set(names.values()) == {"spell"}
    assert {"Blindness/Deafness", "Call Lightning", "Chill Touch"} <= set(names)


def test_monster_stat_blocks_define_monsters():
    names = defined_names("srd-monsters-excerpt.md")
    assert names["Aboleth"] == "monster"
    assert {"Deva", "Planetar", "Solar", "Animated Armor", "Rug of Smothering", "Azer"} <= set(
        names
    )
    assert set(names.values()) == {"monster"}


def test_condition_headings_define_conditions():
    names = defined_names("15-appendix-ph-a-conditions.md")
    conditions = [
        *("Blinded", "Charmed", "Deafened", "Exhaustion", "Frightened", "Grappled"),
        *("Incapacitated", "Invisible", "Paralyzed", "Petrified", "Poisoned", "Prone"),
        *("Restrained", "Stunned", "Unconscious"),
    ]
    assert names == dict.fromkeys(conditions, "condition")


def test_feat_heading_defines_the_feat():
    assert defined_names("06-feats.md") == {"Grappler": "other"}


def test_heading_whose_body_opens_with_a_definition():
    chunks = markdown_chunks(
        "# Planes\n\n## The Material Plane\n\nThe Material Plane is the nexus where "
        "philosophical and elemental forces meet.\n\n## Planar Travel\n\nWhen adventurers "
        "travel into other planes, they undertake a legendary journey.\n"
    )
    found = {e.name: (e.type, e.via) for c in chunks for e in defined_entities(c)}
    assert found == {"The Material Plane": ("other", "sentence")}


# --- headings that must not define -----------------------------------------------------

GENERIC = [
    "Monsters",
    "Monster Statistics",
    "Size",
    "Type",
    "Tags",
    "Armor Class",
    "Hit Points",
    "Speed",
    "Fly",
    "Languages",
    "Challenge",
    "Actions",
    "Legendary Actions",
    "Monsters (A)",
    "Angels",
    "Animated Objects",
]


def test_generic_and_group_headings_define_nothing():
    _, chunks = chunk_file("srd-monsters-excerpt.md")
    for chunk in chunks:
        if chunk.heading_path[-1] in GENERIC:
            assert defined_entities(chunk) == [], chunk.heading_path
    names = defined_names("srd-monsters-excerpt.md")
    assert not set(GENERIC) & set(names)
    spells = defined_names("srd-spells-excerpt.md")
    assert not {"Spells", "Spells (A)", "Spells (B)", "At Higher Levels"} & set(spells)


def test_trait_and_action_entries_in_stat_blocks_define_nothing():
    names = defined_names("srd-monsters-excerpt.md")
    assert not {"Multiattack", "Tentacle", "Amphibious", "Mucous Cloud", "Bite"} & set(names)


def test_only_the_first_chunk_of_a_split_section_defines_it():
    found = definitions("srd-monsters-excerpt.md", max_chars=300)
    aboleth = [(c, e) for c, e in found if e.name == "Aboleth"]
    assert len(aboleth) == 1
    chunk, _ = aboleth[0]
    assert chunk.part == 0
    _, chunks = chunk_file("srd-monsters-excerpt.md", max_chars=300)
    later = [c for c in chunks if c.heading_path[-1] == "Aboleth" and c.part > 0]
    assert later and all(defined_entities(c) == [] for c in later)


# --- tables ----------------------------------------------------------------------------


def test_armor_and_weapon_table_rows_define_equipment():
    found = definitions("srd-equipment-excerpt.md")
    names = {e.name: e.type for _, e in found}
    for item in ("Padded", "Leather", "Breastplate", "Plate", "Shield", "Handaxe"):
        assert names[item] == "equipment"
    assert {"Crossbow, hand", "Warhorse", "Galley", "Warship", "Elephant"} <= set(names)
    for chunk, entity in found:
        assert chunk.text[entity.start : entity.end] == entity.name


def test_table_headers_categories_and_values_are_not_items():
    names = set(defined_names("srd-equipment-excerpt.md"))
    assert not {"Armor", "Name", "Item", "Cost", "Light Armor", "Simple Melee Weapons"} & names
    # "Light Armor" is also a row of the "Category" table, which lists no items.
    value = re.compile(r"[\d\s.,+\-–—×/%()]*|.*\b\d+\s*(?:gp|sp|cp|lb\.?)|\d*d\d+.*|[-—]")
    assert not [n for n in names if value.fullmatch(n)]
    # Coinage rows are not under an equipment heading.
    assert "Copper (cp)" not in names


def test_group_rows_qualify_their_items():
    found = {e.name: e for _, e in definitions("srd-equipment-excerpt.md")}
    assert "Riding saddle" in found["Riding"].aliases
    assert "Saddle" not in found


def test_pantheon_table_rows_define_gods_by_name():
    found = definitions("16-appendix-ph-b-pantheons.md")
    tyr = [(c, e) for c, e in found if e.name == "Tyr"]
    assert len(tyr) == 1
    chunk, entity = tyr[0]
    assert chunk.heading_path[-1] == "The Norse Pantheon"
    assert entity.type == "other" and entity.via == "table_row"
    names = {e.name for _, e in found}
    assert {"The Daghdha", "Morrigan", "Hel", "Re-Horakhty", "Zeus"} <= names
    assert "Deity" not in names
    assert not [n for n in names if "god of" in n or "goddess" in n]


def test_split_table_keeps_its_header_and_groups():
    text, chunks = chunk_file("srd-equipment-excerpt.md", max_chars=250)
    found = {e.name: e for c in chunks for e in defined_entities(c, document_text=text)}
    assert "Riding saddle" in found["Riding"].aliases
    assert "Name" not in found and "Item" not in found


# --- a book-wide view ------------------------------------------------------------------


def test_resolve_keeps_one_defining_chunk_per_name_and_type():
    a = DefinedEntity("Backpack", "equipment", 0, 8, "table_row")
    b = DefinedEntity("Backpack", "equipment", 2, 10, "table_row")
    c = DefinedEntity("backpack", "equipment", 0, 8, "block")
    monster = DefinedEntity("Elephant", "monster", 0, 8, "block")
    mount = DefinedEntity("Elephant", "equipment", 0, 8, "table_row")
    assert resolve_definitions([[a], [b, monster], [mount]]) == [[a], [monster], [mount]]
    # Stronger evidence wins even when it comes later.
    assert resolve_definitions([[a], [c]]) == [[], [c]]


def test_every_fixture_entity_points_at_its_name():
    for name in ("srd-spells-excerpt.md", "srd-monsters-excerpt.md", "06-feats.md"):
        for chunk, entity in definitions(name):
            assert chunk.text[entity.start : entity.end] == entity.name
            assert entity.type in ENTITY_TYPES


def test_novels_have_no_structural_definitions():
    assert definitions("holmes-excerpt.txt") == []


# --- general rules: known headings, defining sentences, definition entries -------------


def known_as(**names: str):
    """A ``known`` lookup over stored names: {name: type}; ``_defined`` suffix → defined
    elsewhere."""
    from books.extraction.structure import KnownName

    def known(name: str) -> list[KnownName]:
        out = []
        for key, kind in names.items():
            label = key.removesuffix("_defined").replace("_", " ")
            if label.casefold() == name.casefold():
                out.append(KnownName(kind, key.endswith("_defined")))
        return out

    return known


def found_in(text: str, **kwargs) -> dict[str, tuple[str, str]]:
    chunks = markdown_chunks(text)
    doc = parse_document(text.encode(), fmt="markdown").text
    return {
        e.name: (e.type, e.via)
        for c in chunks
        for e in defined_entities(c, document_text=doc, **kwargs)
    }


NOTES = "# Field Notes\n\n## Glimmerwyrm\n\nWe met one at dusk; it hoarded gems.\n"


def test_heading_naming_a_known_entity_in_an_untyped_section_defines_it():
    assert found_in(NOTES) == {}
    assert found_in(NOTES, known=known_as(Glimmerwyrm="monster")) == {
        "Glimmerwyrm": ("monster", "known")
    }
    # Another book already defines it (a stat block, a table row): a bare heading
    # does not claim it again; nor does an ambiguous name.
    assert found_in(NOTES, known=known_as(Glimmerwyrm_defined="monster")) == {}
    two = known_as(Glimmerwyrm="monster", glimmerwyrm="spell")
    assert found_in(NOTES, known=two) == {}


def test_defining_first_sentence_without_a_matching_heading():
    text = (
        "# Bestiary\n\n## Dragons\n\nGlimmerwyrm is a small dragon that hoards gems. "
        "The Glimmerwyrm sleeps on its hoard.\n\n## Weather\n\nMagic is a force that "
        "shapes the weather; magic is everywhere.\n\n## Lore\n\nThis is a story of old.\n"
    )
    assert found_in(text) == {"Glimmerwyrm": ("other", "sentence")}
    # A known entity keeps its type; no heading at all still works.
    assert found_in(text, known=known_as(Glimmerwyrm="monster"))["Glimmerwyrm"] == (
        "monster",
        "sentence",
    )
    assert found_in("Glimmerwyrm is a small dragon.\n") == {"Glimmerwyrm": ("other", "sentence")}


@pytest.mark.parametrize(
    "opening",
    [
        "Holmes was a tall man who rarely spoke.",  # narration, not a definition
        "Dragons are large winged reptiles.",  # a group
        "Each dragon is a hoarder of gems.",  # capitalised only as the opener
        "Size and Strength is a rule of thumb.",  # a topic title
    ],
)
def test_openings_that_define_nothing(opening):
    assert found_in(f"# Notes\n\n## Remarks\n\n{opening}\n") == {}


def test_definition_entries_and_lists_outside_typed_chapters():
    text = (
        "# Glossary\n\n**Glimmerwyrm.** A small dragon that hoards gems.\n\n"
        "***Moonwell.*** A pool of silver water.\n\n"
        "***Fire.*** Flames burn; the fire spreads.\n\n"
        "Starfall Pact\n: An oath sworn under falling stars.\n"
    )
    assert found_in(text) == {
        "Glimmerwyrm": ("other", "entry"),
        "Moonwell": ("other", "entry"),
        "Starfall Pact": ("other", "entry"),
    }
    # "fire" is a common word of the text: "***Fire.***" is a run-in heading.
    assert "Fire" not in found_in(text)
    # A stored entity named by an entry keeps its type.
    assert found_in(text, known=known_as(Moonwell="other", Glimmerwyrm="monster"))[
        "Glimmerwyrm"
    ] == ("monster", "entry")


def test_typed_chapter_heading_with_a_defining_sentence_defines_it():
    text = (
        "# Monsters\n\n## Glimmerwyrm\n\nGlimmerwyrm is a small dragon that hoards gems."
        "\n\n## Telepathy\n\nTelepathy is a magical ability; some monsters have "
        "telepathy.\n\n## Cloudkin\n\nThey drift on the wind.\n"
    )
    assert found_in(text) == {"Glimmerwyrm": ("monster", "sentence")}
    spells = "# Spells\n\n## Starfall\n\nStarfall is a spell that calls down stars.\n"
    assert found_in(spells) == {"Starfall": ("spell", "sentence")}
