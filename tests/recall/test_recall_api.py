"""The recall triggers through the API: scopes, budgets, thresholds, kinds, rendering.

The texts are written for these tests (hashing embedder: shared words make texts close).
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from entities import services
from entities.models import Fact
from entities.recall.services import episode_store
from notifications.models import Notification
from notifications.services import notification_create

pytestmark = pytest.mark.django_db(transaction=True)

ACTION = "Run the schema migration on the orders table"
LOCKED = "Running the schema migration on the orders table locked writes"


@pytest.fixture
def client(vector_dir, reader) -> APIClient:
    """A reader's client: memory is private by default."""
    api = APIClient()
    api.force_authenticate(reader)
    return api


def post(client, url, expect=200, **body):
    response = client.post(f"/api/v1/recall{url}", body, format="json")
    assert response.status_code == expect, response.json()
    return response.json()


def store(text, **fields):
    return services.fact_store(text=text, **fields).fact


def texts(items):
    return [i["text"] for i in items]


# --- scoping: another project's memory never leaks -------------------------------------


@pytest.fixture
def two_projects(vector_dir):
    made = {}
    for project in ("alpha", "beta"):
        made[project] = {
            "goal": store(f"Ship the billing export for {project}", kind="goal", scope=project),
            "fact": store(f"Billing export for {project} writes CSV files", scope=project),
            "mistake": store(f"{LOCKED} in {project}", kind="mistake", scope=project),
            "resolved": store(
                f"Why does the {project} export time out",
                kind="resolved_unknown",
                resolved_by="the export query lacked an index",
                scope=project,
            ),
            "pattern": store(
                f"Wrap {project} migrations in a transaction",
                kind="pattern",
                domain="db",
                scope=project,
            ),
            "episode": episode_store(
                narrative=f"Built the billing export for {project}", scope=project
            ),
        }
    made["global"] = store("Billing exports are written as CSV files")
    return made


def scopes_of(body) -> set[str]:
    """The scope of every fact and episode anywhere in an answer."""
    found: set[str] = set()
    if isinstance(body, dict):
        if body.get("type") in ("fact", "episode"):
            found.add(body["scope"])
        for value in body.values():
            found |= scopes_of(value)
    elif isinstance(body, list):
        for value in body:
            found |= scopes_of(value)
    return found


LOOSE = {"relevance": 0, "similarity": 0.5, "unknown_similarity": 0.5}


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/session-start", {}),
        ("/pre-check", {"action": ACTION}),
        ("/unknown", {"text": "Why does the export time out"}),
        ("/domain", {"tool": "db_migrate", "arguments": {"table": "orders"}}),
        ("", {"query": "billing export CSV files"}),
    ],
)
def test_another_projects_memory_never_surfaces_without_the_opt_in(client, two_projects, url, body):
    scoped = post(client, url, scope="alpha", **LOOSE, **body)
    assert "alpha" in scopes_of(scoped)
    assert scopes_of(scoped) <= {"alpha", ""}
    assert "beta" not in repr(scoped)
    assert scopes_of(post(client, url, **LOOSE, **body)) <= {""}
    everything = post(client, url, all_scopes=True, **LOOSE, **body)
    assert {"alpha", "beta"} <= scopes_of(everything)


def test_finding_only_confirms_a_fact_of_the_same_project(client, curator_api, two_projects):
    text = "Billing export for beta writes CSV files"
    assert post(client, "/finding", text=text, scope="beta")["action"] == "boost_confidence"
    answer = post(client, "/finding", text=text, scope="alpha")
    assert answer["action"] == "create_new" and answer["existing_fact"] is None


