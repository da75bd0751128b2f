"""Scope on every graph read (REST): edges, weights, paths, fact ids and TransE answers
count only the facts a reader may see; another project never shows through."""

from __future__ import annotations

import json

import pytest

from entities.graph.models import Edge

from .worlds import BETA_RELATION, MARKER, STORED_RELATION, scoped_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return scoped_world()


def _no_trace(body, world) -> None:
    text = json.dumps(body).lower()
    assert MARKER.lower() not in text  # beta's texts, and its relation "zorblat"
    ids = _fact_ids(body)
    assert not ids & world["beta_ids"], ids & world["beta_ids"]


def _fact_ids(body) -> set[int]:
    """Every fact id an answer names (edge fact ids, supports, fact rows, path steps)."""
    found: set[int] = set()

    def walk(node, key=""):
        if isinstance(node, dict):
            if node.get("type") == "fact" and isinstance(node.get("id"), int):
                found.add(node["id"])
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                if key in (
                    "fact_ids",
                    "supporting_facts",
                    "contradicting_facts",
                    "found_in_memories",
                ) and isinstance(v, int):
                    found.add(v)
                walk(v, key)

    walk(body)
    if isinstance(body, dict):
        found |= {row["id"] for row in body.get("facts", []) if isinstance(row, dict)}
    return found


def test_the_graph_shows_a_project_its_own_edges_weighed_by_its_own_facts(api, world):
    shared = world["shared"]
    url = f"/api/v1/graph/entity/{shared.pk}"
    alpha = api.get(url, {"scope": "alpha", "depth": 2}).json()
    _no_trace(alpha, world)
    edge = next(
        e
        for e in alpha["edges"]
        if e["source"] == shared.pk and e["target"] == world["companies"][0].pk
    )
    # One alpha fact and one beta fact support this edge; alpha counts its own.
    assert edge["weight"] == 1.0 and len(edge["fact_ids"]) == 1
    stored = Edge.objects.get(pk=edge["id"])
    assert stored.fact_count == 2
    everyone = api.get(url, {"all_scopes": "true", "depth": 2}).json()
    both = next(e for e in everyone["edges"] if e["id"] == edge["id"])
    assert both["weight"] == 2.0 and len(both["fact_ids"]) == 2
    assert STORED_RELATION in {e["relation"] for e in everyone["edges"]}
    # No scope: global memory only; alpha's person has no global edge at all.
    plain = api.get(url).json()
    assert plain["edges"] == [] and [n["id"] for n in plain["nodes"]] == [shared.pk]


def test_min_weight_keeps_only_heavier_edges(api, world):
    url = f"/api/v1/graph/entity/{world['shared'].pk}"
    body = api.get(url, {"all_scopes": "true", "min_weight": 1.5}).json()
    assert body["edges"] and all(e["weight"] >= 1.5 for e in body["edges"])


def test_neighbours_and_pagerank_never_walk_another_projects_edges(api, world):
    shared, company = world["shared"], world["companies"][0]
    near = api.get(f"/api/v1/graph/neighbors/{shared.pk}", {"scope": "alpha", "hops": 2}).json()
    _no_trace(near, world)
    assert near["neighbors"]
    ppr = api.post(
        "/api/v1/graph/ppr",
        {"query_entities": [shared.canonical_name, company.canonical_name], "scope": "alpha"},
        format="json",
    ).json()
    _no_trace(ppr, world)
    assert ppr["facts"] and {r["id"] for r in ppr["facts"]} <= {
        f.pk for f in world["facts"][""] + world["facts"]["alpha"]
    }
    beta = api.post(
        "/api/v1/graph/ppr",
        {"query_entities": [shared.canonical_name], "scope": "beta"},
        format="json",
    ).json()
    assert {r["id"] for r in beta["facts"]} & world["beta_ids"]


