from __future__ import annotations

import pytest

from entities.models import Fact
from integrity import services
from integrity.models import Contradiction
from kgsite.models import AuditEntry
from notifications.models import Notification
from tests.schema_shapes import documented_errors

pytestmark = pytest.mark.django_db


def url(contradiction: Contradiction, action: str = "") -> str:
    return f"/api/v1/integrity/contradictions/{contradiction.pk}/{action}"


# --- Pair check ----------------------------------------------------------------------


def test_check_classifies_a_pair_without_storing_anything(api):
    response = api.post(
        "/api/v1/integrity/check",
        {"existing": "Alice was born in 1990.", "new": "Alice was born in 1985."},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["label"], body["kind"]) == ("contradiction", "date")
    assert body["confidence"] >= 0.8
    assert "1990" in body["explanation"] and "1985" in body["explanation"]
    assert not Fact.objects.exists() and not Contradiction.objects.exists()


def test_check_finds_duplicates_and_compatible_pairs(api):
    def label(existing: str, new: str, **extra) -> str:
        body = {"existing": existing, "new": new, **extra}
        return api.post("/api/v1/integrity/check", body, format="json").json()["label"]

    assert label("Alice lives in Paris", "alice lives in Paris.") == "duplicate"
    assert label("Alice likes tea.", "Bob likes coffee.", lang="en") == "compatible"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"new": "Alice lives in Lyon."}, "existing"),
        ({"existing": "Alice lives in Paris."}, "new"),
        ({"existing": "  ", "new": "Alice lives in Lyon."}, "existing"),
        ({"existing": "Alice", "new": "x" * 10_001}, "new"),
        ({"existing": "Alice\x00", "new": "Alice"}, "existing"),
        ({"existing": "Alice", "new": "Alice", "lang": "klingon"}, "lang"),
    ],
)
def test_check_bad_input_names_the_field(api, body, field):
    response = api.post("/api/v1/integrity/check", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == field
    assert error["message"]


# --- Contradictions ------------------------------------------------------------------


def test_list_and_detail(api, contradiction):
    body = api.get("/api/v1/integrity/contradictions/?status=open").json()
    assert body["count"] == 1
    item = body["results"][0]
    assert item["fact_a"]["text"] == "Alice was born in 1990."
    assert item["fact_b"]["text"] == "Alice was born in 1985."
    assert (item["kind"], item["status"]) == ("date", "open")
    assert api.get("/api/v1/integrity/contradictions/?status=resolved").json()["count"] == 0
    by_fact = api.get(f"/api/v1/integrity/contradictions/?fact={contradiction.fact_b_id}")
    assert by_fact.json()["count"] == 1
    detail = api.get(url(contradiction)).json()
    assert detail["id"] == contradiction.pk and "1985" in detail["explanation"]


def test_an_open_contradiction_has_the_shape_the_schema_documents(api, contradiction):
    """resolved_by is null while it is open: the schema said a string, so a client
    generated from it failed on every open contradiction."""
    detail = api.get(url(contradiction))
    assert detail.json()["resolved_by"] is None
    path = "/api/v1/integrity/contradictions/{contradiction_id}/"
    assert documented_errors(api, "get", path, detail) == []
    listed = api.get("/api/v1/integrity/contradictions/")
    assert documented_errors(api, "get", "/api/v1/integrity/contradictions/", listed) == []


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("status=closed", "status"),
        ("kind=mood", "kind"),
        ("fact=x", "fact"),
        # Python's int() reads these as 10, 12 and 1: the list answered another fact's pairs.
        ("fact=1_0", "fact"),
        ("fact=\uff11\uff12", "fact"),
        ("fact=%201", "fact"),
    ],
)
def test_list_bad_filters_name_the_field(api, query, field):
    response = api.get(f"/api/v1/integrity/contradictions/?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_unknown_contradiction_is_404(api, curator_api):
    assert api.get("/api/v1/integrity/contradictions/999/").status_code == 404
    response = curator_api.post(
        "/api/v1/integrity/contradictions/999/resolve", {"resolution": "keep_first"}
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_resolve_keep_second_then_undo(curator_api, curator, contradiction):
    response = curator_api.post(url(contradiction, "resolve"), {"resolution": "keep_second"})
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["resolution"], body["resolved_by"]) == (
        "resolved",
        "keep_second",
        "curator",
    )
    assert body["fact_a"]["status"] == "superseded" and body["fact_a"]["valid_to"]
    assert body["fact_b"]["status"] == "active"
    # The HIGH notification was shown as dealt with.
    assert curator_api.get("/api/v1/notifications/digest").json()["high"] == []

    response = curator_api.post(url(contradiction, "undo"))
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["resolution"]) == ("open", "")
    # Open again: its HIGH notification is back in the digest.
    high = curator_api.get("/api/v1/notifications/digest").json()["high"]
    assert [n["link"] for n in high] == [f"/api/v1/integrity/contradictions/{contradiction.pk}/"]
    assert body["fact_a"] == {
        "id": contradiction.fact_a_id,
        "text": "Alice was born in 1990.",
        "status": "active",
        "valid_to": None,
    }
    rows = AuditEntry.objects.filter(action__startswith="contradiction.")  # not the setup's
    actions = list(rows.order_by("id").values_list("action", "actor"))
    assert actions == [("contradiction.resolve", curator.pk), ("contradiction.undo", curator.pk)]


