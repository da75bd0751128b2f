"""An MCP answer stays small whatever the memory holds: an entity's fact ids are the
newest hundred, with the total, not every fact it has ever had."""

from __future__ import annotations

import pytest

from entities.mcp import tools
from entities.services import entity_create, fact_store

pytestmark = pytest.mark.django_db


def test_entity_get_answers_at_most_a_hundred_fact_ids_and_their_total(vector_dir):
    lamp = entity_create(name="Harrow Lamp", type="product", actor=None)
    ids = [
        fact_store(text=f"Harrow Lamp batch {i} shipped in week {i}.", entities=[lamp]).fact.pk
        for i in range(tools.MAX_LIST + 5)
    ]
    answer = tools.entity_get(tools.ToolContext(), name="Harrow Lamp")
    assert answer["facts_total"] == len(ids)
    assert answer["facts"] == ids[-tools.MAX_LIST :]  # the newest, as facts_list answers
    assert [f["id"] for f in answer["fact_texts"]] == answer["facts"]
    assert answer["external_facts"] == [] and answer["external_facts_total"] == 0
