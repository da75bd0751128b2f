from __future__ import annotations

import unicodedata

import pytest

from entities.extraction import AMBIGUOUS, Gazetteer, extract_entities, group_by_type
from entities.services import alias_add, alias_remove, entity_store, entity_update

pytestmark = pytest.mark.django_db


@pytest.fixture
def languages():
    ts, _ = entity_store(name="TypeScript", type="programming_language")
    alias_add(entity=ts, alias="ts")
    rust, _ = entity_store(name="Rust", type="programming_language")
    alias_add(entity=rust, alias="rust lang")
    cpp, _ = entity_store(name="C++", type="programming_language")
    nextjs, _ = entity_store(name="Next.js", type="framework")
    return {"ts": ts, "rust": rust, "cpp": cpp, "next": nextjs}


def spans(text: str, found) -> list[tuple[str, str | None]]:
    """(text at the reported offsets, entity id) for every hit."""
    return [(text[d.start : d.end], d.canonical_id) for d in found]


def test_aliases_resolve_to_the_canonical_entity(languages):
    text = "We migrated from TypeScript and ts to Rust."
    found = extract_entities(text)
    ts = languages["ts"]
    assert spans(text, found) == [
        ("TypeScript", ts.id),
        ("ts", ts.id),
        ("Rust", languages["rust"].id),
    ]
    assert {d.canonical_name for d in found[:2]} == {"TypeScript"}
    assert found[1].surface_form == "ts" and found[1].entity_type == "programming_language"


def test_short_alias_does_not_fire_inside_a_word(languages):
    assert extract_entities("All tests pass; no tsunami, no its.") == []


def test_longest_match_wins(languages):
    text = "I like Rust Lang, and rust too."
    assert spans(text, extract_entities(text)) == [
        ("Rust Lang", languages["rust"].id),
        ("rust", languages["rust"].id),
    ]


def test_names_with_punctuation_edges(languages):
    text = "C++ (not c+) and next.js, but not c++11, Next. js or nextjs."
    assert spans(text, extract_entities(text)) == [
        ("C++", languages["cpp"].id),
        ("next.js", languages["next"].id),
    ]


def test_case_folding_finds_sharp_s_with_original_offsets():
    street, _ = entity_store(name="Straße", type="place")
    text = "Die STRASSE heißt Straße."
    found = extract_entities(text)
    assert spans(text, found) == [("STRASSE", street.id), ("Straße", street.id)]


def test_decomposed_input_finds_composed_entity_with_original_offsets():
    cafe, _ = entity_store(name="Café Müller", type="place")
    text = unicodedata.normalize("NFD", "Ein Abend im  CAFÉ   MÜLLER, dann Café Müller.")
    found = extract_entities(text)
    assert [d.canonical_id for d in found] == [cafe.id, cafe.id]
    first, second = found
    assert text[first.start : first.end] == unicodedata.normalize("NFD", "CAFÉ   MÜLLER")
    assert text[second.start : second.end] == unicodedata.normalize("NFD", "Café Müller")
    assert text[first.end] == ","


def test_a_lowered_dotted_capital_i_is_found_with_original_offsets():
    # "İ".lower() is "i" + U+0307 (two characters): the offsets after it still point at
    # the caller's text.
    town, _ = entity_store(name="İzmir Kışla", type="place")
    text = f"From {'İzmir Kışla'.lower()} to İZMİR KIŞLA, then izmir."
    found = extract_entities(text)
    assert spans(text, found) == [
        ("İzmir Kışla".lower(), town.id),
        ("İZMİR KIŞLA", town.id),
    ]


def test_ambiguous_name_lists_candidates_and_type_filter_picks_one():
    spell, _ = entity_store(name="Shield", type="spell")
    armour, _ = entity_store(name="Shield", type="armour")
    [hit] = extract_entities("She raised the Shield.")
    assert hit.canonical_id is None and hit.entity_type == AMBIGUOUS
    assert {c.entity_id for c in hit.candidates} == {spell.id, armour.id}
    [hit] = extract_entities("She raised the Shield.", types=["Armour"])
    assert hit.canonical_id == armour.id and hit.candidates == ()