def test_both_true_without_a_note_is_400(curator_api, contradiction):
    response = curator_api.post(url(contradiction, "resolve"), {"resolution": "both_true"})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "note"
    response = curator_api.post(
        url(contradiction, "resolve"), {"resolution": "both_true", "note": "Two Alices."}
    )
    assert response.status_code == 200 and response.json()["note"] == "Two Alices."


@pytest.mark.parametrize(
    "body", [{}, {"resolution": "keep_both"}, {"resolution": ""}, {"note": "only a note"}]
)
def test_missing_or_unknown_resolution_is_400(curator_api, contradiction, body):
    response = curator_api.post(url(contradiction, "resolve"), body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "resolution"
    assert "resolution" in error["message"]
    contradiction.refresh_from_db()
    assert contradiction.status == "open"


def test_a_misspelt_field_is_refused_and_resolves_nothing(curator_api, contradiction):
    """A curator's "notes" was dropped: the contradiction resolved without the note."""
    body = {"resolution": "keep_second", "notes": "The register says 1985."}
    response = curator_api.post(url(contradiction, "resolve"), body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "notes" and "note" in error["message"]
    contradiction.refresh_from_db()
    assert contradiction.status == "open"
    assert set(Fact.objects.values_list("status", flat=True)) == {"active"}


def test_resolving_twice_is_409(curator_api, contradiction):
    curator_api.post(url(contradiction, "resolve"), {"resolution": "drop_both"})
    response = curator_api.post(url(contradiction, "resolve"), {"resolution": "keep_first"})
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "already_resolved" and "undo" in error["message"]
    statuses = Fact.objects.values_list("status", flat=True)
    assert set(statuses) == {"retracted"}


def test_undo_of_an_open_contradiction_is_409(curator_api, contradiction):
    response = curator_api.post(url(contradiction, "undo"))
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "not_resolved"


def test_resolving_needs_a_curator(api, reader, contradiction):
    assert api.post(url(contradiction, "resolve"), {"resolution": "keep_first"}).status_code in (
        401,
        403,
    )
    api.force_authenticate(reader)
    assert api.post(url(contradiction, "resolve"), {"resolution": "keep_first"}).status_code == 403
    assert Notification.objects.get().read is False
    assert set(Fact.objects.values_list("status", flat=True)) == {"active"}


def test_storing_a_duplicate_through_the_api_says_confirmed(curator_api, monkeypatch):
    first = curator_api.post("/api/v1/facts/", {"text": "Alice lives in Paris"}).json()
    monkeypatch.setattr(
        services, "similar", lambda text, *, k, min_score: [(first["fact"]["id"], 0.96)]
    )
    response = curator_api.post("/api/v1/facts/", {"text": "Alice lives in Paris."})
    assert response.status_code == 200
    body = response.json()
    assert body["action"] == "confirmed"
    assert body["fact"]["id"] == first["fact"]["id"] and body["fact"]["confirmations"] == 2
    assert Fact.objects.count() == 1


def test_a_conflicting_fact_posted_by_a_client_shows_up_in_the_digest(
    curator_api, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [])
    bob = curator_api.post("/api/v1/entities/", {"canonical_name": "Bob", "type": "person"})
    subject = bob.json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        first = curator_api.post(
            "/api/v1/facts/", {"text": "Bob joined Acme in 2019.", "subject": subject}
        )
        second = curator_api.post(
            "/api/v1/facts/", {"text": "Bob joined Acme in 2021.", "subject": subject}
        )
    # Saving was not blocked: both facts were created.
    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json()["action"] == "created"

    digest = curator_api.get("/api/v1/notifications/digest").json()
    assert len(digest["high"]) == 1
    shown = digest["high"][0]
    assert shown["type"] == "contradiction"
    assert "2019" in shown["payload"]["explanation"]
    assert "2021" in shown["payload"]["explanation"]
    detail = curator_api.get(shown["link"]).json()
    assert detail["fact_b"]["id"] == second.json()["fact"]["id"]


def test_a_refused_background_check_still_answers_201(
    curator_api, monkeypatch, django_capture_on_commit_callbacks
):
    import django_q.tasks

    from integrity.models import PendingFactCheck

    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [])

    def refuse(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(django_q.tasks, "async_task", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        response = curator_api.post("/api/v1/facts/", {"text": "Carla lives in Oslo."})
    assert response.status_code == 201
    assert response.json()["action"] == "created"
    fact_id = response.json()["fact"]["id"]
    assert PendingFactCheck.objects.get().fact_id == fact_id
    medium = curator_api.get("/api/v1/notifications/digest").json()["medium"]
    assert medium["count"] == 1


# --- The check endpoint and the evaluation command agree -----------------------------

PAIRS = [
    {
        "id": "p1",
        "lang": "en",
        "existing": "The depot opens at 06:00.",
        "new": "The depot opens at 06:00.",
        "label": "duplicate",
    },
    {
        "id": "p2",
        "lang": "en",
        "existing": "Bob joined the choir in 2011.",
        "new": "Bob joined the choir in 2014.",
        "label": "contradiction",
    },
    {
        "id": "p3",
        "lang": "it",
        "existing": "Leo ha quarant'anni.",
        "new": "Leo ha 45 anni.",
        "label": "contradiction",
    },
    {
        "id": "p4",
        "lang": None,
        "existing": "Mina collects stamps.",
        "new": "Oskar repairs clocks in Ghent.",
        "label": "compatible",
    },
]


def _pairs_file(tmp_path, name="pairs.jsonl", rows=None):
    import json

    path = tmp_path / name
    path.write_text("\n".join(json.dumps(p) for p in rows or PAIRS) + "\n", encoding="utf-8")
    return path


def test_the_command_scores_what_the_endpoint_answers(api):
    from integrity.detection.evaluation import Pair, run_pairs

    pairs = [Pair(p["id"], p["lang"], p["existing"], p["new"], p["label"]) for p in PAIRS]
    outcomes = run_pairs(pairs, thresholds=services.classifier_thresholds())
    for pair, outcome in zip(PAIRS, outcomes, strict=True):
        body = {"existing": pair["existing"], "new": pair["new"]}
        if pair["lang"]:
            body["lang"] = pair["lang"]
        answer = api.post("/api/v1/integrity/check", body, format="json").json()
        assert (pair["id"], answer["label"]) == (pair["id"], outcome.got)
        assert answer["explanation"] == outcome.explanation
    assert [o.got for o in outcomes][:3] == ["duplicate", "contradiction", "contradiction"]


def test_the_command_prints_the_curator_measures(tmp_path, capsys):
    from django.core.management import call_command

    call_command("eval_contradictions", str(_pairs_file(tmp_path)), "--encoder", "none")
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert lines["reach"][-1] == "1.000"  # both contradictions reach a person
    assert lines["wrong"][-1] == "0.000"  # no non-duplicate folded into another
    assert "false" in lines and "macro-F1" in out and "expected \\ got" in out


def test_the_command_rejects_missing_files_and_a_lone_file_for_cv(tmp_path):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="no such file"):
        call_command("eval_contradictions", str(tmp_path / "absent.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"existing": "a", "new": "b", "label": "duplicate"}\n{not json\n')
    with pytest.raises(CommandError, match=r"bad.jsonl:2: invalid JSON"):
        call_command("eval_contradictions", str(bad))
    with pytest.raises(CommandError, match="two files or more"):
        call_command("eval_contradictions", str(_pairs_file(tmp_path)), "--cv")


@pytest.mark.slow
def test_check_endpoint_with_the_real_model(api, settings):
    # The endpoint embeds both statements with the real multilingual encoder (the
    # model's head trained with it); similar embeddings never make a duplicate of
    # statements whose values differ.
    settings.KGSITE_PAIR_ENCODER = "use"

    def label(existing: str, new: str) -> str:
        body = {"existing": existing, "new": new}
        return api.post("/api/v1/integrity/check", body, format="json").json()["label"]

    assert label("Bob bought a house in Lyon in 2019.", "Bob bought a house in Lyon in 2016.") == (
        "contradiction"
    )
    assert label("Nina's dog is called Rex.", "Nina's dog is called Rex.") == "duplicate"
    assert label("Room 214 is booked for Nina.", "Room 241 is booked for Nina.") != "duplicate"
    assert label("The door is locked.", "The door is not locked.") == "contradiction"


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        # Issue 14: Portuguese clock times answered a 500 (IndexError in _extract_dates).
        ("O jantar do Rui é às 19h.", "O jantar do Rui é às 20h."),
        ("A aula da Sofia começa às 7h30.", "A aula da Sofia começa às 8h."),
        ("O voo do Hugo parte às 21h.", "O voo do Hugo parte às 21h15."),
    ],
)
def test_check_reads_portuguese_clock_times(api, existing, new):
    response = api.post(
        "/api/v1/integrity/check", {"existing": existing, "new": new, "lang": "pt"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["label"] == "contradiction"


def test_check_names_the_values_that_differ(api):
    body = {"existing": "The fee is 40 CHF.", "new": "The fee is 42 EUR."}
    answer = api.post("/api/v1/integrity/check", body, format="json").json()
    assert answer["label"] in ("contradiction", "uncertain")
    assert "40 CHF" in answer["explanation"] and "42 EUR" in answer["explanation"]
