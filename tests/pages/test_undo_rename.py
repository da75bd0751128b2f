"""Undoing an entity's rename from the audit log puts back what the rename took away: a
rename to one of its own aliases drops that alias (it would only repeat the name), and
the undo gives it back, so the alias finds the entity again."""

from __future__ import annotations

import pytest

from entities.selectors import entity_lookup
from entities.services import alias_add, entity_store, entity_update
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db


def test_undoing_a_rename_to_an_alias_gives_the_alias_back(curator_client, curator):
    mill = entity_store(name="Quarry Dell Mill", type="place")[0]
    alias_add(entity=mill, alias="Old Barley Mill", actor=curator)
    entity_update(entity=mill, actor=curator, canonical_name="old barley mill")
    assert list(mill.aliases.values_list("alias", flat=True)) == []
    entry = AuditEntry.objects.filter(action="entity.update").get()

    response = curator_client.post(f"/audit/{entry.pk}/undo")
    assert response.status_code == 302
    mill.refresh_from_db()
    assert mill.canonical_name == "Quarry Dell Mill"
    assert list(mill.aliases.values_list("alias", flat=True)) == ["Old Barley Mill"]
    found = entity_lookup(name="OLD BARLEY MILL")
    assert (found.match, found.entity.pk) == ("alias", mill.pk)
