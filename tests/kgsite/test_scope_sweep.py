"""Every REST read, asked by a reader of project alpha (and by one naming no project),
over a memory where project beta's facts carry a marker: no answer may carry it, nor a
beta fact id. The same calls with ``all_scopes`` do show beta, so the sweep can fail."""

from __future__ import annotations

import json

import pytest

from tests.graph.worlds import MARKER, fact_ids_in, scoped_world_with_contradiction

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(vector_dir):
    from entities.graph import kge

    yield scoped_world_with_contradiction()
    kge.model_forget()


def reads(world) -> list[tuple[str, str, dict]]:
    shared = world["shared"]
    name, company = shared.canonical_name, world["companies"][0].canonical_name
    beta_fact = sorted(world["beta_ids"])[0]
    return [
        ("get", "/api/v1/entities/lookup", {"name": name}),
        ("get", "/api/v1/entities/", {}),
        ("get", f"/api/v1/entities/{shared.pk}/", {}),
        ("get", f"/api/v1/entities/{shared.pk}/aliases/", {}),
        ("get", "/api/v1/facts/", {}),
        ("get", "/api/v1/facts/", {"entity": shared.pk}),
        ("get", f"/api/v1/facts/{beta_fact}/", {}),
        ("get", "/api/v1/facts/search", {"q": f"{name} works for {company} record"}),
        ("get", "/api/v1/integrity/contradictions/", {}),
        ("get", f"/api/v1/graph/entity/{shared.pk}", {"depth": 3, "max_nodes": 200}),
        ("get", f"/api/v1/graph/neighbors/{shared.pk}", {"hops": 3, "k": 100}),
        ("post", "/api/v1/search/entities", {"entities": [name, company], "topK": 50}),
        ("post", "/api/v1/recall", {"query": f"{name} {company} record"}),
        ("post", "/api/v1/recall/session-start", {}),
        ("post", "/api/v1/recall/pre-check", {"action": f"move {name} to {company} (record)"}),
        ("post", "/api/v1/recall/unknown", {"text": f"where does {name} work"}),
        ("post", "/api/v1/recall/finding", {"text": f"{name} works for {company} (record)"}),
        ("post", "/api/v1/recall/domain", {"tool": "deploy", "arguments": {"target": name}}),
        ("post", "/api/v1/extract/entities", {"text": f"{name} met {company}"}),
        (
            "post",
            "/api/v1/kge/validate",
            {"subject": name, "predicate": "works for", "object": company},
        ),
        ("post", "/api/v1/kge/infer-relation", {"head": name, "tail": company, "topK": 50}),
        ("post", "/api/v1/kge/related", {"entity": name, "relation": "works for", "topK": 50}),
        ("post", "/api/v1/graph/ppr", {"query_entities": [name, company], "k": 100}),
    ]


def ask(client, method, url, params, extra):
    if method == "get":
        return client.get(url, {**params, **extra})
    return client.post(url, {**params, **extra}, format="json")


@pytest.mark.parametrize("view", [{"scope": "alpha"}, {}])
def test_no_rest_read_shows_another_project(api, world, view):
    for method, url, params in reads(world):
        response = ask(api, method, url, params, view)
        assert response.status_code in (200, 404), (url, response.status_code, response.content)
        body = response.json()
        assert MARKER.lower() not in json.dumps(body).lower(), url
        assert not fact_ids_in(body) & world["beta_ids"], url


def test_notifications_of_another_project_stay_out(curator_api, world):
    for url in ("/api/v1/notifications/", "/api/v1/notifications/digest"):
        body = curator_api.get(url, {"scope": "alpha"}).json()
        assert MARKER.lower() not in json.dumps(body).lower(), url


def test_opting_into_every_project_does_show_beta(api, world):
    shown = set()
    for method, url, params in reads(world):
        body = ask(api, method, url, params, {"all_scopes": True}).json()
        if MARKER.lower() in json.dumps(body).lower() or fact_ids_in(body) & world["beta_ids"]:
            shown.add(url)
    assert len(shown) >= 8, shown
