"""What an agent notices about recall with the real encoders and the trained scorers:
identifiers are found by their words, a past mistake surfaces before it is repeated in
other words, a restated finding confirms the memory instead of copying it, and another
project's memory never shows. The memories are written for these tests."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from entities import services
from entities.models import Fact
from entities.recall import scorer
from kgsite.vectors import service as vector_service

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def client(vector_dir, reader, settings) -> APIClient:
    settings.KGSITE_EMBEDDER = "kgsite.vectors.embedder.SentenceTransformerEmbedder"
    settings.KGSITE_RECALL_CROSSLINGUAL = "kgsite.vectors.embedder.MultilingualEmbedder"
    vector_service.vector_indexes_reset()
    scorer.model_clear()
    assert scorer.head_for("pre_check") is not None  # the stored model fits these encoders
    api = APIClient()
    api.force_authenticate(reader)
    return api


def post(client, url, **body):
    response = client.post(f"/api/v1/recall{url}", body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def store(text, **fields) -> Fact:
    return services.fact_store(text=text, **fields).fact


def fact_texts(items) -> list[str]:
    return [i["text"] for i in items if i.get("type", "fact") == "fact"]


@pytest.fixture
def memory(client):
    """Two projects with look-alike memories, and some global ones."""
    for project, vault in (("harbor", "kv/heron"), ("quarry", "kv/magpie")):
        store(f"The {project} signing key lives in Vault at {vault}/jwt", scope=project)
        store(
            f"Pushing the {project} schema change straight to production without a "
            "rehearsal on a copy of the data locked the invoices table for an hour.",
            kind="mistake",
            scope=project,
            confidence=0.9,
        )
        store(f"The {project} nightly export writes Parquet files to object storage", scope=project)
    store("Webhook payloads are signed with HMAC-SHA512 and a 5 minute tolerance")
    store("Error X7Q-221 from the mailer means the recipient domain has no MX record")
    store("Our services log in JSON to standard output; the collector ships the lines")
    return client


def test_an_identifier_query_finds_its_memory_by_its_words(memory):
    answer = post(memory, "", query="what does X7Q-221 mean?", scope="harbor")
    found = fact_texts(answer["items"])
    assert found and "X7Q-221" in found[0]
    item = next(i for i in answer["items"] if "X7Q-221" in i["text"])
    assert "shares its words" in item["surfaced_because"]
    where = fact_texts(post(memory, "", query="which secret is stored under kv/heron?",
                            scope="harbor")["items"])  # fmt: skip
    assert any("kv/heron" in t for t in where)


def test_a_paraphrased_past_mistake_surfaces_before_the_action(memory):
    answer = post(
        memory,
        "/pre-check",
        action="Apply the new database migration directly on the live system",
        scope="harbor",
    )
    assert any("harbor schema change" in t for t in fact_texts(answer["mistakes"]))
    assert any("went wrong before" in w for w in answer["warnings"])


def test_a_restated_finding_confirms_the_memory_and_a_changed_value_does_not(memory):
    restated = post(
        memory,
        "/finding",
        text="The harbor nightly export writes its Parquet files to object storage.",
        scope="harbor",
    )
    assert restated["action"] == "boost_confidence"
    assert "nightly export" in restated["existing_fact"]["text"]
    changed = post(
        memory,
        "/finding",
        text="The harbor nightly export writes CSV files to the shared disk.",
        scope="harbor",
    )
    assert changed["action"] == "create_new"


def test_another_projects_memory_never_surfaces(memory):
    asked = [
        post(memory, "", query="where is the signing key kept in Vault?", scope="quarry"),
        post(
            memory, "/pre-check", action="Push the schema change to production now", scope="quarry"
        ),  # fmt: skip
        post(memory, "/unknown", text="Where is the harbor signing key?", scope="quarry"),
    ]
    items = [
        *asked[0]["items"],
        *asked[1]["mistakes"], *asked[1]["dead_ends"], *asked[1]["similar"],
        *asked[2]["items"],
    ]  # fmt: skip
    assert items and {i["scope"] for i in items if i["type"] == "fact"} <= {"quarry", ""}
    assert not any("harbor" in i["text"] or "kv/heron" in i["text"] for i in items)
    assert any("kv/magpie" in i["text"] for i in asked[0]["items"])


def test_a_question_in_another_language_finds_the_memory_that_answers_it(memory):
    store(
        "Il gruppo di harbor si riunisce ogni lunedì mattina per pianificare la settimana",
        scope="harbor",
    )
    answer = post(
        memory, "", query="In che formato vengono scritti i file dell'esportazione notturna?",
        scope="harbor",
    )  # fmt: skip
    found = fact_texts(answer["items"])
    assert found and "Parquet" in found[0]


def test_a_past_mistake_written_in_another_language_surfaces_before_the_action(memory):
    store(
        "Riavviare il broker dei messaggi nell'ora di punta ha fatto perdere gli ordini "
        "ancora in coda.",
        kind="mistake",
        scope="harbor",
        confidence=0.9,
    )
    answer = post(
        memory,
        "/pre-check",
        action="Restart the message queue server during business hours to load its new settings",
        scope="harbor",
    )
    assert any("broker dei messaggi" in t for t in fact_texts(answer["mistakes"]))


def test_an_unknown_asked_in_another_language_finds_its_resolution(memory):
    store(
        "Why do the harbor nightly export jobs fail on the first Sunday of the month?",
        kind="resolved_unknown",
        resolved_by="The storage quota resets at midnight UTC; the job now starts at 01:00.",
        scope="harbor",
        confidence=0.9,
    )
    asked = post(
        memory,
        "/unknown",
        text="Perché l'esportazione notturna di harbor fallisce la prima domenica di ogni mese?",
        scope="harbor",
    )
    assert asked["already_resolved"] is not None
    assert "first Sunday" in asked["already_resolved"]["original_unknown"]
    other = post(
        memory, "/unknown", text="Chi approva le ferie del gruppo di harbor?", scope="harbor"
    )
    assert other["already_resolved"] is None


def test_an_unknown_already_resolved_says_how_similar_the_texts_are(memory):
    """``similarity`` is the texts' cosine, the measure ``unknown_similarity`` is written
    in; it gave the trained scorer's probability instead."""
    resolved = store(
        "Which team owns the nightly billing reconciliation job?",
        kind="resolved_unknown",
        resolved_by="The payments team owns it since the spring reorganisation.",
        scope="harbor",
    )
    text = "Who is the owner of the billing reconciliation that runs every night?"
    answer = post(memory, "/unknown", text=text, scope="harbor")["already_resolved"]
    assert answer is not None and answer["fact_id"] == resolved.pk
    asked, stored = vector_service.embed_texts([text, resolved.text])
    assert answer["similarity"] == pytest.approx(float(asked @ stored), abs=2e-3)


def test_one_question_reads_the_memory_it_judges_once(memory):
    """The main and the multilingual index search the same small scope: its ids are
    listed once, and each candidate's row is read once for both and for the answer."""
    post(memory, "/pre-check", action="Push the harbor schema change now", scope="harbor")
    with CaptureQueriesContext(connection) as captured:
        answer = post(memory, "/pre-check", action="Deploy the schema change", scope="harbor")
    assert any("schema change" in t for t in fact_texts(answer["mistakes"]))
    facts = [q["sql"] for q in captured.captured_queries if '"entities_fact"' in q["sql"]]
    listed = [sql for sql in facts if sql.startswith('SELECT "entities_fact"."id" AS "pk" FROM')]
    rows = [sql for sql in facts if sql.startswith('SELECT "entities_fact"."id", ')]
    assert len(listed) <= 1, listed
    assert len(rows) <= 1, rows