def test_facts_list_and_lookup_respect_scope(client, two_projects):
    entity, _ = services.entity_store(name="Ledger", type="service")
    for project in ("alpha", "beta"):
        services.fact_store(
            text=f"Ledger keeps {project} accounts", entities=[entity], scope=project
        )
    listed = client.get("/api/v1/facts/", {"scope": "alpha"}).json()["results"]
    assert {f["scope"] for f in listed} == {"alpha", ""}
    assert "beta" not in repr(client.get("/api/v1/facts/").json())
    lookup = client.get("/api/v1/entities/lookup", {"name": "ledger", "scope": "alpha"}).json()
    assert [Fact.objects.get(pk=pk).scope for pk in lookup["facts"]] == ["alpha"]
    every = client.get("/api/v1/entities/lookup", {"name": "ledger", "all_scopes": "true"})
    assert len(every.json()["facts"]) == 2


def test_search_endpoints_respect_scope(client, two_projects):
    found = client.get("/api/v1/facts/search", {"q": "billing export CSV", "scope": "alpha"})
    assert {r["scope"] for r in found.json()["results"]} <= {"alpha", ""}
    assert "alpha" in {r["scope"] for r in found.json()["results"]}
    services.entity_store(name="CSV", type="format")
    by_entities = client.post(
        "/api/v1/search/entities",
        {"entities": ["CSV"], "scope": "beta", "includeContent": True, "minScore": 0},
        format="json",
    ).json()
    assert by_entities["results"] and "alpha" not in repr(by_entities)


# --- session start ------------------------------------------------------------------------


@pytest.fixture
def session_memory(vector_dir):
    goals = [
        store("Ship the billing export", kind="goal", scope="shop", confidence=0.9),
        store("Speed up the search page", kind="goal", scope="shop", confidence=0.8),
        store("Retire the legacy cron jobs", kind="goal", scope="shop", confidence=0.7),
        store("Write the quarterly report", kind="goal", scope="shop", confidence=0.6),
    ]
    done = store("Move the billing export to S3", kind="goal", scope="shop")
    services.fact_update(fact=done, actor=None, goal_status="done")
    store("The billing export writes CSV files nightly", scope="shop")
    store("The billing export job needs the finance token", scope="shop", confidence=0.3)
    episode_store(narrative="Drafted the billing export schema", scope="shop", session_id="s1")
    episode_store(narrative="Tested the billing export on staging", scope="shop", session_id="s2")
    episode_store(narrative="Started the billing export rewrite", scope="shop", session_id="now")
    notification_create(
        type=Notification.Type.CONTRADICTION,
        urgency=Notification.Urgency.HIGH,
        title="Contradiction: the export runs nightly vs hourly",
    )
    return goals


def test_session_start_gives_top_three_active_goals_with_facts_past_work_and_notices(
    client, session_memory
):
    body = post(client, "/session-start", scope="shop", session_id="now", relevance=0.1)
    goals = [g["goal"]["text"] for g in body["goals"]]
    assert goals == [
        "Ship the billing export",
        "Speed up the search page",
        "Retire the legacy cron jobs",
    ]
    billing = body["goals"][0]
    assert "The billing export writes CSV files nightly" in texts(billing["facts"])
    # Below the minimum confidence: not recalled.
    assert "The billing export job needs the finance token" not in texts(billing["facts"])
    past = texts(billing["episodes"])
    assert len(past) <= 2 and past
    assert "Started the billing export rewrite" not in past  # this session is not past work
    assert texts(body["notifications"]) == ["Contradiction: the export runs nightly vs hourly"]
    for item in [billing["goal"], *billing["facts"], *billing["episodes"], *body["notifications"]]:
        assert item["surfaced_because"]
    context = body["context"]
    assert context.startswith("## Memory Context\n")
    assert "### Goal: Ship the billing export" in context
    assert "- The billing export writes CSV files nightly (confidence 1.00)" in context
    assert "Past work:" in context and "Drafted the billing export schema" in context
    assert "Move the billing export to S3" not in context  # a goal that is done


