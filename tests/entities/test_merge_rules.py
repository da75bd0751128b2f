"""Merge and undo, rule by rule: what a curator sees on the merge, the undo, and the
refusal when something changed since (table-driven where the rule is a table)."""

from __future__ import annotations

import pytest

from entities.models import (
    Entity,
    EntityMerge,
    Fact,
)
from entities.services import (
    entity_merge,
    entity_merge_undo,
    entity_store,
)

pytestmark = pytest.mark.django_db


def person(name: str, **fields) -> Entity:
    entity, _ = entity_store(name=name, type="person")
    if fields:
        Entity.objects.filter(pk=entity.pk).update(**fields)
        entity.refresh_from_db()
    return entity


def new_fact(text: str, **fields) -> Fact:
    return Fact.objects.create(text=text, text_norm=text.lower(), **fields)


def test_undo_gives_a_machine_candidate_back_its_flag_and_evidence(curator):
    kept = person("Tove Arnesen")
    # Extraction proposed it on its own (candidate, evidence 4): the gazetteer matches
    # it strictly until a curator or a second book confirms it.
    found = person("T. Arnesen", candidate=True, evidence=4)
    merge = entity_merge(survivor=kept, duplicates=[found], actor=curator).merge
    entity_merge_undo(merge=merge, actor=curator)
    back = Entity.objects.get(pk=found.pk)
    assert (back.candidate, back.evidence) == (True, 4)


def test_a_merge_recorded_without_the_candidate_fields_still_undoes(curator):
    kept, dup = person("Tove Arnesen"), person("T. Arnesen")
    merge = entity_merge(survivor=kept, duplicates=[dup], actor=curator).merge
    state = merge.state
    for row in state["entities"]:
        del row["candidate"], row["evidence"]  # as merges stored before they were kept
    EntityMerge.objects.filter(pk=merge.pk).update(state=state)
    merge.refresh_from_db()
    entity_merge_undo(merge=merge, actor=curator)
    back = Entity.objects.get(pk=dup.pk)
    assert (back.canonical_name, back.candidate, back.evidence) == ("T. Arnesen", False, 0)
