"""Merge and undo as rules over generated small worlds (Hypothesis).

Each example builds a handful of entities of two types with aliases (some clashing),
facts in every role and status, imported ids and duplicate suggestions, then merges a
random group (sometimes twice, the second survivor absorbing the first) and undoes the
merges newest first. The rules a curator relies on:

* a preview writes nothing and announces what the merge then does (facts, imported ids);
  after a merge nothing points at a merged-away id, every old id redirects to the
  survivor, and each old name or alias either names the survivor or is reported;
* undoing the merges restores every row exactly (ids, names, flags, aliases, links and
  roles, subjects and objects, confirmation counts, imported ids, suggestions) and
  leaves no redirect.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from entities.models import (
    Alias,
    DuplicateSuggestion,
    Entity,
    EntityFact,
    EntityRedirect,
    ExternalEntityId,
    Fact,
)
from entities.selectors import entity_by_external_id, entity_redirect_target
from entities.services import entity_merge, entity_merge_undo
from kgsite.text import normalize

from .conftest import _rows

TYPES = ("person", "place", "")
NAMES = ("Orla Vance", "Piet Marsh", "Quen Aldo", "Rhee Tamsin", "Sova Imre")
# Alias pool: shared nicknames (clash across entities) and the entities' own names.
ALIASES = ("Doc", "the Elder", "O. Vance", "Marsh", *NAMES[:2])
ROLES = [r.value for r in EntityFact.Role]
STATUSES = [s.value for s in Fact.Status][:3]


def snapshot() -> dict:
    models = (Entity, Alias, EntityFact, Fact, ExternalEntityId, DuplicateSuggestion)
    state = {m.__name__: _rows(m) for m in models}
    state["redirects"] = dict(EntityRedirect.objects.values_list("old_id", "target_id"))
    return state


fact_spec = st.fixed_dictionaries(
    {
        "subject": st.none() | st.integers(0, 4),
        "object": st.none() | st.integers(0, 4),
        "links": st.lists(st.tuples(st.integers(0, 4), st.sampled_from(ROLES)), max_size=3),
        "status": st.sampled_from(STATUSES),
        "confirmations": st.integers(1, 4),
        "scope": st.sampled_from(["", "alpha"]),
    }
)

world_spec = st.fixed_dictionaries(
    {
        "types": st.lists(st.sampled_from(TYPES), min_size=3, max_size=5),
        "flags": st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 9)), max_size=5),
        "aliases": st.lists(
            st.tuples(st.integers(0, 4), st.sampled_from(ALIASES), st.booleans()), max_size=6
        ),
        "facts": st.lists(fact_spec, max_size=5),
        "external": st.lists(st.integers(0, 4), max_size=3),
        "suggestions": st.lists(
            st.tuples(
                st.integers(0, 4), st.integers(0, 4), st.sampled_from(["pending", "dismissed"])
            ),
            max_size=3,
        ),
        "first": st.tuples(st.integers(0, 4), st.lists(st.integers(0, 4), min_size=1, max_size=3)),
        "second": st.none() | st.tuples(st.integers(0, 4), st.integers(0, 4)),
    }
)


def build(spec: dict) -> list[Entity]:
    entities = []
    for i, entity_type in enumerate(spec["types"]):
        curated, candidate, evidence = (spec["flags"] + [(False, False, 0)] * 5)[i]
        entities.append(
            Entity.objects.create(
                canonical_name=NAMES[i],
                name_norm=normalize(NAMES[i]),
                type=entity_type,
                description=f"description {i}",
                curated=curated,
                candidate=candidate,
                evidence=evidence,
            )
        )
    n = len(entities)
    for i, alias, manual in spec["aliases"]:
        owner = entities[i % n]
        norm = normalize(alias)
        taken = Alias.objects.filter(alias_norm=norm, type=owner.type).exists()
        named = Entity.objects.filter(name_norm=norm, type=owner.type).exists()
        if not taken and not named:
            Alias.objects.create(
                entity=owner, alias=alias, alias_norm=norm, type=owner.type, manual=manual
            )
    for k, f in enumerate(spec["facts"]):
        subject = entities[f["subject"] % n] if f["subject"] is not None else None
        obj = entities[f["object"] % n] if subject and f["object"] is not None else None
        fact = Fact.objects.create(
            text=f"statement {k}",
            text_norm=f"statement {k}",
            subject=subject,
            predicate="works with" if obj else "",
            object_entity=obj,
            status=f["status"],
            confirmations=f["confirmations"],
            scope=f["scope"],
        )
        links = {}
        if subject:
            links[subject.pk] = "subject"
        if obj:
            links.setdefault(obj.pk, "object")
        for i, role in f["links"]:
            links.setdefault(entities[i % n].pk, role)
        EntityFact.objects.bulk_create(
            [EntityFact(entity_id=pk, fact=fact, role=role) for pk, role in links.items()]
        )
    for k, i in enumerate(spec["external"]):
        ExternalEntityId.objects.create(store="old.db", external_id=f"x{k}", entity=entities[i % n])
    for i, j, status in spec["suggestions"]:
        a, b = sorted([entities[i % n].pk, entities[j % n].pk])
        if a != b:
            DuplicateSuggestion.objects.get_or_create(
                pair_key=f"{a}|{b}",
                defaults={"entity_a_id": a, "entity_b_id": b, "score": 0.7, "status": status},
            )
    return entities


def pointers_to(ids: list[str]) -> int:
    """Rows that still name a merged-away id."""
    return (
        Alias.objects.filter(entity_id__in=ids).count()
        + EntityFact.objects.filter(entity_id__in=ids).count()
        + Fact.objects.filter(subject_id__in=ids).count()
        + Fact.objects.filter(object_entity_id__in=ids).count()
        + ExternalEntityId.objects.filter(entity_id__in=ids).count()
    )


class MergeThenUndo(TestCase):
    """Each example runs in its own transaction (Hypothesis' Django test case)."""

    @given(world_spec)
    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    def test_merges_then_undos_newest_first_are_the_identity(self, spec):
        self._example(spec)

    def _example(self, spec: dict) -> None:
        entities = build(spec)
        n = len(entities)
        before = snapshot()
        survivor = entities[spec["first"][0] % n]
        duplicates = [entities[i % n] for i in spec["first"][1] if entities[i % n] != survivor]
        if not duplicates:
            return
        external = dict(ExternalEntityId.objects.values_list("external_id", "entity_id"))
        gone = [d.pk for d in duplicates]
        kwargs = {"survivor": survivor, "duplicates": duplicates, "allow_cross_type": True}
        preview = entity_merge(actor=None, preview=True, **kwargs).plan.as_dict()
        assert snapshot() == before  # a preview writes nothing
        touched = {
            *EntityFact.objects.filter(entity_id__in=gone).values_list("fact_id", flat=True),
            *Fact.objects.filter(subject_id__in=gone).values_list("pk", flat=True),
            *Fact.objects.filter(object_entity_id__in=gone).values_list("pk", flat=True),
        }
        assert preview["moves"]["facts"] == len(touched)
        assert preview["moves"]["imported_ids"] == sum(v in gone for v in external.values())
        merges = [entity_merge(actor=None, **kwargs).merge]
        assert merges[0].state["plan"] == preview  # the merge did what the preview said
        assert pointers_to(gone) == 0
        assert not Entity.objects.filter(pk__in=gone).exists()
        for pk in gone:
            assert entity_redirect_target(entity_id=pk) == survivor.pk
        for external_id, owner in external.items():
            expected = survivor.pk if owner in gone else owner
            assert entity_by_external_id(external_id).pk == expected
        names = {
            *Alias.objects.filter(entity=survivor).values_list("alias_norm", flat=True),
            survivor.name_norm,
        }
        reported = {c["value"] for c in merges[0].state["plan"]["conflicts"]}
        for d in duplicates:
            assert d.name_norm in names or d.canonical_name in reported
        if spec["second"] is not None:
            left = [e for e in entities if e.pk not in gone]
            final = left[spec["second"][0] % len(left)]
            if final != survivor:
                merges.append(
                    entity_merge(
                        survivor=final, duplicates=[survivor], actor=None, allow_cross_type=True
                    ).merge
                )
                for pk in gone:
                    assert entity_redirect_target(entity_id=pk) == final.pk
        for merge in reversed(merges):
            entity_merge_undo(merge=merge, actor=None)
            # The first merge's survivor is its survivor again once the second is undone.
            merges[0].refresh_from_db()
            assert merges[0].survivor_id == survivor.pk
        after = snapshot()
        for key, rows in before.items():
            assert after[key] == rows, key