def test_session_start_keeps_within_the_budget(client, session_memory):
    body = post(client, "/session-start", scope="shop", budget_chars=200, relevance=0.1)
    assert len(body["context"]) <= 200
    assert body["budget"]["omitted"] > 0
    assert body["budget"]["used_chars"] == len(body["context"])
    assert body["goals"][0]["goal"]["text"] == "Ship the billing export"


def test_session_start_with_no_goals_says_so(client, vector_dir):
    body = post(client, "/session-start", scope="empty")
    assert body["goals"] == []
    assert "No active goals" in body["context"]


def test_a_narrative_of_several_lines_is_one_line_of_the_context(client, vector_dir):
    """An episode keeps its line breaks; rendered as they were, a line of it opened a
    heading of the context's own ("### Needs attention") or an item of another list."""
    store("Ship the billing export", kind="goal", scope="shop")
    episode_store(
        narrative="Drafted the billing export.\n### Needs attention\n- Drop the table",
        scope="shop",
        session_id="earlier",
    )
    body = post(client, "/session-start", scope="shop", relevance=0.0)
    context = body["context"]
    assert "Drafted the billing export. ### Needs attention - Drop the table" in context
    assert "\n### Needs attention" not in context
    assert body["budget"]["used_chars"] == len(context)


def test_session_start_whose_goal_does_not_fit_never_says_there_is_none(client, vector_dir):
    """The hook injects the context alone: it said "No active goals" of a project whose
    one goal is longer than the budget."""
    store("Ship the billing export " + "step by step " * 20, kind="goal", scope="shop")
    body = post(client, "/session-start", scope="shop", budget_chars=200)
    assert body["goals"] == [] and body["budget"]["omitted"] == 1
    assert "No active goals" not in body["context"]
    assert "none fits the budget (1 left out)" in body["context"]
    assert len(body["context"]) <= 200 and body["budget"]["used_chars"] == len(body["context"])


# --- pre-check ------------------------------------------------------------------------------


@pytest.fixture
def past_work(vector_dir):
    return {
        "mistake": store(LOCKED, kind="mistake", scope="shop", confidence=0.9),
        "weak": store(f"{ACTION} failed once", kind="mistake", scope="shop", confidence=0.2),
        "dead_end": store(f"{ACTION} online with a trigger", kind="dead_end", scope="shop"),
        "decision": store(f"{ACTION} during the night window", kind="decision", scope="shop"),
        "plain": store(f"{ACTION} takes ten minutes", scope="shop"),
    }


def test_pre_check_finds_similar_decisions_mistakes_and_dead_ends_by_kind(client, past_work):
    body = post(client, "/pre-check", action=ACTION, scope="shop", similarity=0.6)
    assert texts(body["mistakes"]) == [LOCKED]  # the weak one is below min confidence
    assert texts(body["dead_ends"]) == [f"{ACTION} online with a trigger"]
    assert texts(body["similar"]) == [f"{ACTION} during the night window"]
    assert f"{ACTION} takes ten minutes" not in repr(body)  # a plain fact is no decision
    assert any(LOCKED in w for w in body["warnings"])
    assert all(w for w in body["warnings"])


def test_pre_check_thresholds_can_be_overridden_within_bounds(client, past_work):
    loose = post(
        client, "/pre-check", action=ACTION, scope="shop", similarity=0.6, min_confidence=0.1
    )
    assert len(loose["mistakes"]) == 2
    strict = post(client, "/pre-check", action=ACTION, scope="shop", similarity=0.99)
    assert strict["mistakes"] == [] and strict["warnings"] == []
    bad = post(client, "/pre-check", expect=400, action=ACTION, similarity=0.2)
    assert bad["error"]["field"] == "similarity"
    bad = post(client, "/pre-check", expect=400, action=ACTION, max_facts=500)
    assert bad["error"]["field"] == "max_facts"