def test_transe_answers_a_project_from_a_model_of_its_own_view(api, world):
    models, shared = world["models"], world["shared"]
    assert models["alpha"].triple_count < models["all"].triple_count
    triple = {"subject": shared.pk, "predicate": BETA_RELATION, "object": "Vexmoor"}
    alpha = api.post("/api/v1/kge/validate", {**triple, "scope": "alpha"}, format="json").json()
    # "relation" echoes the reader's own predicate, folded (as for any wording).
    _no_trace({k: v for k, v in alpha.items() if k != "relation"}, world)
    assert alpha["known"] is False and alpha["reason"] == "relation not in the model"
    everyone = api.post(
        "/api/v1/kge/validate", {**triple, "all_scopes": True}, format="json"
    ).json()
    assert everyone["known"] is True and everyone["model"] == models["all"].pk
    assert set(everyone["supporting_facts"]) <= world["beta_ids"]
    works = {"subject": shared.pk, "predicate": "works for", "object": "Ostravel"}
    answer = api.post("/api/v1/kge/validate", {**works, "scope": "alpha"}, format="json").json()
    assert answer["model"] == models["alpha"].pk and len(answer["supporting_facts"]) == 1
    # A project without a model of its own is answered by global memory's model.
    other = api.post("/api/v1/kge/validate", {**works, "scope": "gamma"}, format="json").json()
    assert other["model"] == models["global"].pk
    assert other["known"] is False  # alpha's person is not in global memory


def test_infer_and_related_keep_to_the_readers_view(api, world):
    shared = world["shared"]
    infer = api.post(
        "/api/v1/kge/infer-relation",
        {"head": shared.pk, "tail": "Vexmoor", "scope": "alpha"},
        format="json",
    ).json()
    _no_trace(infer, world)
    assert infer["known"] is True and infer["model"] == world["models"]["alpha"].pk
    related = api.post(
        "/api/v1/kge/related",
        {"entity": shared.pk, "relation": "works for", "scope": "alpha", "topK": 5},
        format="json",
    ).json()
    _no_trace(related, world)
    assert related["known"] is True and related["results"]
    everyone = api.post(
        "/api/v1/kge/infer-relation",
        {"head": shared.pk, "tail": "Vexmoor", "all_scopes": True, "topK": 20},
        format="json",
    ).json()
    assert STORED_RELATION in {r["stored_as"] for r in everyone["relations"]}


def test_a_bad_scope_is_a_400_naming_it(api, world):
    response = api.get(f"/api/v1/graph/entity/{world['shared'].pk}", {"scope": "x" * 200})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "scope"


def test_train_kge_every_scope_trains_global_memory_and_each_project(vector_dir):
    from django.core.management import CommandError, call_command

    from entities.graph.models import KGEModel

    scoped_world(train=False)
    call_command("train_kge", "--every-scope", "--epochs", "20", "--dim", "8", "--no-progress")
    views = set(KGEModel.objects.filter(good=True).values_list("scope", "all_scopes"))
    assert views == {("", False), ("alpha", False), ("beta", False)}
    with pytest.raises(CommandError, match="--scope"):
        call_command("train_kge", "--scope", "a\x00b", "--no-progress")


def test_the_model_list_shows_the_views_a_reader_sees(api, world):
    def views(params):
        rows = api.get("/api/v1/kge/models", params).json()["results"]
        return {(row["scope"], row["all_scopes"]) for row in rows}

    assert views({}) == {("", False)}
    assert views({"scope": "alpha"}) == {("", False), ("alpha", False)}
    assert views({"scope": "beta"}) == {("", False)}
    assert views({"all_scopes": "true"}) == {("", False), ("alpha", False), ("", True)}


def test_the_edge_cap_counts_only_the_edges_a_reader_sees(api, vector_dir):
    """Another project's heavier edges filled the cap before the scope filter: a reader
    of global memory saw no edge of the hub although its own were there."""
    from entities.graph.edges import edges_rebuild
    from entities.services import entity_create, fact_store

    hub = entity_create(name="Korvath Hub", type="organisation", actor=None)
    for i in range(45):  # beta's, stated first: ahead of global memory's at equal weight
        spoke = entity_create(name=f"Spoke {i}", type="place", actor=None)
        text = f"Korvath Hub serves Spoke {i} ({MARKER} record)"
        fact_store(text=text, subject=hub, predicate="serves", object_entity=spoke, scope="beta")
    own = entity_create(name="Lindqvist Depot", type="place", actor=None)
    fact_store(
        text="Korvath Hub serves Lindqvist Depot",
        subject=hub,
        predicate="serves",
        object_entity=own,
    )
    edges_rebuild()
    body = api.get(f"/api/v1/graph/entity/{hub.pk}", {"max_nodes": 2}).json()
    assert [(e["source"], e["target"]) for e in body["edges"]] == [(hub.pk, own.pk)]
    assert MARKER.lower() not in json.dumps(body).lower()
