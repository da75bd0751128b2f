"""Machine writes, rule by rule: bulk ensure is idempotent, garbage
collection spares whatever something holds on to, candidates are marked and confirmed,
duplicate suggestions keep a curator's decisions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from entities import hooks
from entities.duplicates import MIN_SCORE, Candidates, pair_of
from entities.models import Alias, DuplicateSuggestion, Entity, Fact
from entities.services import (
    EntityDraft,
    duplicate_dismiss,
    duplicate_suggestions_store,
    entities_candidates_confirm,
    entities_candidates_mark,
    entities_ensure,
    entity_gc,
    entity_store,
    fact_link,
)
from kgsite.errors import Conflict
from kgsite.models import AuditEntry, audit
from kgsite.text import normalize

# --- bulk ensure ---------------------------------------------------------------------------

SPELLINGS = ("Harbour Gate", "harbour gate", "HARBOUR  GATE", "Salt Row", "salt row", "Keel")
draft = st.builds(
    EntityDraft,
    st.sampled_from(SPELLINGS),
    st.sampled_from(("place", "Place", "street", "")),
    st.lists(st.sampled_from(("the Gate", "Keel", "Row")), max_size=2).map(tuple),
)


class EnsureIsIdempotent(TestCase):
    @given(st.lists(draft, max_size=8))
    @settings(max_examples=25, deadline=None)
    def test_ensuring_twice_creates_once_and_maps_each_key_to_its_entity(self, drafts):
        first = entities_ensure(drafts=drafts, source="t")
        count = Entity.objects.count()
        second = entities_ensure(drafts=drafts, source="t")
        assert second.created == [] and second.ids == first.ids
        assert Entity.objects.count() == count == len(first.ids)
        keys = {(normalize(d.name), d.type.strip().lower()) for d in drafts}
        assert set(first.ids) == keys
        for (norm, entity_type), pk in first.ids.items():
            entity = Entity.objects.get(pk=pk)
            assert (entity.name_norm, entity.type) == (norm, entity_type)
        # An alias never shadows a name or another alias of its type.
        for alias in Alias.objects.all():
            assert not Entity.objects.filter(name_norm=alias.alias_norm, type=alias.type).exists()
        created_rows = AuditEntry.objects.filter(action="entity.bulk_create")
        assert created_rows.count() == (1 if first.created else 0)


@pytest.mark.django_db
def test_ensure_adds_the_aliases_read_with_new_entities_only():
    old, _ = entity_store(name="Harbour Gate", type="place")
    result = entities_ensure(
        drafts=[
            EntityDraft("Harbour Gate", "place", ("the Gate",)),
            EntityDraft("Salt Row", "place", ("the Row", "Salt Row")),
        ],
        source="book:1",
    )
    assert not Alias.objects.filter(entity=old).exists()  # a curator's entity is left alone
    row = Entity.objects.get(pk=result.ids[("salt row", "place")])
    assert list(row.aliases.values_list("alias", "manual")) == [("the Row", False)]


@pytest.mark.django_db
def test_an_alias_read_with_a_new_entity_never_shadows_another_entitys_name():
    keel, _ = entity_store(name="Keel", type="place")
    result = entities_ensure(
        drafts=[
            EntityDraft("Harbour Gate", "place", ("Keel", "Salt Row", "Dock Nine")),
            EntityDraft("Salt Row", "place"),
        ],
        source="book:1",
    )
    gate = Entity.objects.get(pk=result.ids[("harbour gate", "place")])
    # "Keel" names a stored place and "Salt Row" one made in the same batch: as with
    # alias_add, neither may become Harbour Gate's alias.
    assert list(gate.aliases.values_list("alias", flat=True)) == ["Dock Nine"]
    entities_candidates_mark(evidence={gate.pk: 2}, aliases={gate.pk: ["Keel"]}, source="t")
    assert list(gate.aliases.values_list("alias", flat=True)) == ["Dock Nine"]
    assert keel.aliases.count() == 0


# --- garbage collection -------------------------------------------------------------------


def _linked(e):
    fact_link(fact=Fact.objects.create(text="a", text_norm="a"), entity=e)


def _subject(e):
    Fact.objects.create(text="b", text_norm="b", subject=e)


def _object(e):
    other, _ = entity_store(name="Someone Else", type="place")
    Fact.objects.create(text="c", text_norm="c", subject=other, object_entity=e)


def _manual_alias(e):
    Alias.objects.create(entity=e, alias="Gate", alias_norm="gate", type=e.type, manual=True)


def _curated(e):
    Entity.objects.filter(pk=e.pk).update(curated=True)


def _audited(e):
    audit(actor=None, action="entity.update", target=e, payload={})


def _machine_alias(e):
    Alias.objects.create(entity=e, alias="Gate", alias_norm="gate", type=e.type, manual=False)


def _nothing(e):
    pass


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("hold", "kept"),
    [
        (_linked, True),
        (_subject, True),
        (_object, True),
        (_manual_alias, True),
        (_curated, True),
        (_audited, True),
        (_machine_alias, False),
        (_nothing, False),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_gc_spares_an_entity_something_holds_on_to(hold, kept):
    pk = entities_ensure(drafts=[EntityDraft("Harbour Gate", "place")], source="t").created[0]
    hold(Entity.objects.get(pk=pk))
    removed = entity_gc(entity_ids=[pk], source="book:1")
    assert Entity.objects.filter(pk=pk).exists() == kept
    assert removed == ([] if kept else [pk])
    assert AuditEntry.objects.filter(action="entity.gc").count() == (0 if kept else 1)


@pytest.mark.django_db
def test_gc_twice_or_of_unknown_ids_removes_nothing_more():
    ids = entities_ensure(
        drafts=[EntityDraft(n, "place") for n in ("Keel", "Salt Row")], source="t"
    ).created
    assert sorted(entity_gc(entity_ids=[*ids, *ids], source="t")) == sorted(ids)
    assert entity_gc(entity_ids=ids, source="t") == []
    assert entity_gc(entity_ids=["nobody000000"], source="t") == []
    assert AuditEntry.objects.filter(action="entity.gc").count() == 1


@pytest.mark.django_db
def test_gc_asks_other_apps_only_about_what_nothing_here_holds():
    ids = entities_ensure(
        drafts=[EntityDraft(n, "place") for n in ("Keel", "Salt Row")], source="t"
    ).created
    _subject(Entity.objects.get(pk=ids[0]))
    asked: list[list[str]] = []
    referrer = hooks.entity_referrers(lambda batch: asked.append(sorted(batch)) or set())
    try:
        entity_gc(entity_ids=ids, source="t")
    finally:
        hooks._entity_referrers.remove(referrer)
    assert asked == [[ids[1]]]


# --- candidates ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_candidates_are_marked_with_evidence_and_confirmed_once():
    ids = entities_ensure(
        drafts=[EntityDraft(n, "place") for n in ("Keel", "Salt Row")], source="t"
    ).created
    keel, row = ids
    entities_candidates_mark(evidence={keel: 3}, aliases={keel: ["The Keel", ""]}, source="t")
    entity = Entity.objects.get(pk=keel)
    assert (entity.candidate, entity.evidence) == (True, 3)
    assert list(entity.aliases.values_list("alias", "manual")) == [("The Keel", False)]
    assert entities_candidates_confirm(entity_ids=[keel, row], source="curator") == 1
    assert not Entity.objects.get(pk=keel).candidate
    assert entities_candidates_confirm(entity_ids=[keel], source="curator") == 0
    [entry] = AuditEntry.objects.filter(action="entity.candidate_confirm")
    assert entry.payload == {"source": "curator", "ids": [keel]}


# --- duplicate suggestions ----------------------------------------------------------------


def found(*pairs: tuple[Entity, Entity, float]) -> Candidates:
    candidates = Candidates()
    for a, b, score in pairs:
        candidates.add(a.pk, b.pk, {"kind": "token_similarity", "score": score}, None)
    return candidates


@pytest.fixture
def three(db):
    return [entity_store(name=n, type="person")[0] for n in ("Ena Holt", "E. Holt", "Ena Holte")]


def suggestion(a, b) -> DuplicateSuggestion | None:
    return DuplicateSuggestion.objects.filter(pair_key="|".join(pair_of(a.pk, b.pk))).first()


def status(a, b) -> str | None:
    row = suggestion(a, b)
    return row.status if row else None


def test_a_scan_stores_new_pairs_refreshes_pending_ones_and_ignores_weak_ones(three):
    a, b, c = three
    stats = duplicate_suggestions_store(candidates=found((a, b, 0.9), (a, c, MIN_SCORE / 2)))
    assert (stats["created"], status(a, b), status(a, c)) == (1, "pending", None)
    again = duplicate_suggestions_store(candidates=found((a, b, 0.9)))
    assert (again["created"], again["updated"]) == (0, 0)
    stronger = duplicate_suggestions_store(candidates=found((a, b, 0.95)))
    assert stronger["updated"] == 1
    assert DuplicateSuggestion.objects.get().score == 0.95


def test_a_curators_decision_survives_every_later_scan(three, curator):
    a, b, c = three
    duplicate_suggestions_store(candidates=found((a, b, 0.9), (a, c, 0.9)))
    duplicate_dismiss(suggestion=suggestion(a, b), actor=curator)
    stats = duplicate_suggestions_store(candidates=found((a, b, 0.99), (a, c, 0.9)))
    assert stats["kept_decided"] == 1
    assert status(a, b) == "dismissed"
    # A pair no longer found is withdrawn; a decided one never is.
    stats = duplicate_suggestions_store(candidates=found())
    assert stats["withdrawn"] == 1
    assert (status(a, b), status(a, c)) == ("dismissed", None)


def test_a_focused_scan_withdraws_only_pairs_of_its_entities(three):
    a, b, c = three
    duplicate_suggestions_store(candidates=found((a, b, 0.9), (b, c, 0.9)))
    stats = duplicate_suggestions_store(candidates=found(), entity_ids=[a.pk])
    assert stats["withdrawn"] == 1
    assert (status(a, b), status(b, c)) == (None, "pending")


def test_dismissing_twice_is_one_decision_and_a_merged_pair_cannot_be_dismissed(three, curator):
    a, b, _c = three
    duplicate_suggestions_store(candidates=found((a, b, 0.9)))
    row = DuplicateSuggestion.objects.get()
    duplicate_dismiss(suggestion=row, actor=curator)
    duplicate_dismiss(suggestion=row, actor=curator)
    assert AuditEntry.objects.filter(action="duplicate.dismiss").count() == 1
    DuplicateSuggestion.objects.update(status="merged")
    with pytest.raises(Conflict, match="already merged"):
        duplicate_dismiss(suggestion=row, actor=curator)
