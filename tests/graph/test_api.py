"""The TransE and graph APIs on a small stored graph, trained once per module."""

from __future__ import annotations

import pytest

from entities.graph import kge
from entities.graph.edges import edges_rebuild
from entities.graph.models import KGEModel
from entities.graph.services import kge_train
from kgsite.vectors.service import vector_index

from .conftest import make_entity, state

# Not transactional: the on-commit hooks (vector upserts, integrity checks) never run,
# which keeps building the world fast; the edges are rebuilt from the facts instead.
pytestmark = pytest.mark.django_db


@pytest.fixture
def team_world():
    """3 companies, each in its own city; 6 people per company, each in a team."""
    cities = [make_entity(n, "place") for n in ("Varnholt", "Quessing", "Lorimar")]
    companies = [make_entity(n, "organisation") for n in ("Brightwell", "Corvanta", "Dunmere")]
    people = {}
    for c, (company, city) in enumerate(zip(companies, cities, strict=True)):
        state(company, "is located in", city)
        team = make_entity(f"{company.canonical_name} Crew", "team")
        state(team, "is part of", company)
        for i in range(6):
            person = make_entity(f"Person {c}-{i}", "person")
            people[(c, i)] = person
            state(person, "is a member of", team)
            if i < 5:  # the sixth person's employer is never stated
                state(person, "works for", company)
    edges_rebuild()
    kge_train(config={"dim": 32, "epochs": 150, "seed": 4, "eval_every": 10})
    return {"cities": cities, "companies": companies, "people": people}


def test_validate_scores_a_stored_triple_valid_with_its_facts(api, team_world):
    person, company = team_world["people"][(0, 1)], team_world["companies"][0]
    body = api.post(
        "/api/v1/kge/validate",
        {"subject": person.canonical_name, "predicate": "is employed by", "object": "Brightwell"},
        format="json",
    ).json()
    assert body["known"] is True
    assert body["relation"] == "works_at"
    assert body["validation"] == "valid"
    assert 0.5 < body["confidence"] <= 1
    assert len(body["supporting_facts"]) == 1
    wrong = api.post(
        "/api/v1/kge/validate",
        {"subject": person.pk, "predicate": "works at", "object": "Lorimar"},
        format="json",
    ).json()
    assert wrong["known"] is True
    assert wrong["transe_score"] < body["transe_score"]
    assert wrong["confidence"] < body["confidence"]
    assert wrong["supporting_facts"] == []
    assert company.pk == body["object"]["id"]


def test_an_inverse_predicate_is_validated_on_the_relation_reversed(api, team_world):
    person = team_world["people"][(1, 2)]
    forward = api.post(
        "/api/v1/kge/validate",
        {"subject": person.pk, "predicate": "works at", "object": "Corvanta"},
        format="json",
    ).json()
    backward = api.post(
        "/api/v1/kge/validate",
        {"subject": "Corvanta", "predicate": "employs", "object": person.pk},
        format="json",
    ).json()
    assert backward["inverse"] is True
    assert backward["transe_score"] == forward["transe_score"]


def test_unknown_entities_and_relations_answer_known_false(api, team_world):
    person = team_world["people"][(0, 0)]
    cases = [
        {"subject": "Nobody Atall", "predicate": "works at", "object": "Brightwell"},
        {"subject": person.pk, "predicate": "was knighted by", "object": "Brightwell"},
    ]
    for payload in cases:
        body = api.post("/api/v1/kge/validate", payload, format="json").json()
        assert body["known"] is False
        assert "transe_score" not in body and "confidence" not in body
    stranger = make_entity("Wanderer Pell", "person")
    body = api.post(
        "/api/v1/kge/related", {"entity": stranger.pk, "relation": "works at"}, format="json"
    ).json()
    assert body == {**body, "known": False, "results": []}


def test_an_entity_against_itself_is_known_false_never_scored(api, team_world):
    """TransE scores h against h by the relation's length alone: "Brightwell is located
    in Brightwell" read valid, and every relation had a confidence between the two."""
    company = team_world["companies"][0].pk
    payload = {"subject": company, "predicate": "is located in", "object": company}
    body = api.post("/api/v1/kge/validate", payload, format="json").json()
    assert body["known"] is False and body["reason"] == "the same entity on both sides"
    assert "validation" not in body and "confidence" not in body
    payload = {"head": company, "tail": company}
    body = api.post("/api/v1/kge/infer-relation", payload, format="json").json()
    assert body["known"] is False and body["relations"] == []