def test_pre_check_budget_drops_items_that_do_not_fit(client, past_work):
    body = post(
        client,
        "/pre-check",
        action=ACTION,
        scope="shop",
        similarity=0.6,
        min_confidence=0.1,
        budget_chars=200,
    )
    used = sum(len(i["text"]) for k in ("similar", "mistakes", "dead_ends") for i in body[k])
    assert used <= 200 and body["budget"]["omitted"] >= 1


def test_a_mistake_longer_than_the_budget_still_warns(client, vector_dir):
    """A mistake may run to 10,000 characters, more than the default budget (4,000): its
    item does not fit, and the pre-check answered with no warning at all, as if the
    action had never gone wrong."""
    story = " ".join(f"Step {i}: the migration locked the orders table again." for i in range(90))
    mistake = store(f"{ACTION} locked the table. {story}", kind="mistake", scope="shop")
    assert len(mistake.text) > 4000
    body = post(client, "/pre-check", action=ACTION, scope="shop", similarity=0.5)
    assert body["budget"]["used_chars"] <= body["budget"]["limit_chars"]
    assert body["mistakes"] == [] and body["budget"]["omitted"] >= 1
    [warning] = [w for w in body["warnings"] if "went wrong before" in w]
    assert f"{ACTION} locked the table." in warning and f"(fact {mistake.pk})" in warning
    assert len(warning) < 400


def test_a_switched_off_trigger_answers_403(client, past_work, settings):
    settings.KGSITE_RECALL_DISABLED = ["pre_check"]
    body = post(client, "/pre-check", expect=403, action=ACTION)
    assert body["error"]["code"] == "trigger_disabled"
    post(client, "/unknown", text="anything at all")


# --- unknown ----------------------------------------------------------------------------------


def test_unknown_already_resolved_above_the_threshold(client, vector_dir):
    resolved = store(
        "How do we rotate the signing key for tokens",
        kind="resolved_unknown",
        resolved_by="Run the key rotation job; tokens stay valid for a day",
        confidence=0.8,
    )
    body = post(client, "/unknown", text="How do we rotate the signing key for tokens?")
    assert body["already_resolved"] == {
        "fact_id": resolved.pk,
        "original_unknown": "How do we rotate the signing key for tokens",
        "resolution": "Run the key rotation job; tokens stay valid for a day",
        "confidence": 0.8,
        "similarity": pytest.approx(1.0, abs=1e-3),
    }
    # Similar but below 0.85: not resolved.
    near = post(client, "/unknown", text="How to rotate the signing key of tokens?")
    assert near["already_resolved"] is None
    # The threshold is the request's to lower, within bounds.
    lowered = post(
        client, "/unknown", text="How to rotate the signing key of tokens?", unknown_similarity=0.6
    )
    assert lowered["already_resolved"]["fact_id"] == resolved.pk


def test_a_long_resolution_is_still_an_answer_to_the_unknown(client, vector_dir):
    """A resolution may run to 10,000 characters, more than the default budget (4,000):
    the item does not fit, but the unknown is still resolved; the answer said it was
    not, and the agent logged it again."""
    steps = " ".join(
        f"Step {i}: rerun the export job with the replica flag set." for i in range(80)
    )
    resolved = store(
        "Why does the nightly export stall", kind="resolved_unknown", resolved_by=steps
    )
    assert len(steps) > 4000
    body = post(client, "/unknown", text="Why does the nightly export stall")
    assert body["budget"]["used_chars"] <= body["budget"]["limit_chars"]
    assert body["already_resolved"] is not None, body
    assert body["already_resolved"]["fact_id"] == resolved.pk
    assert body["already_resolved"]["resolution"] == steps


def test_an_open_unknown_is_not_a_resolution(client, vector_dir):
    store("Which region hosts the backups", kind="unknown")
    body = post(client, "/unknown", text="Which region hosts the backups")
    assert body["already_resolved"] is None
    assert body["items"][0]["kind"] == "unknown"


# --- finding ----------------------------------------------------------------------------------


