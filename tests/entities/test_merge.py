"""entity_merge and entity_merge_undo: what moves, what is reported, exact undo."""

from __future__ import annotations

import pytest

from books.models import Chunk, Mention
from entities import hooks
from entities.models import (
    Alias,
    Entity,
    EntityFact,
    EntityMerge,
    EntityRedirect,
    Fact,
)
from entities.selectors import entity_lookup, entity_redirect_target, merge_undoable_for
from entities.services import (
    alias_add,
    entity_merge,
    entity_merge_undo,
    entity_store,
    fact_store,
    fact_update,
)
from integrity import services as integrity_services
from integrity.models import Contradiction
from kgsite.errors import Conflict, InvalidInput, NotFound
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db


def merge_all(graph, curator, **kwargs):
    return entity_merge(
        survivor=graph["survivor"],
        duplicates=[graph["dup"], graph["other"]],
        actor=curator,
        allow_cross_type=True,
        **kwargs,
    )


def test_preview_says_what_would_move_and_writes_nothing(graph, curator, snapshot):
    before = snapshot()
    outcome = merge_all(graph, curator, preview=True)
    assert outcome.merge is None
    assert snapshot() == before
    plan = outcome.plan.as_dict()
    assert plan["survivor"]["id"] == graph["survivor"].pk
    assert [d["id"] for d in plan["duplicates"]] == [graph["dup"].pk, graph["other"].pk]
    assert plan["moves"] == {
        "aliases": 2,
        "facts": 4,
        "mentions": 3,
        "recall": 0,
        "imported_ids": 0,
    }
    assert plan["new_aliases"] == ["Maggie Okonkwo", "Okonkwo"]
    kinds = {(c["kind"], c["value"]) for c in plan["conflicts"]}
    assert ("alias_dropped", "M. Okonkwo") in kinds
    assert ("fact_self_reference", graph["facts"]["knows"].pk) in kinds
    assert EntityMerge.objects.count() == 0


def test_merge_moves_everything_to_the_survivor(graph, curator):
    survivor, dup, other = graph["survivor"], graph["dup"], graph["other"]
    outcome = merge_all(graph, curator)
    merge = outcome.merge
    assert not Entity.objects.filter(pk__in=[dup.pk, other.pk]).exists()
    names = dict(Alias.objects.filter(entity=survivor).values_list("alias", "manual"))
    # The old canonical names become aliases; moved aliases keep their manual flag.
    assert names == {
        "M. Okonkwo": True,
        "Maggie Okonkwo": True,
        "Okonkwo": True,
        "Mags": False,
        "Maggie the Builder": True,
    }
    assert set(Alias.objects.filter(entity=survivor).values_list("type", flat=True)) == {"person"}
    roles = dict(EntityFact.objects.filter(entity=survivor).values_list("fact_id", "role"))
    facts = graph["facts"]
    assert roles[facts["born"].pk] == "subject"
    assert roles[facts["both"].pk] == "subject"  # the stronger of mention and subject
    assert roles[facts["only_other"].pk] == "mention"
    born = Fact.objects.get(pk=facts["born"].pk)
    knows = Fact.objects.get(pk=facts["knows"].pk)
    assert born.subject_id == survivor.pk
    assert knows.object_entity_id == survivor.pk
    mentions = {m.chunk_id: m for m in Mention.objects.filter(entity=survivor)}
    chunks = graph["chunks"]
    assert set(mentions) == {c.pk for c in chunks}
    assert mentions[chunks[0].pk].count == 5 and mentions[chunks[0].pk].mention_type == "defines"
    assert Mention.objects.count() == 3
    graph["suggestion"].refresh_from_db()
    assert graph["suggestion"].status == "merged"
    assert merge.duplicate_ids == [dup.pk, other.pk]
    audit = AuditEntry.objects.get(action="entity.merge")
    assert audit.actor == curator and audit.payload["merge"] == merge.pk


