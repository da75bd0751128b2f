"""Logging a finding (``POST /recall/finding`` with ``log: true``): who may, and what is
stored: a memory of its own kind, with the fields that kind carries."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from entities.models import Fact
from tests.recall.test_recall_api import post, store

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client(vector_dir, reader) -> APIClient:
    """A reader's client: memory is private by default."""
    api = APIClient()
    api.force_authenticate(reader)
    return api


def test_a_finding_of_another_kind_is_logged_as_its_own_kind(client, curator_api, vector_dir):
    """A duplicate is confirmed only within its own kind: a decision that turned out to
    be a mistake, or the resolution of an open unknown, was folded into the decision or
    the open unknown (the mistake never warned, the resolution was lost)."""
    decision = store("We deploy the billing API on Fridays", kind="decision", scope="shop")
    unknown = store("Why do billing logins fail after midnight", kind="unknown", scope="shop")
    checked = post(client, "/finding", text=decision.text, kind="mistake", scope="shop")
    assert checked["action"] == "create_new", checked
    for text, fields in [
        (decision.text, {"kind": "mistake"}),
        (unknown.text, {"kind": "resolved_unknown", "resolved_by": "the session cache expired"}),
    ]:
        logged = curator_api.post(
            "/api/v1/recall/finding",
            {"text": text, "scope": "shop", "log": True, **fields},
            format="json",
        ).json()
        assert logged["logged"] == "created" and logged["fact"]["kind"] == fields["kind"]
    decision.refresh_from_db()
    unknown.refresh_from_db()
    assert decision.confirmations == 1 and unknown.confirmations == 1
    answer = post(client, "/unknown", text=unknown.text, scope="shop")
    assert answer["already_resolved"]["resolution"] == "the session cache expired"


def test_a_pattern_finding_is_logged_with_its_domain(client, curator_api, vector_dir):
    """A pattern is found by its domain before a tool call; logged through the finding
    trigger it had none (the field was refused), so the domain trigger never showed it."""
    body = {"text": "Billing exports must run on the replica", "kind": "pattern",
            "domain": "Billing", "scope": "shop", "log": True}  # fmt: skip
    logged = curator_api.post("/api/v1/recall/finding", body, format="json")
    assert logged.status_code == 200, logged.json()
    assert logged.json()["fact"]["domain"] == "billing"
    shown = post(client, "/domain", tool="billing_export_run", scope="shop", min_confidence=0)
    assert [p["text"] for p in shown["patterns"]] == [body["text"]]
    wrong = curator_api.post(
        "/api/v1/recall/finding", {**body, "kind": "fact", "text": "Other"}, format="json"
    )
    assert wrong.status_code == 400 and wrong.json()["error"]["field"] == "domain"


def test_logging_a_finding_without_credentials_asks_for_them(vector_dir, settings):
    """A public site opens the finding check to anyone; logging it needs a curator, and
    a caller who sent no credentials is told to authenticate (401), as every other
    write answers, not that it is forbidden."""
    settings.KGSITE_PUBLIC_READ = True
    anonymous = APIClient()
    body = {"text": "The export retries three times", "log": True}
    response = anonymous.post("/api/v1/recall/finding", body, format="json")
    assert response.status_code == 401, response.json()
    assert response.json()["error"]["code"] == "not_authenticated"
    assert "WWW-Authenticate" in response
    assert not Fact.objects.exists()


@pytest.mark.parametrize("key", ["ai_id", "session_id"])
def test_a_key_with_a_control_character_is_refused_without_log_too(client, vector_dir, key):
    """As with log, and as every recall call refuses one: it answered 200."""
    body = {"text": "The export runs at night", key: "agent\nsecond line"}
    response = client.post("/api/v1/recall/finding", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == key


def test_a_goal_set_again_after_it_was_done_is_active_again(client, curator_api, vector_dir):
    """The done goal was confirmed instead: the goal stayed done, the status asked for
    was dropped, and session start said there was no active goal."""
    done = store("Launch the public beta of the mobile app", kind="goal", goal_status="done")
    body = {"text": "Launch the public beta of the mobile app", "kind": "goal"}
    assert post(client, "/finding", **body)["action"] == "create_new"
    logged = post(curator_api, "/finding", **body, log=True)
    assert logged["logged"] == "created" and logged["fact"]["goal_status"] == "active"
    done.refresh_from_db()
    assert done.goal_status == "done" and done.confirmations == 1
    start = post(client, "/session-start")
    assert [g["goal"]["id"] for g in start["goals"]] == [logged["fact"]["id"]]


@pytest.mark.parametrize(
    ("extra", "field"),
    [({"resolved_by": "the cache was cold"}, "resolved_by"), ({"domain": "db"}, "domain")],
)
def test_a_field_the_kind_cannot_carry_is_refused_without_log_too(client, vector_dir, extra, field):
    """With log it is a 400 naming the field; without, the same request answered 200."""
    body = {"text": "The export runs at night", "kind": "decision", **extra}
    response = client.post("/api/v1/recall/finding", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_a_projects_finding_never_confirms_global_memory(curator_api, vector_dir):
    """A finding logged in a project that restated a global fact raised that fact's
    confidence and confirmations: one project's write changed what every project reads.
    The global fact is still shown (the agent learns it is known), and the project gets
    its own fact, which its next finding confirms."""
    from entities.mcp.server import mcp_server_build
    from entities.mcp.tools import ToolContext
    from tests.recall.test_mcp import call

    shared = store("The Quarry Dell mill grinds barley every Tuesday")
    before = (shared.confidence, shared.confirmations)
    asked = {"text": shared.text, "scope": "shop", "log": True, "confidence": 0.9}
    logged = post(curator_api, "/finding", **asked)
    assert logged["existing_fact"]["id"] == shared.pk, logged
    assert logged["existing_fact"]["scope"] == ""
    assert (logged["action"], logged["logged"]) == ("create_new", "created")
    assert logged["fact"]["scope"] == "shop" and logged["fact"]["id"] != shared.pk
    again = post(curator_api, "/finding", **asked)
    assert (again["action"], again["logged"]) == ("boost_confidence", "confirmed")
    assert again["fact"]["id"] == logged["fact"]["id"]
    error, tool = call(mcp_server_build(ToolContext(scope="cafe")), "recall_finding",
                       {"text": shared.text, "log": True})  # fmt: skip
    assert not error, tool
    assert (tool["action"], tool["logged"], tool["fact"]["scope"]) == ("create_new", "created",
                                                                       "cafe")  # fmt: skip
    shared.refresh_from_db()
    assert (shared.confidence, shared.confirmations) == before