def test_related_finds_the_unstated_employer_first(api, team_world):
    silent = team_world["people"][(2, 5)]
    body = api.post(
        "/api/v1/kge/related",
        {"entity": silent.pk, "relation": "works for", "entityType": "organisation", "topK": 3},
        format="json",
    ).json()
    assert body["known"] is True
    assert [r["canonical_name"] for r in body["results"]][0] == "Dunmere"
    assert body["results"][0]["found_in_memories"] == []
    employees = api.post(
        "/api/v1/kge/related",
        {"entity": "Corvanta", "relation": "works at", "direction": "incoming", "topK": 5},
        format="json",
    ).json()["results"]
    stated = [r for r in employees if r["found_in_memories"]]
    assert len(stated) >= 4
    assert all(r["canonical_name"].startswith("Person 1-") for r in employees[:5])


def test_related_by_an_inverse_name_says_so_beside_the_stored_relation(api, team_world):
    """Asked "Corvanta employs whom", the answer read {"relation": "works_at",
    "direction": "outgoing"}: Corvanta working at its own staff."""
    body = api.post(
        "/api/v1/kge/related",
        {"entity": "Corvanta", "relation": "employs", "topK": 5},
        format="json",
    ).json()
    assert (body["relation"], body["inverse"], body["direction"]) == ("works_at", True, "outgoing")
    assert all(r["canonical_name"].startswith("Person 1-") for r in body["results"])
    plain = api.post(
        "/api/v1/kge/related", {"entity": "Corvanta", "relation": "works at"}, format="json"
    ).json()
    assert plain["inverse"] is False


def test_infer_relation_ranks_the_linking_relation_first(api, team_world):
    person = team_world["people"][(0, 5)]
    body = api.post(
        "/api/v1/kge/infer-relation",
        {"head": person.pk, "tail": "Brightwell", "topK": 3},
        format="json",
    ).json()
    assert body["known"] is True
    assert body["relations"][0]["relation"] == "works_at"
    reverse = api.post(
        "/api/v1/kge/infer-relation", {"head": "Brightwell", "tail": person.pk}, format="json"
    ).json()
    assert reverse["relations"][0]["relation"] == "employs"
    assert reverse["relations"][0]["inverse"] is True


def test_related_uses_the_models_vector_index(api, team_world):
    index = vector_index(kge.ENTITY_KIND)
    assert index.live_count == KGEModel.objects.get(good=True).entity_count
    assert index.signature == f"transe-{KGEModel.objects.get(good=True).pk}"


