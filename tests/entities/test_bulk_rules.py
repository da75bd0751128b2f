"""Machine writes and curator edits, rule by rule: bulk ensure is idempotent, garbage
collection spares whatever something holds on to, candidates are marked and confirmed,
duplicate suggestions keep a curator's decisions, fact edits change only what they say."""

from __future__ import annotations

import pytest

from entities.models import Entity
from entities.services import (
    EntityDraft,
    entities_candidates_mark,
    entities_ensure,
    entity_store,
)


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
