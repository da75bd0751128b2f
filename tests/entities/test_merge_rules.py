"""Merge and undo, rule by rule: what a curator sees on the merge, the undo, and the
refusal when something changed since (table-driven where the rule is a table)."""

from __future__ import annotations

import pytest

from entities.models import (
    Alias,
    DuplicateSuggestion,
    Entity,
    EntityFact,
    EntityMerge,
    EntityRedirect,
    ExternalEntityId,
    Fact,
)
from entities.selectors import (
    duplicate_suggestions_pending,
    entity_by_external_id,
    entity_redirect_target,
)
from entities.services import (
    alias_add,
    alias_remove,
    entity_merge,
    entity_merge_undo,
    entity_store,
    fact_link,
    merge_undo_problems,
)
from kgsite.errors import Conflict, InvalidInput
from kgsite.models import AuditEntry

from .conftest import _rows

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


# (the survivor's role on the fact or None, the duplicate's role) -> role kept
ROLE_TABLE = [
    (None, "subject", "subject"),
    (None, "mention", "mention"),
    ("mention", "subject", "subject"),
    ("mention", "object", "object"),
    ("object", "subject", "subject"),
    ("subject", "mention", "subject"),
    ("subject", "object", "subject"),
    ("object", "mention", "object"),
    ("mention", "mention", "mention"),
]


@pytest.mark.parametrize(("survivor_role", "dup_role", "kept_role"), ROLE_TABLE)
def test_a_shared_fact_keeps_the_stronger_role_and_undo_gives_both_back(
    curator, survivor_role, dup_role, kept_role
):
    kept, dup = person("Tove Arnesen"), person("T. Arnesen")
    fact = new_fact("Arnesen surveyed the fjord.")
    if survivor_role:
        fact_link(fact=fact, entity=kept, role=survivor_role)
    fact_link(fact=fact, entity=dup, role=dup_role)
    before = _rows(EntityFact)
    merge = entity_merge(survivor=kept, duplicates=[dup], actor=curator).merge
    assert list(EntityFact.objects.filter(fact=fact).values_list("entity_id", "role")) == [
        (kept.pk, kept_role)
    ]
    entity_merge_undo(merge=merge, actor=curator)
    assert _rows(EntityFact) == before


def test_an_entity_cannot_be_merged_into_itself_and_a_repeated_duplicate_counts_once(curator):
    kept, dup = person("Tove Arnesen"), person("T. Arnesen")
    with pytest.raises(InvalidInput, match="survivor cannot also be a duplicate"):
        entity_merge(survivor=kept, duplicates=[kept], actor=curator)
    assert not EntityMerge.objects.exists()
    merge = entity_merge(survivor=kept, duplicates=[dup, dup], actor=curator).merge
    assert merge.duplicate_ids == [dup.pk]
    assert list(EntityRedirect.objects.values_list("old_id", "target_id")) == [(dup.pk, kept.pk)]


def test_the_preview_announces_exactly_what_the_merge_then_does(graph, curator):
    kwargs = {
        "survivor": graph["survivor"],
        "duplicates": [graph["dup"], graph["other"]],
        "actor": curator,
        "allow_cross_type": True,
    }
    preview = entity_merge(preview=True, **kwargs).plan.as_dict()
    merge = entity_merge(**kwargs).merge
    assert merge.state["plan"] == preview
    audit = AuditEntry.objects.get(action="entity.merge")
    assert audit.payload["moves"] == preview["moves"]
    assert audit.payload["conflicts"] == preview["conflicts"]


def test_cross_type_aliases_take_the_survivors_type_and_get_their_own_back(curator):
    kept = person("Tove Arnesen")
    ship, _ = entity_store(name="Arnesen", type="vessel")
    alias_add(entity=ship, alias="The Grey Hull", manual=False)
    merge = entity_merge(
        survivor=kept, duplicates=[ship], actor=curator, allow_cross_type=True
    ).merge
    assert set(Alias.objects.filter(entity=kept).values_list("alias", "type", "manual")) == {
        ("Arnesen", "person", True),
        ("The Grey Hull", "person", False),
    }
    entity_merge_undo(merge=merge, actor=curator)
    assert list(Alias.objects.values_list("entity_id", "alias", "type", "manual")) == [
        (ship.pk, "The Grey Hull", "vessel", False)
    ]