def test_old_names_and_ids_answer_the_survivor(graph, curator):
    merge_all(graph, curator)
    survivor = graph["survivor"]
    found = entity_lookup(name="maggie okonkwo")
    assert (found.match, found.entity.pk) == ("alias", survivor.pk)
    assert entity_redirect_target(entity_id=graph["dup"].pk) == survivor.pk
    assert entity_redirect_target(entity_id=survivor.pk) is None
    assert entity_redirect_target(entity_id="never-was") is None


def test_redirects_follow_a_later_merge(graph, curator):
    merge_all(graph, curator)
    final, _ = entity_store(name="Marguerite A. Okonkwo", type="person")
    entity_merge(survivor=final, duplicates=[graph["survivor"]], actor=curator)
    assert entity_redirect_target(entity_id=graph["dup"].pk) == final.pk


def test_undo_restores_every_row_exactly(graph, curator, snapshot):
    before = snapshot()
    merge = merge_all(graph, curator).merge
    assert snapshot() != before
    entity_merge_undo(merge=merge, actor=curator)
    after = snapshot()
    for model, rows in before.items():
        assert after[model] == rows, model  # same ids, names, types, flags, links, mentions
    assert not EntityRedirect.objects.exists()
    assert entity_redirect_target(entity_id=graph["dup"].pk) is None
    merge.refresh_from_db()
    assert merge.undone and merge.undone_by == curator
    assert AuditEntry.objects.filter(action="entity.merge_undo").count() == 1
    assert entity_lookup(name="Maggie Okonkwo").entity.pk == graph["dup"].pk


def test_undo_twice_is_refused(graph, curator):
    merge = merge_all(graph, curator).merge
    entity_merge_undo(merge=merge, actor=curator)
    with pytest.raises(Conflict, match="already undone"):
        entity_merge_undo(merge=merge, actor=curator)


def test_undo_refused_when_an_old_name_was_taken_since(graph, curator, snapshot):
    merge = merge_all(graph, curator).merge
    # Someone makes a new person with a duplicate's old name (its alias goes first).
    Alias.objects.filter(alias="Maggie Okonkwo").delete()
    entity_store(name="Maggie Okonkwo", type="person")
    before = snapshot()
    with pytest.raises(Conflict) as info:
        entity_merge_undo(merge=merge, actor=curator)
    assert "'Maggie Okonkwo' (person) now names another entity" in info.value.message
    assert info.value.extra["problems"]
    assert snapshot() == before  # nothing half-restored


def test_undo_refused_when_a_moved_fact_was_deleted_or_changed(graph, curator):
    merge = merge_all(graph, curator).merge
    Fact.objects.filter(pk=graph["facts"]["only_other"].pk).delete()
    with pytest.raises(Conflict) as info:
        entity_merge_undo(merge=merge, actor=curator)
    assert f"fact {graph['facts']['only_other'].pk} was deleted" in info.value.message


def test_undo_refused_when_the_book_was_reingested(graph, curator):
    merge = merge_all(graph, curator).merge
    Chunk.objects.filter(pk=graph["chunks"][1].pk).delete()  # its mentions go with it
    with pytest.raises(Conflict) as info:
        entity_merge_undo(merge=merge, actor=curator)
    assert "mentions in 'Bridges' changed since the merge" in " ".join(info.value.extra["problems"])


def test_undo_refused_when_the_survivor_is_gone(graph, curator):
    merge = merge_all(graph, curator).merge
    Entity.objects.filter(pk=graph["survivor"].pk).delete()
    merge.refresh_from_db()
    with pytest.raises(Conflict, match="no longer exists"):
        entity_merge_undo(merge=merge, actor=curator)


def test_cross_type_needs_the_flag(graph, curator):
    with pytest.raises(Conflict) as info:
        entity_merge(survivor=graph["survivor"], duplicates=[graph["other"]], actor=curator)
    assert info.value.field == "allow_cross_type"
    assert Entity.objects.filter(pk=graph["other"].pk).exists()