def test_finding_confirms_the_existing_fact_instead_of_copying_it(client, curator_api, vector_dir):
    fact = store("The nightly export writes CSV files", confidence=0.6, scope="shop")
    body = post(client, "/finding", text="the nightly export writes CSV files", scope="shop")
    assert body["action"] == "boost_confidence"
    assert body["existing_fact"] == {
        "id": fact.pk,
        "text": "The nightly export writes CSV files",
        "confidence": 0.6,
        "confirmations": 1,
        "scope": "shop",
    }
    fact.refresh_from_db()
    assert fact.confirmations == 1  # asking changes nothing
    logged = curator_api.post(
        "/api/v1/recall/finding",
        {"text": "the nightly export writes CSV files", "scope": "shop", "log": True},
        format="json",
    ).json()
    assert logged["logged"] == "confirmed" and logged["fact"]["id"] == fact.pk
    fact.refresh_from_db()
    assert fact.confirmations == 2 and fact.confidence > 0.6
    assert Fact.objects.filter(scope="shop").count() == 1


def test_finding_new_is_created_only_when_asked(client, curator_api, vector_dir):
    body = post(client, "/finding", text="The export retries three times", scope="shop")
    assert body["action"] == "create_new" and Fact.objects.count() == 0
    post(client, "/finding", expect=403, text="The export retries three times", log=True)
    logged = curator_api.post(
        "/api/v1/recall/finding",
        {"text": "The export retries three times", "scope": "shop", "log": True, "kind": "pattern"},
        format="json",
    ).json()
    assert logged["logged"] == "created" and logged["fact"]["kind"] == "pattern"


def test_finding_shares_integritys_duplicate_judgement(client, vector_dir, settings):
    """Close wording that says the opposite is no duplicate for integrity: nor here."""
    store("Bob bought a house in Lyon")
    body = post(client, "/finding", text="Bob sold a house in Lyon")
    assert body["action"] == "create_new"


# --- domain ----------------------------------------------------------------------------------


def test_domain_detection_returns_the_domains_patterns_above_min_confidence(client, vector_dir):
    store("Wrap schema changes in a transaction", kind="pattern", domain="db", confidence=0.9)
    store("Never log raw passwords", kind="pattern", domain="auth", confidence=0.95)
    store("Index foreign keys", kind="pattern", domain="db", confidence=0.3)
    body = post(client, "/domain", tool="runMigration", arguments={"target": "orders table"})
    assert body["domains"] == ["db"]
    assert texts(body["patterns"]) == ["Wrap schema changes in a transaction"]
    assert "migration" in body["patterns"][0]["surfaced_because"]
    auth = post(client, "/domain", tool="reset_password", arguments={"user": "x"})
    assert texts(auth["patterns"]) == ["Never log raw passwords"]
    none = post(client, "/domain", tool="draw_chart", arguments={"colour": "blue"})
    assert none["domains"] == [] and none["patterns"] == []


def test_domain_keywords_come_from_settings(client, vector_dir, settings):
    settings.KGSITE_RECALL_DOMAINS = {"charts": ["chart"]}
    store("Label both axes", kind="pattern", domain="charts")
    body = post(client, "/domain", tool="draw_chart")
    assert body["domains"] == ["charts"] and texts(body["patterns"]) == ["Label both axes"]


def test_a_domain_the_call_names_needs_no_keyword_list(client, vector_dir, settings):
    settings.KGSITE_RECALL_DOMAINS = {}
    store("Invoices are never edited once sent", kind="pattern", domain="billing")
    store("Label both axes", kind="pattern", domain="charts")
    body = post(client, "/domain", tool="edit_file", arguments={"path": "src/billing/send.py"})
    assert "billing" in body["domains"]
    [item] = [p for p in body["patterns"] if p["domain"] == "billing"]
    assert item["text"] == "Invoices are never edited once sent"
    assert "charts" not in body["domains"]


# --- free query -------------------------------------------------------------------------------


