"""Parsing, chunking, re-ingest and delete as rules over generated books.

``test_ingest.py`` and ``test_parsing.py`` follow the corpus excerpts; these generate
reference books (a title, sections under headings naming invented things, paragraphs
that refer to each other) and state what must hold for any of them:

* the chunks tile each section, fit the limit, never cross a heading, and lose no word;
  every heading opens the first chunk of its section;
* after any series of new versions of a book, its chunks, mentions and entities are
  exactly those a first ingest of the last version makes: nothing stale is left;
* every mention's offsets point at its surface inside its chunk;
* deleting the book leaves no chunk, mention or entity it alone was holding, and the
  entities a curator touched or another book names stay.

The generated books come from fixed seeds (``random.Random``) and Hypothesis with a
fixed seed: every run reads the same books.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from books.chunking import chunk_sections
from books.models import Book, Chunk, Mention
from books.parsing import parse_document
from books.services import book_delete, book_ingest
from entities.models import Entity
from entities.services import entity_store, entity_update

# Invented names (two words, capitalised) and the sentences that name them.
NAMES = (
    "Velmora Root",
    "Quillan Moss",
    "Tarrow Fern",
    "Osric Lantern",
    "Brindle Hollow",
    "Casmere Vine",
    "Dunmarrow Stone",
    "Eskelin Reed",
)
SENTENCES = (
    "It grows only where the ground stays wet in spring.",
    "Travellers carry it in a sealed tin.",
    "Its leaves turn copper before the first frost.",
    "Nobody has seen it flower twice.",
    "The old maps mark it with a small circle.",
)


def book_text(names: list[str], rng: random.Random) -> bytes:
    """A reference book: one section per name, each naming one or two of the others."""
    parts = ["# Field Guide of the Marsh\n", "A short guide to what grows in the marsh.\n"]
    for name in names:
        others = [n for n in names if n != name]
        body = [rng.choice(SENTENCES) for _ in range(rng.randint(1, 3))]
        for other in rng.sample(others, k=min(len(others), rng.randint(0, 2))):
            body.insert(rng.randint(0, len(body)), f"It is often found beside {other}.")
        parts.append(f"## {name}\n\n{name} is a plant of the marsh. {' '.join(body)}\n")
    return "\n".join(parts).encode()


# --- parsing and chunking -------------------------------------------------------------

sections = st.lists(
    st.tuples(
        st.integers(min_value=2, max_value=4),  # heading level
        st.sampled_from(NAMES),
        st.lists(st.sampled_from(SENTENCES), min_size=0, max_size=6),
        st.booleans(),  # split the body into two paragraphs
    ),
    min_size=1,
    max_size=8,
)


def markdown(spec) -> str:
    lines = ["# Field Guide of the Marsh", ""]
    for level, name, body, split in spec:
        lines += ["#" * level + " " + name, ""]
        if body:
            cut = len(body) // 2 if split else len(body)
            lines += [" ".join(body[:cut]), "", " ".join(body[cut:]), ""]
    return "\n".join(lines)


@seed(2451)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(spec=sections, max_chars=st.integers(min_value=40, max_value=600))
def test_chunks_tile_their_section_fit_and_lose_no_word(spec, max_chars) -> None:
    text = markdown(spec)
    doc = parse_document(text.encode(), fmt="markdown")
    chunks = chunk_sections(doc.sections, max_chars=max_chars)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert doc.text[chunk.start : chunk.end] == chunk.text
        assert 0 < len(chunk.text) <= max_chars
        [owner] = [s for s in doc.sections if s.start <= chunk.start and chunk.end <= s.end]
        assert owner.heading_path == chunk.heading_path
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert a.end <= b.start, "chunks overlap"
    assert " ".join(c.text for c in chunks).split() == doc.text.split()
    for section in doc.sections:
        heading_line = doc.text[section.start :].split("\n", 1)[0]
        if heading_line.startswith("#"):
            first = next(c for c in chunks if c.start >= section.start)
            assert first.part == 0
            assert first.text.startswith(heading_line[:max_chars].rstrip())


@seed(2452)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(spec=sections)
def test_heading_paths_follow_the_heading_levels(spec) -> None:
    doc = parse_document(markdown(spec).encode(), fmt="markdown")
    headed = [s for s in doc.sections if doc.text[s.start : s.start + 1] == "#"]
    titled = headed[1:]  # the title section first, then one per generated heading
    assert [s.heading_path[-1] for s in titled] == [name for _l, name, _b, _s in spec]
    for section in titled:
        assert section.heading_path[0] == "Field Guide of the Marsh"
        assert len(section.heading_path) >= 2


# --- re-ingest and delete -------------------------------------------------------------


def stored(book: Book) -> dict:
    """What a reader of the book sees, without ids (those differ between runs)."""
    chunks = list(Chunk.objects.filter(book=book).order_by("ordinal"))
    by_pk = {c.pk: c.ordinal for c in chunks}
    mentions = Mention.objects.filter(book=book).select_related("entity")
    return {
        "chunks": [(c.ordinal, tuple(c.heading_path), c.text, c.start, c.end) for c in chunks],
        "mentions": sorted(
            (
                by_pk[m.chunk_id],
                m.entity.name_norm,
                m.entity.type,
                m.mention_type,
                m.surface,
                m.start,
                m.end,
                m.count,
            )
            for m in mentions
        ),
        "entities": sorted(Entity.objects.values_list("name_norm", "type", "candidate")),
    }


def assert_offsets_point_at_surfaces(book: Book) -> None:
    for m in Mention.objects.filter(book=book).select_related("chunk"):
        local = m.start - m.chunk.start
        assert m.chunk.start <= m.start < m.end <= m.chunk.end
        assert m.chunk.text[local : local + len(m.surface)] == m.surface
        assert m.surface.casefold() in m.context.casefold()


def ingest(data: bytes):
    return book_ingest(data=data, filename="field-guide.md", extractor="offline", embed=False)


@pytest.mark.django_db
@pytest.mark.parametrize("case", [1, 2, 3])
def test_a_reingested_book_is_exactly_a_fresh_ingest_of_its_last_version(case: int) -> None:
    rng = random.Random(2450 + case)
    versions = [book_text(rng.sample(NAMES, k=rng.randint(2, len(NAMES))), rng) for _ in "abc"]
    for data in versions:
        result = ingest(data)
        assert_offsets_point_at_surfaces(result.book)
    assert Book.objects.count() == 1
    replaced = stored(result.book)
    assert replaced["mentions"], "the generated book names nothing: the rule is vacuous"

    summary = book_delete(book=result.book, actor=None)
    assert summary["chunks"] == len(replaced["chunks"])
    assert (Book.objects.count(), Chunk.objects.count(), Mention.objects.count()) == (0, 0, 0)
    assert not Entity.objects.exists(), "an entity only the deleted book held is left"

    fresh = ingest(versions[-1])
    assert fresh.action == "created"
    assert stored(fresh.book) == replaced


def guide(sections: list[tuple[str, str]]) -> bytes:
    parts = ["# Field Guide of the Marsh\n", "A short guide to what grows in the marsh.\n"]
    parts += [f"## {heading}\n\n{body}\n" for heading, body in sections]
    return "\n".join(parts).encode()


@pytest.mark.django_db
def test_a_name_only_the_old_version_defined_is_not_found_again_for_being_stored() -> None:
    """Version 1 defines terms under their own headings; version 2 drops those sections
    and names the terms in passing. What version 2 keeps is what a first ingest of it
    makes: a term is not an entity again because version 1 stored it. An entity another
    book names or a curator edited is a stored name for both, and a kept entity keeps
    its id."""
    terms = ["Marsh tea", "Quillan", "the Stillwater", "Osric Lantern", "Tarn"]
    root = ("Velmora Root", "Velmora Root is a plant of the marsh. It grows only in spring.")
    first = [root] + [
        (t, f"{t} is a plant of the marsh. Travellers carry {t} in a tin.") for t in terms
    ]
    passing = " ".join(f"Its leaves turn copper near {t} before the first frost." for t in terms)
    second = [(root[0], f"{root[1]} {passing}")]
    book_ingest(
        data=guide([("Osric Lantern", "Osric Lantern is a plant of the marsh.")]),
        filename="second-guide.md",
        title="Second Guide of the Marsh",
        extractor="offline",
        embed=False,
    )
    book = ingest(guide(first)).book
    made = set(Entity.objects.values_list("name_norm", "type"))
    entity_update(entity=Entity.objects.get(name_norm="tarn"), actor=None, description="Seen.")
    kept_id = Entity.objects.get(name_norm="velmora root").pk

    assert ingest(guide(second)).action == "replaced"
    replaced = stored(book)
    assert Entity.objects.get(name_norm="velmora root").pk == kept_id
    book_delete(book=book, actor=None)
    fresh = ingest(guide(second))
    assert fresh.action == "created"
    assert stored(fresh.book) == replaced
    only_old = made - {(norm, t) for norm, t, _c in replaced["entities"]}
    assert only_old, "every term of version 1 is found again: the rule is vacuous"


@pytest.mark.django_db
def test_an_unchanged_version_changes_nothing() -> None:
    data = book_text(list(NAMES[:4]), random.Random(2454))
    first = stored(ingest(data).book)
    again = ingest(data)
    assert again.action == "unchanged"
    assert stored(again.book) == first


@pytest.mark.django_db
def test_delete_keeps_what_a_curator_touched_or_another_book_names() -> None:
    rng = random.Random(2455)
    guide = ingest(book_text(list(NAMES[:5]), rng)).book
    other = book_ingest(
        data=book_text(list(NAMES[4:]), rng),
        filename="second-guide.md",
        title="Second Guide of the Marsh",
        extractor="offline",
        embed=False,
    ).book
    named = {
        (e.name_norm, e.type): e for e in Entity.objects.filter(mentions__book=guide).distinct()
    }
    shared = set(
        Mention.objects.filter(book=other, entity__in=list(named.values())).values_list(
            "entity_id", flat=True
        )
    )
    assert shared, "the two books share no entity: the rule is vacuous"
    only_guide = [e for e in named.values() if e.pk not in shared]
    assert len(only_guide) >= 2
    touched = entity_update(entity=only_guide[0], actor=None, description="Checked by hand.")
    own, _ = entity_store(name="Marsh Warden", type="person")  # no book names it

    book_delete(book=guide, actor=None)

    left = set(Entity.objects.values_list("pk", flat=True))
    assert touched.pk in left and own.pk in left
    assert shared <= left
    assert not {e.pk for e in only_guide[1:]} & left
    assert not Mention.objects.filter(book_id=guide.pk).exists()
    assert_offsets_point_at_surfaces(other)