@pytest.mark.parametrize(
    ("url", "payload", "field"),
    [
        ("/api/v1/kge/validate", {"subject": "", "predicate": "uses", "object": "x"}, "subject"),
        ("/api/v1/kge/validate", {"subject": "a", "predicate": " ", "object": "x"}, "predicate"),
        ("/api/v1/kge/infer-relation", {"head": "a", "tail": "b", "topK": 0}, "topK"),
        ("/api/v1/kge/infer-relation", {"head": "a", "tail": "b", "topK": 101}, "topK"),
        (
            "/api/v1/kge/related",
            {"entity": "a", "relation": "uses", "direction": "up"},
            "direction",
        ),
        ("/api/v1/kge/related", {"entity": "a", "relation": "uses", "minScore": 2}, "minScore"),
        ("/api/v1/graph/ppr", {"k": 5}, "query"),
        # A query of zero-width characters shows nothing: it walked from no entity.
        ("/api/v1/graph/ppr", {"query": "\u200b\u2060"}, "query"),
        ("/api/v1/graph/ppr", {"query_entities": ["a"], "k": 0}, "k"),
        ("/api/v1/graph/ppr", {"query_entities": ["a"], "damping": 1.5}, "damping"),
    ],
)
def test_bad_parameters_are_400_naming_the_field(api, db, url, payload, field):
    response = api.post(url, payload, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_without_a_model_everything_is_known_false(api, db):
    a, b = make_entity("Ledgerly", "software"), make_entity("Quillpack", "library")
    state(a, "uses", b)
    edges_rebuild()
    body = api.post(
        "/api/v1/kge/validate",
        {"subject": a.pk, "predicate": "uses", "object": b.pk},
        format="json",
    ).json()
    assert body["known"] is False
    assert body["supporting_facts"]  # the facts are still reported


def test_the_graph_endpoint_respects_depth_and_max_nodes(api, team_world):
    company = team_world["companies"][0]
    one = api.get(f"/api/v1/graph/entity/{company.pk}", {"depth": 1}).json()
    names = {n["label"] for n in one["nodes"]}
    assert names == {"Brightwell", "Varnholt", "Brightwell Crew"} | {
        f"Person 0-{i}" for i in range(5)
    }
    assert all(e["fact_ids"] for e in one["edges"])
    two = api.get(f"/api/v1/graph/entity/{company.pk}", {"depth": 2, "max_nodes": 4}).json()
    assert len(two["nodes"]) == 4
    node_ids = {n["id"] for n in two["nodes"]}
    assert all(e["source"] in node_ids and e["target"] in node_ids for e in two["edges"])
    typed = api.get(f"/api/v1/graph/entity/{company.pk}", {"types": "place"}).json()
    assert {n["label"] for n in typed["nodes"]} == {"Brightwell", "Varnholt"}
    assert api.get(f"/api/v1/graph/entity/{company.pk}", {"depth": 9}).status_code == 400
    assert api.get(f"/api/v1/graph/entity/{company.pk}", {"max_nodes": 0}).status_code == 400
    assert api.get("/api/v1/graph/entity/nope").status_code == 404


def test_a_curator_queues_training_and_the_job_records_the_model(api, curator_api, db):
    a, b, c = (
        make_entity("Ledgerly", "software"),
        make_entity("Quillpack", "library"),
        make_entity("Inkstone", "library"),
    )
    for x, y in ((a, b), (b, c), (a, c), (c, b)):
        state(x, "uses", y)
    state(a, "depends on", b)
    for i in range(4):
        state(make_entity(f"Tool {i}", "software"), "uses", b)
    edges_rebuild()
    assert api.post("/api/v1/kge/models", {"epochs": 5}, format="json").status_code in (401, 403)
    response = curator_api.post("/api/v1/kge/models", {"epochs": 5, "dim": 8}, format="json")
    assert response.status_code == 202
    row = KGEModel.objects.get(pk=response.json()["id"])
    assert row.status == KGEModel.Status.READY  # jobs run inline in tests
    assert row.settings["dim"] == 8 and row.thresholds["unlikely"] <= row.thresholds["valid"]
    listed = api.get("/api/v1/kge/models").json()["results"]
    assert [m["id"] for m in listed] == [row.pk]
    assert curator_api.post("/api/v1/kge/models", {"dim": 4}, format="json").status_code == 400


def test_a_model_stored_before_the_norm_setting_keeps_scoring_with_l2(api, team_world):
    """Models trained before L1 became the default carry no "norm": validate must go on
    scoring them with the L2 distance they were trained with."""
    row = KGEModel.objects.get(good=True)
    assert row.settings["norm"] == 1
    person = team_world["people"][(1, 2)]
    body = {"subject": person.pk, "predicate": "works at", "object": "Corvanta"}
    l1_score = api.post("/api/v1/kge/validate", body, format="json").json()["transe_score"]
    settings = dict(row.settings)
    del settings["norm"]
    KGEModel.objects.filter(pk=row.pk).update(settings=settings)
    kge.model_forget()
    l2_score = api.post("/api/v1/kge/validate", body, format="json").json()["transe_score"]
    assert l2_score != pytest.approx(l1_score)
    assert -l2_score <= -l1_score  # ||x||_2 <= ||x||_1


def test_the_ppr_tool_refuses_a_query_that_shows_nothing(db):
    from entities.mcp.server import mcp_server_build
    from entities.mcp.tools import ToolContext
    from tests.recall.test_mcp import call

    error, text = call(mcp_server_build(ToolContext()), "ppr_retrieve", {"query": "\u200b"})
    assert error and "query: give query or query_entities" in text, text


def test_an_ambiguous_name_answers_the_candidates_the_schema_lists(api, db):
    """The 409 of a name several types share carries the candidates, which the schema's
    error shape did not list: a client generated from it dropped them."""
    from tests.schema_shapes import documented_errors, undocumented_keys

    make_entity("Mercury", "planet")
    make_entity("Mercury", "element")
    body = {"subject": "Mercury", "predicate": "uses", "object": "Mercury"}
    response = api.post("/api/v1/kge/validate", body, format="json")
    assert response.status_code == 409
    assert {c["type"] for c in response.json()["error"]["candidates"]} == {"planet", "element"}
    assert undocumented_keys(api, "post", "/api/v1/kge/validate", response) == []
    assert documented_errors(api, "post", "/api/v1/kge/validate", response) == []
