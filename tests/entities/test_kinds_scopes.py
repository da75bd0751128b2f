"""Fact kinds with their own fields, and project scopes on writes."""

from __future__ import annotations

import pytest

from entities import services
from entities.models import Fact

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"kind": "resolved_unknown"}, "resolved_by"),
        ({"kind": "fact", "resolved_by": "restarted it"}, "resolved_by"),
        ({"kind": "fact", "goal_status": "done"}, "goal_status"),
        ({"kind": "goal", "goal_status": "finished"}, "goal_status"),
        ({"kind": "decision", "domain": "db"}, "domain"),
        ({"kind": "lesson"}, "kind"),
        ({"scope": "x" * 129}, "scope"),
        ({"scope": "bad\x00scope"}, "scope"),
    ],
)
def test_kind_fields_are_checked_and_named(curator_api, fields, field):
    response = curator_api.post("/api/v1/facts/", {"text": "Some note", **fields}, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["field"] == field
    assert Fact.objects.count() == 0


def test_a_goal_starts_active_and_is_marked_done(curator_api):
    created = curator_api.post(
        "/api/v1/facts/", {"text": "Ship v2", "kind": "goal", "scope": "shop"}, format="json"
    ).json()["fact"]
    assert (created["kind"], created["goal_status"], created["scope"]) == ("goal", "active", "shop")
    done = curator_api.patch(
        f"/api/v1/facts/{created['id']}/", {"goal_status": "done"}, format="json"
    )
    assert done.json()["goal_status"] == "done"


def test_an_unknown_is_resolved_by_a_patch_naming_the_resolution(curator_api):
    fact = services.fact_store(text="Where do backups go", kind="unknown").fact
    bad = curator_api.patch(
        f"/api/v1/facts/{fact.pk}/", {"kind": "resolved_unknown"}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "resolved_by"
    ok = curator_api.patch(
        f"/api/v1/facts/{fact.pk}/",
        {"kind": "resolved_unknown", "resolved_by": "To the cold bucket"},
        format="json",
    )
    assert ok.json()["resolved_by"] == "To the cold bucket"


def test_the_same_text_in_two_projects_is_two_facts_and_confirms_only_its_own():
    alpha = services.fact_store(text="Deploys run at noon", scope="alpha")
    beta = services.fact_store(text="Deploys run at noon", scope="beta")
    assert (alpha.action, beta.action) == ("created", "created")
    again = services.fact_store(text="deploys run at noon", scope="beta")
    assert again.action == "confirmed" and again.fact.pk == beta.fact.pk
    as_decision = services.fact_store(text="Deploys run at noon", scope="beta", kind="decision")
    assert as_decision.action == "created"
