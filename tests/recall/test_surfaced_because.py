"""What ``surfaced_because`` says of a memory shown below the scorer's threshold: free
recall and pre-check show their most probable memories whatever their probability, and
the reason said "relevance 0.06 ≥ 0.80" of them, a comparison that does not hold."""

from __future__ import annotations

import json
import re

import pytest
from rest_framework.test import APIClient

from entities import services
from entities.recall import scorer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def doubtful_scorer(tmp_path, settings):
    """A stored model whose heads find every memory improbable (0.007 < 0.5)."""
    head = {"features": ["cosine"], "coef": [0.0], "intercept": -5.0, "threshold": 0.5}
    path = tmp_path / "model.json"
    path.write_text(
        json.dumps(
            {
                "embedder": scorer.model_signature(),
                "heads": {"query": head, "pre_check": head},
            }
        )
    )
    settings.KGSITE_RECALL_MODEL = str(path)
    scorer.model_clear()
    yield
    scorer.model_clear()


def comparisons_hold(items) -> list[str]:
    reasons = [i["surfaced_because"] for i in items]
    for reason in reasons:
        for low, high in re.findall(r"relevance ([0-9.]+) ≥ ([0-9.]+)", reason):
            assert float(low) >= float(high), reason
    return reasons


def test_a_memory_shown_below_the_threshold_is_not_said_to_clear_it(
    vector_dir, reader, doubtful_scorer
):
    for text in (
        "The billing export writes CSV files every night",
        "The billing export retries three times",
        "The billing export runs on the reporting replica",
    ):
        services.fact_store(text=text)
    services.fact_store(text="The billing export once filled the disk", kind="mistake")
    client = APIClient()
    client.force_authenticate(reader)
    query = client.post("/api/v1/recall", {"query": "billing export"}, format="json").json()
    assert query["options"]["scorer"] == "query"
    reasons = comparisons_hold(query["items"])
    assert any("among the 3 most probable" in r for r in reasons), reasons
    check = client.post(
        "/api/v1/recall/pre-check", {"action": "billing export"}, format="json"
    ).json()
    reasons = comparisons_hold(check["mistakes"])
    assert reasons and "among the 2 most probable" in reasons[0], reasons


def test_a_pattern_shown_for_its_domain_below_the_threshold_says_so(
    vector_dir, reader, settings, tmp_path
):
    head = {"features": ["cosine"], "coef": [0.0], "intercept": -5.0, "threshold": 0.5}
    path = tmp_path / "domain.json"
    path.write_text(json.dumps({"embedder": scorer.model_signature(), "heads": {"domain": head}}))
    settings.KGSITE_RECALL_MODEL = str(path)
    scorer.model_clear()
    try:
        services.fact_store(text="Billing retries wait an hour", kind="pattern", domain="billing")
        client = APIClient()
        client.force_authenticate(reader)
        body = {"tool": "billing_refund", "arguments": {"order": "42"}}
        answer = client.post("/api/v1/recall/domain", body, format="json").json()
    finally:
        scorer.model_clear()
    reasons = comparisons_hold(answer["patterns"])
    assert reasons and "a pattern of a domain the call touches" in reasons[0], reasons


def test_a_pattern_stored_without_a_domain_is_said_to_be_of_none(
    vector_dir, reader, settings, tmp_path
):
    head = {"features": ["cosine"], "coef": [0.0], "intercept": 5.0, "threshold": 0.5}
    path = tmp_path / "domain.json"
    path.write_text(json.dumps({"embedder": scorer.model_signature(), "heads": {"domain": head}}))
    settings.KGSITE_RECALL_MODEL = str(path)
    scorer.model_clear()
    try:
        services.fact_store(text="Refund calls are retried once", kind="pattern")
        client = APIClient()
        client.force_authenticate(reader)
        body = {"tool": "refund", "arguments": {"order": "42"}}
        answer = client.post("/api/v1/recall/domain", body, format="json").json()
    finally:
        scorer.model_clear()
    reasons = [p["surfaced_because"] for p in answer["patterns"]]
    assert reasons and reasons[0].startswith("pattern of no domain for this call"), reasons