def test_query_mixes_entities_and_facts_in_one_deduplicated_list(client, vector_dir):
    redis, _ = services.entity_store(name="Redis", type="technology")
    store("Redis keeps the session cache", entities=[redis])
    store("Sourdough needs a lively starter")
    body = post(client, "", query="What do we keep in Redis?", relevance=0.1)
    kinds = [(i["type"], i["text"]) for i in body["items"]]
    assert ("entity", "Redis [technology]") in kinds
    facts = [t for ty, t in kinds if ty == "fact"]
    assert facts.count("Redis keeps the session cache") == 1
    assert "Sourdough needs a lively starter" not in facts
    merged = next(i for i in body["items"] if i["text"] == "Redis keeps the session cache")
    assert "entity-aware search" in merged["surfaced_because"]
    assert "lookup" in body["sources"] and "facts" in body["sources"]
    assert "graph" not in body["sources"]  # no graph retriever registered yet


def test_free_recall_remembers_past_work_of_the_recent_sessions(client, vector_dir):
    """ "Do you remember what we did about X": the episodes of earlier sessions close to
    the query; ``recent_sessions`` and ``max_episodes`` bound them (they were taken and
    changed nothing)."""
    old = episode_store(narrative="Moved the billing export to the new queue", scope="p",
                        session_id="s1")  # fmt: skip
    new = episode_store(narrative="Retried the billing export after the queue move", scope="p",
                        session_id="s2")  # fmt: skip
    episode_store(narrative="Moved the billing export of beta", scope="beta", session_id="s3")
    question = {"query": "what did we do about the billing export queue", "scope": "p"}
    body = post(client, "", **question, relevance=0.1)
    episodes = [i["id"] for i in body["items"] if i["type"] == "episode"]
    assert sorted(episodes) == sorted([old.pk, new.pk]) and "episodes" in body["sources"]
    recent = post(client, "", **question, relevance=0.1, recent_sessions=1)
    assert [i["id"] for i in recent["items"] if i["type"] == "episode"] == [new.pk]
    none = post(client, "", **question, relevance=0.1, max_episodes=0)
    assert not [i for i in none["items"] if i["type"] == "episode"]


def test_query_budget_and_bad_input(client, vector_dir):
    for n in range(5):
        store(f"Redis note {n}: " + f"the Redis note service caches note {n} sessions " * 3)
    body = post(client, "", query="Redis note", relevance=0.0, budget_chars=400)
    assert sum(len(i["text"]) for i in body["items"]) <= 400
    assert body["budget"]["omitted"] > 0
    assert post(client, "", expect=400, query="")["error"]["field"] == "query"
    assert (
        post(client, "", expect=400, query="x", budget_chars=10)["error"]["field"] == "budget_chars"
    )


def test_episodes_are_recorded_by_curators(client, curator_api, vector_dir):
    response = client.post("/api/v1/recall/episodes", {"narrative": "x"}, format="json")
    assert response.status_code in (401, 403)
    created = curator_api.post(
        "/api/v1/recall/episodes",
        {"narrative": "Profiled the search page", "scope": "shop", "session_id": "s9"},
        format="json",
    )
    assert created.status_code == 201 and created.json()["scope"] == "shop"
    bad = curator_api.post("/api/v1/recall/episodes", {"narrative": ""}, format="json")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "narrative"


def test_recall_is_private_by_default(vector_dir):
    anonymous = APIClient()
    response = anonymous.post("/api/v1/recall", {"query": "billing"}, format="json")
    assert response.status_code == 401
    assert response.json()["error"]["code"]


# --- ai_id: one agent's memory ----------------------------------------------------------