def test_bad_requests(graph, curator):
    survivor = graph["survivor"]
    with pytest.raises(InvalidInput) as info:
        entity_merge(survivor=survivor, duplicates=[survivor, graph["dup"]], actor=curator)
    assert info.value.field == "duplicates"
    with pytest.raises(InvalidInput):
        entity_merge(survivor=survivor, duplicates=[], actor=curator)
    ghost = Entity(pk="ghost0000000")
    with pytest.raises(NotFound):
        entity_merge(survivor=survivor, duplicates=[ghost], actor=curator)


def test_same_name_across_types_is_reported_not_aliased(db, curator):
    spell, _ = entity_store(name="Lantern Ward", type="spell")
    item, _ = entity_store(name="Lantern Ward", type="item")
    plan = entity_merge(
        survivor=spell, duplicates=[item], actor=curator, allow_cross_type=True
    ).plan
    assert plan.new_aliases == []
    assert entity_lookup(name="lantern ward").entity.pk == spell.pk


def test_moved_facts_are_saved_as_relinked_for_integrity(
    graph, curator, django_capture_on_commit_callbacks
):
    seen: list[tuple[int, str]] = []

    def record(fact_id, action):
        seen.append((fact_id, action))

    hooks.on_fact_saved(record)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            merge_all(graph, curator)
    finally:
        hooks._fact_saved.remove(record)
    relinked = {fact_id for fact_id, action in seen if action == "relinked"}
    assert relinked == {f.pk for f in graph["facts"].values()}


def test_undoable_merge_is_the_newest_not_undone(graph, curator):
    merge = merge_all(graph, curator).merge
    assert merge_undoable_for(entity=graph["survivor"]) == merge
    entity_merge_undo(merge=merge, actor=curator)
    assert merge_undoable_for(entity=graph["survivor"]) is None


def test_undo_after_an_unrelated_edit_still_works(graph, curator):
    merge = merge_all(graph, curator).merge
    fact_update(fact=graph["facts"]["born"], actor=curator, confidence=0.5)
    entity_merge_undo(merge=merge, actor=curator)
    assert Entity.objects.filter(pk=graph["dup"].pk).exists()


def test_undo_refused_when_an_old_name_became_another_entitys_alias(graph, curator):
    merge = merge_all(graph, curator).merge
    # "Okonkwo" was a character; another character now has it as an alias.
    narrator, _ = entity_store(name="The Narrator", type="character")
    alias_add(entity=narrator, alias="Okonkwo")
    with pytest.raises(Conflict) as info:
        entity_merge_undo(merge=merge, actor=curator)
    assert "'Okonkwo' is now an alias of 'The Narrator'" in info.value.extra["problems"]


def test_facts_that_now_contradict_reach_the_integrity_inbox(
    db, curator, monkeypatch, django_capture_on_commit_callbacks
):
    # Only the subject links make the two facts candidates of each other (no vectors).
    monkeypatch.setattr(integrity_services, "similar", lambda text, *, k, min_score: [])
    kept, _ = entity_store(name="Ilse Brandvik", type="person")
    dup, _ = entity_store(name="I. Brandvik", type="person")
    with django_capture_on_commit_callbacks(execute=True):
        fact_store(text="Brandvik was born in 1961.", subject=kept)
        fact_store(text="Brandvik was born in 1958.", subject=dup)
    assert not Contradiction.objects.exists()  # two people, as far as anyone knew
    with django_capture_on_commit_callbacks(execute=True):
        entity_merge(survivor=kept, duplicates=[dup], actor=curator)
    contradiction = Contradiction.objects.get()
    texts = {contradiction.fact_a.text, contradiction.fact_b.text}
    assert texts == {"Brandvik was born in 1961.", "Brandvik was born in 1958."}