def test_canonical_name_beats_an_alias_of_another_entity():
    go, _ = entity_store(name="Go", type="programming_language")
    game, _ = entity_store(name="Weiqi", type="game")
    alias_add(entity=game, alias="Go")
    [hit] = extract_entities("Written in Go.")
    assert hit.canonical_id == go.id


def test_type_filter_lets_a_shorter_name_of_the_wanted_type_through():
    city, _ = entity_store(name="New York", type="place")
    paper, _ = entity_store(name="New York Times", type="organization")
    text = "Read the New York Times."
    assert spans(text, extract_entities(text)) == [("New York Times", paper.id)]
    assert spans(text, extract_entities(text, types=["place"])) == [("New York", city.id)]


def test_group_by_type(languages):
    found = extract_entities("Rust and Next.js and ts")
    groups = group_by_type(found)
    assert list(groups) == ["framework", "programming_language"]
    assert [d.surface_form for d in groups["programming_language"]] == ["Rust", "ts"]


def test_new_renamed_and_removed_names_are_seen(languages):
    assert extract_entities("Zig is new") == []
    zig, _ = entity_store(name="Zig", type="programming_language")
    assert [d.canonical_id for d in extract_entities("Zig is new")] == [zig.id]
    alias_remove(entity=languages["ts"], alias="ts")
    assert extract_entities("ts only") == []
    entity_update(entity=zig, actor=None, canonical_name="Ziglang")
    assert extract_entities("Zig is new") == []
    assert [d.canonical_name for d in extract_entities("ziglang")] == ["Ziglang"]


def test_names_written_without_the_hooks_are_seen_at_the_next_check(languages):
    """Another process (or a bulk import) writes without this process's hooks: the
    freshness check (every call under the test settings) still sees the new alias, the
    rename and the removal."""
    from django.utils import timezone

    from entities.models import Alias, Entity

    rust = languages["rust"]
    assert extract_entities("rustc and Oxide") == []
    Alias.objects.bulk_create([Alias(entity=rust, alias="rustc", alias_norm="rustc")])
    assert [d.canonical_id for d in extract_entities("rustc and Oxide")] == [rust.id]
    Entity.objects.filter(pk=rust.pk).update(
        canonical_name="Oxide", name_norm="oxide", updated_at=timezone.now()
    )
    assert [d.canonical_name for d in extract_entities("Oxide")] == ["Oxide"]
    Alias.objects.filter(entity=rust).delete()
    assert extract_entities("rustc") == []


def test_from_pairs_without_the_database():
    gaz = Gazetteer.from_pairs(
        [
            ("PostgreSQL", ("e1", "PostgreSQL", "database")),
            ("postgres", ("e1", "PostgreSQL", "database")),
            ("pg", {"id": "e1", "canonical_name": "PostgreSQL", "type": "database"}),
        ]
    )
    text = "POSTGRES, pg and PostgreSQL; not pgadmin."
    assert [(text[d.start : d.end], d.canonical_id) for d in gaz.find(text)] == [
        ("POSTGRES", "e1"),
        ("pg", "e1"),
        ("PostgreSQL", "e1"),
    ]
    assert [e.entity_id for e in gaz.get("Postgres")] == ["e1"]


def test_already_normalised_text_keeps_its_own_offsets():
    gaz = Gazetteer.from_pairs([("Straße", ("s", "Straße", "place"))])
    [hit] = gaz.find("die strasse", normalized=True)
    assert (hit.start, hit.end, hit.surface_form) == (4, 11, "strasse")


def test_empty_store_finds_nothing():
    assert extract_entities("TypeScript and Rust") == []


def test_a_private_gazetteer_grows_with_add():
    gaz = Gazetteer.from_pairs([("Rust", ("r", "Rust", "programming_language"))])
    gaz.add("Rust", ("r2", "Rust", "game"))
    [hit] = gaz.find("Rust")
    assert hit.entity_type == AMBIGUOUS
    gaz.add("rust lang", ("r", "Rust", "programming_language"))
    assert [d.canonical_id for d in gaz.find("rust lang")] == ["r"]
