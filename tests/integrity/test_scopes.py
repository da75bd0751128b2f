"""Contradiction candidates stay within a project plus global memory."""

from __future__ import annotations

import pytest

from entities import services
from integrity.services import fact_candidates

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_projects_fact_is_compared_with_its_project_and_global_memory(vector_dir):
    lyon, _ = services.entity_store(name="Lyon office", type="place")
    facts = {}
    for scope in ("alpha", "beta", ""):
        facts[scope] = services.fact_store(
            text=f"The Lyon office opens at {8 + len(scope) % 3} am ({scope or 'global'})",
            subject=lyon,
            scope=scope,
        ).fact
    alpha = fact_candidates(fact=facts["alpha"])
    assert facts[""].pk in alpha and facts["beta"].pk not in alpha
    # A global fact is checked against every project.
    assert {facts["alpha"].pk, facts["beta"].pk} <= set(fact_candidates(fact=facts[""]))
