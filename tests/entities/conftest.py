"""Fixtures shared by the merge tests: a small graph with every kind of reference."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict

from books.models import Book, Chunk, Mention
from entities.models import Alias, DuplicateSuggestion, Entity, EntityFact, Fact
from entities.services import alias_add, entity_store, fact_link, fact_store


def _rows(model) -> dict:
    """Every row of ``model`` with every field, by primary key."""
    rows = {}
    for obj in model.objects.order_by("pk"):
        data = model_to_dict(obj)
        for f in obj._meta.concrete_fields:
            data[f.attname] = getattr(obj, f.attname)  # timestamps and non-editable fields too
        rows[obj.pk] = data
    return rows


def _snapshot() -> dict:
    return {
        m.__name__: _rows(m)
        for m in (Entity, Alias, EntityFact, Fact, Mention, DuplicateSuggestion)
    }


@pytest.fixture
def graph(db):
    """A survivor, a same-type duplicate and a cross-type one, with aliases, facts in
    every role, book mentions (one chunk naming both) and a pending suggestion."""
    survivor, _ = entity_store(name="Marguerite Okonkwo", type="person")
    alias_add(entity=survivor, alias="M. Okonkwo")
    dup, _ = entity_store(name="Maggie Okonkwo", type="person", description="a bridge engineer")
    alias_add(entity=dup, alias="Mags", manual=False)
    other, _ = entity_store(name="Okonkwo", type="character")
    alias_add(entity=other, alias="M. Okonkwo")  # the survivor has it: dropped, reported
    alias_add(entity=other, alias="Maggie the Builder")
    born = fact_store(
        text="Maggie Okonkwo was born in Enugu.",
        subject=dup,
        predicate="born_in",
        object_value="Enugu",
    ).fact
    both = fact_store(text="Marguerite and Maggie Okonkwo share an office.", entities=[survivor])
    fact_link(fact=both.fact, entity=dup, role=EntityFact.Role.SUBJECT)  # stronger role
    knows = fact_store(
        text="Marguerite Okonkwo designed a bridge with Okonkwo.",
        subject=survivor,
        predicate="worked_with",
        object_entity=other,
    ).fact
    only_other = fact_store(text="Okonkwo appears in three stories.", entities=[other]).fact
    book = Book.objects.create(title="Bridges", title_norm="bridges", format="markdown")
    chunks = [
        Chunk.objects.create(
            book=book, ordinal=i, heading_path=[f"Part {i}"], text="x", start=0, end=1
        )
        for i in range(3)
    ]

    def mention(entity, chunk, kind="references", count=1):
        return Mention.objects.create(
            entity=entity, book=book, chunk=chunk, mention_type=kind, start=0, end=1, count=count
        )

    mention(survivor, chunks[0], count=2)
    mention(dup, chunks[0], kind="defines", count=3)  # same chunk: absorbed
    mention(dup, chunks[1])
    mention(other, chunks[2], kind="defines")
    suggestion = DuplicateSuggestion.objects.create(
        pair_key="|".join(sorted([survivor.pk, dup.pk])),
        entity_a=survivor,
        entity_b=dup,
        score=0.9,
        evidence=[{"kind": "token_similarity", "score": 0.9}],
    )
    return {
        "survivor": survivor,
        "dup": dup,
        "other": other,
        "facts": {"born": born, "both": both.fact, "knows": knows, "only_other": only_other},
        "chunks": chunks,
        "suggestion": suggestion,
    }


@pytest.fixture
def snapshot():
    return _snapshot
