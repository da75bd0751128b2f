"""The merge endpoints: preview, merge, history, undo, redirects, every error."""

from __future__ import annotations

import pytest

from entities.models import DuplicateSuggestion, Entity, EntityMerge, ExternalEntityId
from entities.services import entity_store

pytestmark = pytest.mark.django_db

MERGE = "/api/v1/entities/merge"


def body(graph, **extra) -> dict:
    return {
        "survivor": graph["survivor"].pk,
        "duplicates": [graph["dup"].pk, graph["other"].pk],
        "allow_cross_type": True,
        **extra,
    }


def test_preview_answers_what_would_move_and_writes_nothing(curator_api, graph):
    response = curator_api.post(MERGE, body(graph, preview=True), format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert set(data) == {"survivor", "duplicates", "moves", "new_aliases", "conflicts"}
    assert data["moves"] == {
        "aliases": 2,
        "facts": 4,
        "mentions": 3,
        "recall": 0,
        "imported_ids": 0,
    }
    assert data["new_aliases"] == ["Maggie Okonkwo", "Okonkwo"]
    assert {c["kind"] for c in data["conflicts"]} == {"alias_dropped", "fact_self_reference"}
    assert Entity.objects.count() == 3 and not EntityMerge.objects.exists()


def test_merge_then_old_id_redirects_then_undo(curator_api, api, graph):
    response = curator_api.post(MERGE, body(graph), format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    merge = data["merge"]
    assert merge["survivor"] == graph["survivor"].pk
    assert merge["duplicates"] == [graph["dup"].pk, graph["other"].pk]
    assert merge["undone"] is False and merge["created_at"]
    assert "Maggie Okonkwo" in data["survivor"]["aliases"]

    old = api.get(f"/api/v1/entities/{graph['dup'].pk}/")
    assert old.status_code == 301
    assert old["Location"] == f"/api/v1/entities/{graph['survivor'].pk}/"
    assert old.json()["merged_into"] == graph["survivor"].pk
    followed = api.get(old["Location"])
    assert followed.json()["id"] == graph["survivor"].pk
    lookup = api.get("/api/v1/entities/lookup", {"name": "Maggie Okonkwo"}).json()
    assert (lookup["match"], lookup["entity"]["id"]) == ("alias", graph["survivor"].pk)

    history = api.get("/api/v1/merges/").json()
    assert [m["id"] for m in history["results"]] == [merge["id"]]

    undo = curator_api.post(f"/api/v1/merges/{merge['id']}/undo")
    assert undo.status_code == 200, undo.json()
    assert undo.json()["merge"]["undone"] is True
    assert {e["id"] for e in undo.json()["restored"]} == {graph["dup"].pk, graph["other"].pk}
    assert api.get(f"/api/v1/entities/{graph['dup'].pk}/").status_code == 200

    again = curator_api.post(f"/api/v1/merges/{merge['id']}/undo")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "undo_refused"
    assert "already undone" in again.json()["error"]["message"]


def test_unknown_ids_are_404_naming_the_field(curator_api, graph):
    response = curator_api.post(
        MERGE, {"survivor": graph["survivor"].pk, "duplicates": ["nope"]}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "duplicates.0"
    response = curator_api.post(
        MERGE, {"survivor": "nope", "duplicates": [graph["dup"].pk]}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "survivor"
    assert curator_api.post("/api/v1/merges/999/undo").status_code == 404


def test_survivor_among_duplicates_is_400(curator_api, graph):
    response = curator_api.post(
        MERGE,
        {"survivor": graph["survivor"].pk, "duplicates": [graph["survivor"].pk]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "duplicates.0"


def test_the_error_names_the_offending_item_of_the_duplicates(curator_api, graph):
    """A client merging several ids is told which one is wrong, not only the list."""
    good = [graph["dup"].pk, graph["other"].pk]
    for bad, code in (("nope", 404), (graph["survivor"].pk, 400)):
        request = {"survivor": graph["survivor"].pk, "duplicates": [*good, bad]}
        response = curator_api.post(MERGE, {**request, "allow_cross_type": True}, format="json")
        assert response.status_code == code, response.json()
        assert response.json()["error"]["field"] == "duplicates.2"
    assert not EntityMerge.objects.exists()


def test_empty_or_malformed_body_is_400(curator_api, graph):
    response = curator_api.post(
        MERGE, {"survivor": graph["survivor"].pk, "duplicates": []}, format="json"
    )
    assert response.status_code == 400 and response.json()["error"]["field"] == "duplicates"
    response = curator_api.post(
        MERGE,
        {"survivor": graph["survivor"].pk, "duplicates": [graph["dup"].pk], "preview": "maybe"},
        format="json",
    )
    assert response.status_code == 400 and response.json()["error"]["field"] == "preview"


def test_a_misspelt_field_is_refused_and_merges_nothing(curator_api, graph):
    """A client asking for a preview as "dry_run" (or "dryRun") must not get the merge."""
    response = curator_api.post(MERGE, body(graph, dry_run=True), format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "dry_run" and "preview" in error["message"]
    assert Entity.objects.count() == 3 and not EntityMerge.objects.exists()


def test_cross_type_without_the_flag_is_409(curator_api, graph):
    response = curator_api.post(
        MERGE, {"survivor": graph["survivor"].pk, "duplicates": [graph["other"].pk]}, format="json"
    )
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["field"] == "allow_cross_type"
    assert error["candidates"][0]["id"] == graph["other"].pk
    assert Entity.objects.filter(pk=graph["other"].pk).exists()


def test_undo_refused_names_what_changed(curator_api, graph):
    merge = curator_api.post(MERGE, body(graph), format="json").json()["merge"]
    # The survivor is merged away in turn: the first merge cannot be undone exactly.
    final, _ = entity_store(name="Marguerite Adaeze Okonkwo", type="person")
    curator_api.post(
        MERGE, {"survivor": final.pk, "duplicates": [graph["survivor"].pk]}, format="json"
    )
    response = curator_api.post(f"/api/v1/merges/{merge['id']}/undo")
    assert response.status_code == 409
    error = response.json()["error"]
    assert "Marguerite Okonkwo" in error["message"] and "no longer exists" in error["message"]
    assert error["problems"]


def test_writes_need_a_curator(api, reader, graph):
    assert api.post(MERGE, body(graph, preview=True), format="json").status_code in (401, 403)
    api.force_authenticate(reader)
    assert api.post(MERGE, body(graph), format="json").status_code == 403
    assert api.post("/api/v1/merges/1/undo").status_code == 403
    assert Entity.objects.count() == 3


def test_duplicates_list_and_dismiss(curator_api, api, graph):
    suggestion = graph["suggestion"]
    listed = api.get("/api/v1/entities/duplicates").json()
    assert [s["id"] for s in listed["results"]] == [suggestion.pk]
    assert listed["results"][0]["entity_a"]["id"] in {graph["survivor"].pk, graph["dup"].pk}
    response = curator_api.post(f"/api/v1/entities/duplicates/{suggestion.pk}/dismiss")
    assert response.status_code == 200 and response.json()["status"] == "dismissed"
    assert api.get("/api/v1/entities/duplicates").json()["results"] == []
    assert curator_api.post("/api/v1/entities/duplicates/999/dismiss").status_code == 404
    assert api.post(f"/api/v1/entities/duplicates/{suggestion.pk}/dismiss").status_code in (
        401,
        403,
    )


def test_a_merged_suggestion_cannot_be_dismissed(curator_api, graph):
    curator_api.post(MERGE, body(graph), format="json")
    suggestion = graph["suggestion"]
    suggestion.refresh_from_db()
    assert suggestion.status == DuplicateSuggestion.Status.MERGED
    response = curator_api.post(f"/api/v1/entities/duplicates/{suggestion.pk}/dismiss")
    assert response.status_code == 409


def test_duplicates_filtered_by_unknown_entity_is_404(api, graph):
    assert api.get("/api/v1/entities/duplicates", {"entity": "nope"}).status_code == 404


def test_a_write_to_a_merged_away_id_says_where_the_entity_went(curator_api, graph):
    """A curator editing an entity a colleague had just merged got a bare "no entity"
    404 from PATCH and the alias endpoints, as if it had been deleted; its own address
    (301) and the fact filter say where it went."""
    curator_api.post(MERGE, body(graph), format="json")
    old, survivor = graph["dup"].pk, graph["survivor"].pk
    base = f"/api/v1/entities/{old}"
    answers = [
        curator_api.patch(f"{base}/", {"description": "x"}, format="json"),
        curator_api.get(f"{base}/aliases/"),
        curator_api.post(f"{base}/aliases/", {"alias": "Maggie O."}, format="json"),
        curator_api.delete(f"{base}/aliases/Okonkwo/"),
    ]
    for response in answers:
        assert response.status_code == 404
        error = response.json()["error"]
        assert error["field"] == "id" and f"merged into '{survivor}'" in error["message"]


def test_a_merge_takes_the_imported_ids_the_entity_address_takes(curator_api, graph):
    """GET and PATCH /entities/<id>/ resolve an imported memory's id; the merge answered
    404 for the same id, so a curator working from the imported memory could not merge."""
    ExternalEntityId.objects.create(store="old.db", external_id="e-17", entity=graph["dup"])
    request = {"survivor": graph["survivor"].pk, "duplicates": ["e-17"], "preview": True}
    response = curator_api.post(MERGE, request, format="json")
    assert response.status_code == 200, response.json()
    assert [d["id"] for d in response.json()["duplicates"]] == [graph["dup"].pk]
    unknown = curator_api.post(MERGE, {**request, "duplicates": ["e-99"]}, format="json")
    assert unknown.status_code == 404 and unknown.json()["error"]["field"] == "duplicates.0"


def test_a_fact_about_a_merged_away_entity_says_where_it_went(curator_api, graph):
    """An agent holding an id from before a merge stored a fact about it and was told
    only "no entity with id": it created the entity again, splitting its memory."""
    curator_api.post(MERGE, body(graph), format="json")
    old, survivor = graph["dup"].pk, graph["survivor"].pk
    for field, value in (("subject", old), ("entities.1", [survivor, old])):
        sent = {"text": "Maggie charts the reef", field.partition(".")[0]: value}
        response = curator_api.post("/api/v1/facts/", sent, format="json")
        assert response.status_code == 400, response.json()
        error = response.json()["error"]
        assert error["field"] == field and f"merged into '{survivor}'" in error["message"]