def test_facts_of_two_projects_follow_the_survivor_without_folding_into_each_other(curator):
    kept, dup = person("Tove Arnesen"), person("T. Arnesen")
    alpha = new_fact("Arnesen leads the survey.", subject=kept, scope="alpha", confirmations=3)
    beta = new_fact("Arnesen leads the survey.", subject=dup, scope="beta", confirmations=2)
    fact_link(fact=alpha, entity=kept, role="subject")
    fact_link(fact=beta, entity=dup, role="subject")
    before = _rows(Fact)
    merge = entity_merge(survivor=kept, duplicates=[dup], actor=curator).merge
    rows = {f.pk: (f.subject_id, f.scope, f.confirmations, f.status) for f in Fact.objects.all()}
    assert rows == {
        alpha.pk: (kept.pk, "alpha", 3, "active"),
        beta.pk: (kept.pk, "beta", 2, "active"),
    }
    entity_merge_undo(merge=merge, actor=curator)
    assert _rows(Fact) == before


def test_imported_ids_follow_the_survivor_and_come_back_on_undo(curator):
    kept, dup = person("Tove Arnesen"), person("T. Arnesen")
    ExternalEntityId.objects.create(store="old.db", external_id="e-17", entity=dup)
    merge = entity_merge(survivor=kept, duplicates=[dup], actor=curator).merge
    assert merge.state["plan"]["moves"]["imported_ids"] == 1
    assert entity_by_external_id("e-17") == kept
    entity_merge_undo(merge=merge, actor=curator)
    assert entity_by_external_id("e-17") == dup


@pytest.fixture
def merged(curator):
    """Tove Arnesen absorbed T. Arnesen (alias 'Tove A.', a subject fact, an object fact
    from a third person, an imported id); a second person of that type stands by."""
    kept, dup, other = person("Tove Arnesen"), person("T. Arnesen"), person("Ivar Lund")
    alias_add(entity=dup, alias="Tove A.")
    said = new_fact("T. Arnesen mapped the coast.", subject=dup)
    fact_link(fact=said, entity=dup, role="subject")
    heard = new_fact("Ivar Lund met T. Arnesen.", subject=other, predicate="met", object_entity=dup)
    fact_link(fact=heard, entity=dup, role="object")
    ExternalEntityId.objects.create(store="old.db", external_id="e-17", entity=dup)
    merge = entity_merge(survivor=kept, duplicates=[dup], actor=curator).merge
    return {"kept": kept, "dup": dup, "other": other, "said": said, "heard": heard, "merge": merge}


def _unlink(w):
    EntityFact.objects.filter(fact=w["said"]).delete()
    return f"fact {w['said'].pk} was unlinked from the survivor since the merge"


def _new_subject(w):
    Fact.objects.filter(pk=w["said"].pk).update(subject=w["other"])
    return f"fact {w['said'].pk}'s subject changed since the merge"


def _new_object(w):
    Fact.objects.filter(pk=w["heard"].pk).update(object_entity=w["other"])
    return f"fact {w['heard'].pk}'s object changed since the merge"


def _imported_id_moved(w):
    row = ExternalEntityId.objects.get(external_id="e-17")
    row.entity = w["other"]
    row.save()
    return f"imported entity id {row.pk} no longer points to the survivor"


def _alias_given_away(w):
    alias_remove(entity=w["kept"], alias="Tove A.")
    alias_add(entity=w["other"], alias="Tove A.")
    return "alias 'Tove A.' now points to 'Ivar Lund'"


def _old_id_reused(w):
    Entity.objects.create(pk=w["dup"].pk, canonical_name="Someone", name_norm="someone")
    return "an entity with a merged-away id exists again"


