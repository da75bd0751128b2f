"""validate_knowledge never answers "valid" against what memory says: a triple that a
stored fact contradicts (the same statement retracted) and none supports is
"contradicted", whatever the model's score; the model's own label stays visible."""

from __future__ import annotations

import pytest

from entities.graph.edges import edges_rebuild
from entities.services import fact_update

from .worlds import scoped_world

pytestmark = pytest.mark.django_db


def test_a_retracted_triple_is_contradicted_not_valid(api, vector_dir):
    world = scoped_world()
    fact = world["facts"][""][3]  # "Quillon 0 works for Ostravel", global
    triple = {"subject": fact.subject_id, "predicate": "works for", "object": fact.object_entity_id}
    before = api.post("/api/v1/kge/validate", triple, format="json").json()
    assert before["known"] and before["supporting_facts"] == [fact.pk]
    assert before["validation"] == before["model_validation"]
    fact_update(fact=fact, actor=None, status="retracted")
    edges_rebuild()
    after = api.post("/api/v1/kge/validate", triple, format="json").json()
    assert after["known"] and after["model"] == before["model"]
    assert after["transe_score"] == before["transe_score"]  # the model did not change
    assert after["supporting_facts"] == [] and after["contradicting_facts"] == [fact.pk]
    assert after["validation"] == "contradicted"