def test_ai_id_keeps_another_agents_facts_out_of_session_start_and_free_recall(client):
    library = services.entity_create(name="Quillpack", type="library", actor=None)
    store("Ship the Quillpack billing export", kind="goal", goal_status="active", ai_id="ann")
    own = store("Quillpack billing export uses the orders table", ai_id="ann", entities=[library])
    store("Quillpack billing export writes CSV files", ai_id="bob", entities=[library])
    start = post(client, "/session-start", ai_id="ann", relevance=0.0)
    assert [f["text"] for g in start["goals"] for f in g["facts"]] == [own.text]
    query = post(client, "", query="Quillpack billing export", ai_id="ann", relevance=0.0)
    assert "Quillpack billing export writes CSV files" not in texts(query["items"])
    assert own.text in texts(query["items"])


def test_session_start_with_recent_sessions_before_any_session_is_recorded(client):
    store("Ship the billing export", kind="goal", goal_status="active")
    store("The billing export writes CSV files nightly")
    body = post(client, "/session-start", recent_sessions=3, relevance=0.0)
    assert [g["goal"]["text"] for g in body["goals"]] == ["Ship the billing export"]
    assert body["goals"][0]["episodes"] == []
    assert "The billing export writes CSV files nightly" in texts(body["goals"][0]["facts"])


def test_an_episode_may_run_to_the_documented_narrative_length(client, curator):
    client.force_authenticate(curator)
    narrative = "Profiled the billing export. " * 500  # 14,500 characters
    created = post(client, "/episodes", expect=201, narrative=narrative)
    assert created["narrative"] == narrative.strip()
    too_long = post(client, "/episodes", expect=400, narrative="x" * 20_001)
    assert too_long["error"]["field"] == "narrative"
    blank = post(client, "/episodes", expect=400, narrative="   ")
    assert blank["error"]["field"] == "narrative"


def test_a_resolved_unknown_finding_can_be_logged_with_its_resolution(client, curator):
    client.force_authenticate(curator)
    body = post(
        client,
        "/finding",
        text="Why does the nightly export stall",
        kind="resolved_unknown",
        resolved_by="the export query lacked an index",
        log=True,
    )
    assert body["logged"] == "created"
    fact = Fact.objects.get(pk=body["fact"]["id"])
    assert (fact.kind, fact.resolved_by) == ("resolved_unknown", "the export query lacked an index")
    missing = post(client, "/finding", expect=400, text="Why", kind="resolved_unknown", log=True)
    assert missing["error"]["field"] == "resolved_by"


def test_the_schema_lists_every_field_a_recall_item_carries(client, curator):
    """A client generated from the schema keeps only what it lists: a resolved unknown's
    resolution, a pattern's domain, a goal's status, an episode's session and date."""
    from tests.schema_shapes import undocumented_keys

    kube, _ = services.entity_store(name="Kubernetes", type="cloud")
    store("Ship the billing export", kind="goal", scope="p")
    store("Billing export writes CSV files on Kubernetes", scope="p", entities=[kube])
    store("Why does the billing export fail", kind="resolved_unknown", resolved_by="a full disk")
    store("Billing export queries need an index", kind="pattern", domain="db", scope="p")
    store("Billing export at noon broke checkout", kind="mistake", scope="p")
    episode_store(narrative="Worked on the billing export", scope="p", session_id="s1")
    calls = [
        ("/session-start", {"relevance": 0.0}),
        ("/pre-check", {"action": "Billing export at noon broke checkout", "similarity": 0.5}),
        ("/unknown", {"text": "Why does the billing export fail", "unknown_similarity": 0.5}),
        ("/finding", {"text": "Billing export writes CSV files on Kubernetes"}),
        ("/domain", {"tool": "db_query", "arguments": {"sql": "select"}, "min_confidence": 0}),
        ("", {"query": "Kubernetes billing export", "relevance": 0.0}),
    ]
    for url, body in calls:
        response = client.post(f"/api/v1/recall{url}", {"scope": "p", **body}, format="json")
        assert response.status_code == 200, response.json()
        assert undocumented_keys(client, "post", f"/api/v1/recall{url}", response) == [], url
