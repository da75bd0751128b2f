"""The endpoints that read through a POST (search, extraction, the pair check, recall,
the graph) refuse a field they do not take, by name, listing the ones they do, as the
MCP tools and the write bodies do. A misspelt option was dropped without a word: "topk"
answered ten results instead of three, "include_unknown" left the unknown names out,
"language" let the pair check guess."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

MISSPELT = [
    ("/api/v1/search/entities", {"entities": ["Ada"], "topk": 3}, "topk", "topK"),
    ("/api/v1/extract/entities", {"text": "Ada", "include_unknown": True}, "include_unknown",
     "includeUnknown"),
    ("/api/v1/integrity/check", {"existing": "a b", "new": "a c", "language": "en"}, "language",
     "lang"),
    ("/api/v1/recall", {"query": "deploys", "budget": 300}, "budget", "budget_chars"),
    ("/api/v1/recall/session-start", {"sessionId": "s1"}, "sessionId", "session_id"),
    ("/api/v1/recall/pre-check", {"action": "deploy", "threshold": 0.9}, "threshold",
     "similarity"),
    ("/api/v1/recall/unknown", {"text": "why?", "scopes": "alpha"}, "scopes", "scope"),
    ("/api/v1/recall/finding", {"text": "x", "confidance": 0.3}, "confidance", "confidence"),
    ("/api/v1/recall/domain", {"tool": "db", "args": {"q": "x"}}, "args", "arguments"),
    ("/api/v1/kge/validate", {"subject": "a", "predicate": "p", "object": "b", "scopes": "x"},
     "scopes", "scope"),
    ("/api/v1/kge/infer-relation", {"head": "a", "tail": "b", "top_k": 3}, "top_k", "topK"),
    ("/api/v1/kge/related", {"entity": "a", "relation": "uses", "entity_type": "x"},
     "entity_type", "entityType"),
    ("/api/v1/graph/ppr", {"query": "deploys", "top_k": 3}, "top_k", "k"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("url", "body", "field", "known"), MISSPELT, ids=[m[0].rsplit("/", 1)[-1] for m in MISSPELT]
)
def test_a_field_the_endpoint_does_not_take_is_a_400_naming_it(
    api, vector_dir, url, body, field, known
):
    response = api.post(url, body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["field"] == field
    assert known in error["message"]  # the fields it takes are listed


def test_the_fields_it_takes_still_answer(api, vector_dir):
    body = {"query": "deploys", "budget_chars": 300, "scope": "alpha", "all_scopes": False}
    assert api.post("/api/v1/recall", body, format="json").status_code == 200
    body = {"query_entities": ["Nobody"], "k": 3, "hops": 1, "damping": 0.5}
    assert api.post("/api/v1/graph/ppr", body, format="json").status_code == 200