LATER_EDITS = [_unlink, _new_subject, _new_object, _imported_id_moved, _alias_given_away]


@pytest.mark.parametrize("edit", [*LATER_EDITS, _old_id_reused], ids=lambda f: f.__name__)
def test_undo_after_a_later_edit_is_refused_naming_it_and_changes_nothing(
    merged, curator, snapshot, edit
):
    expected = edit(merged)
    before = snapshot()
    with pytest.raises(Conflict) as info:
        entity_merge_undo(merge=merged["merge"], actor=curator)
    assert info.value.code == "undo_refused"
    assert expected in info.value.extra["problems"]
    assert info.value.message.startswith(f"merge {merged['merge'].pk} cannot be undone exactly")
    assert snapshot() == before
    assert entity_redirect_target(entity_id=merged["dup"].pk) == merged["kept"].pk or (
        edit is _old_id_reused
    )
    merged["merge"].refresh_from_db()
    assert not merged["merge"].undone


def test_several_later_edits_are_all_listed_and_counted_in_the_message(merged, curator):
    expected = [edit(merged) for edit in LATER_EDITS]
    problems = merge_undo_problems(merge=merged["merge"])
    assert set(expected) <= set(problems)
    with pytest.raises(Conflict) as info:
        entity_merge_undo(merge=merged["merge"], actor=curator)
    assert info.value.message.endswith(f"(and {len(problems) - 1} more)")


def test_a_fresh_merge_has_no_undo_problems(merged):
    assert merge_undo_problems(merge=merged["merge"]) == []


def test_chained_merges_undo_newest_first_and_refuse_the_other_order(merged, curator):
    final = person("Tove Arnesen Lund")
    second = entity_merge(survivor=final, duplicates=[merged["kept"]], actor=curator).merge
    assert entity_redirect_target(entity_id=merged["dup"].pk) == final.pk
    merged["merge"].refresh_from_db()
    with pytest.raises(Conflict, match="no longer exists"):
        entity_merge_undo(merge=merged["merge"], actor=curator)
    entity_merge_undo(merge=second, actor=curator)
    merged["merge"].refresh_from_db()
    assert merged["merge"].survivor_id == merged["kept"].pk  # its survivor again
    assert entity_redirect_target(entity_id=merged["dup"].pk) == merged["kept"].pk
    entity_merge_undo(merge=merged["merge"], actor=curator)
    assert Entity.objects.filter(pk__in=[merged["dup"].pk, merged["kept"].pk]).count() == 2
    assert not EntityRedirect.objects.exists()
    undo_rows = AuditEntry.objects.filter(action="entity.merge_undo").order_by("pk")
    assert [row.payload["merge"] for row in undo_rows] == [second.pk, merged["merge"].pk]


def test_a_duplicates_other_suggestions_leave_the_queue_and_come_back_on_undo(curator):
    kept, dup, third = person("Tove Arnesen"), person("T. Arnesen"), person("Tove Arneson")
    rows = {}
    for x, y in ((kept, dup), (dup, third)):
        a, b = sorted([x.pk, y.pk])
        rows[(x, y)] = DuplicateSuggestion.objects.create(
            pair_key=f"{a}|{b}", entity_a_id=a, entity_b_id=b, score=0.8
        )

    def queue():
        return {(s.entity_a_id, s.entity_b_id) for s in duplicate_suggestions_pending()}

    before = queue()
    assert len(before) == 2
    merge = entity_merge(survivor=kept, duplicates=[dup], actor=curator).merge
    assert queue() == set()  # one pair merged, the other names an entity that is gone
    rows[(kept, dup)].refresh_from_db()
    assert (rows[(kept, dup)].status, rows[(kept, dup)].decided_by) == ("merged", curator)
    entity_merge_undo(merge=merge, actor=curator)
    assert queue() == before
    rows[(kept, dup)].refresh_from_db()
    assert (rows[(kept, dup)].status, rows[(kept, dup)].decided_by) == ("pending", None)
