"""The MCP server through the SDK's own client: in memory, and over stdio with a real
``manage.py mcp_serve`` subprocess on the test database."""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from pathlib import Path

import anyio
import pytest
from django.conf import settings as django_settings
from django.db import connection
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from entities import services
from entities.mcp.server import DESCRIPTIONS, mcp_server_build
from entities.mcp.tools import ToolContext
from entities.models import Fact
from entities.recall.services import episode_store

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def call(server_or_params, name: str, arguments: dict) -> tuple[bool, object]:
    """(is_error, parsed result or error text) of one tool call."""

    async def main():
        async with Client(server_or_params) as client:
            return await client.call_tool(name, arguments)

    result = anyio.run(main)
    text = result.content[0].text if result.content else ""
    if result.is_error:
        return True, text
    return False, json.loads(text)


def listed(server_or_params) -> dict[str, str]:
    async def main():
        async with Client(server_or_params) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool.description for tool in anyio.run(main)}


@pytest.fixture
def memory(vector_dir):
    kube, _ = services.entity_store(name="Kubernetes", type="cloud")
    services.alias_add(entity=kube, alias="K8s")
    cafe, _ = services.entity_store(name="Café Lumière", type="venue")
    services.fact_store(text="Kubernetes runs the alpha workers", entities=[kube], scope="alpha")
    services.fact_store(text="Kubernetes runs the beta workers", entities=[kube], scope="beta")
    services.fact_store(text="Kubernetes restarts failed pods", entities=[kube])
    services.fact_store(
        text="Rolling the alpha deploy at noon broke checkout", kind="mistake", scope="alpha"
    )
    services.fact_store(
        text="Rolling the beta deploy at noon broke checkout", kind="mistake", scope="beta"
    )
    episode_store(narrative="Moved the alpha workers to Kubernetes", scope="alpha")
    return {"kube": kube, "cafe": cafe}


@pytest.fixture
def alpha(memory):
    return mcp_server_build(ToolContext(scope="alpha"))


def test_tools_are_listed_with_when_to_call_descriptions(alpha):
    tools = listed(alpha)
    for name in (
        "entity_get",
        "entity_store",
        "facts_search",
        "facts_list",
        "fact_store",
        "search_by_entities",
        "extract_entities",
        "notifications_digest",
        "recall_session_start",
        "recall_pre_check",
        "recall_unknown",
        "recall_finding",
        "recall_domain",
        "recall",
    ):
        assert tools[name] == DESCRIPTIONS[name]
    assert "never to validate a claim" in tools["entity_get"].replace("Do not use it", "never")


def test_entity_get_by_name_alias_case_and_unicode_form(alpha, memory):
    for name in ("Kubernetes", "k8s", "KUBERNETES"):
        error, body = call(alpha, "entity_get", {"name": name})
        assert not error and body["entity"]["id"] == memory["kube"].pk
    nfd = unicodedata.normalize("NFD", "café lumière")
    error, body = call(alpha, "entity_get", {"name": nfd})
    assert body["entity"]["canonical_name"] == "Café Lumière"


def test_entity_get_unknown_name_is_null_and_never_a_guess(alpha):
    error, body = call(alpha, "entity_get", {"name": "Kubernetis"})
    assert not error and body["entity"] is None and body["match"] == "none"
    assert body["suggestions"][0]["canonical_name"] == "Kubernetes"


def test_a_bad_argument_is_an_mcp_error_and_the_server_goes_on(alpha):
    error, text = call(alpha, "entity_get", {"name": ""})
    assert error and text.endswith("name: name must not be empty")
    error, text = call(alpha, "facts_list", {"limit": 1000})
    assert error and "limit" in text
    error, text = call(alpha, "entity_get", {"name": "K8s", "uncertainty": 7})
    assert error and "uncertainty" in text
    error, _ = call(alpha, "entity_get", {})  # a missing argument: the SDK refuses it
    assert error
    assert not call(alpha, "entity_get", {"name": "K8s"})[0]


def test_every_tool_keeps_to_the_servers_scope(alpha, memory):
    calls = {
        "entity_get": {"name": "Kubernetes"},
        "facts_search": {"q": "Kubernetes workers"},
        "facts_list": {},
        "search_by_entities": {"entities": ["Kubernetes"], "min_score": 0},
        "recall_session_start": {},
        "recall_pre_check": {"action": "Rolling the deploy at noon", "similarity": 0.5},
        "recall_unknown": {"text": "Kubernetes workers"},
        "recall_domain": {"tool": "deploy_release"},
        "recall": {"query": "Kubernetes workers"},
    }
    for name, arguments in calls.items():
        error, body = call(alpha, name, arguments)
        assert not error, (name, body)
        assert "beta" not in json.dumps(body), name
    error, body = call(alpha, "facts_list", {"all_scopes": True})
    assert "beta" in json.dumps(body)


def test_fact_store_writes_into_the_servers_scope_and_read_only_has_no_writes(alpha):
    error, body = call(alpha, "fact_store", {"text": "Alpha uses blue-green deploys"})
    assert not error and body["fact"]["scope"] == "alpha" and body["action"] == "created"
    error, body = call(alpha, "recall_finding", {"text": "alpha uses blue-green deploys"})
    assert body["action"] == "boost_confidence"
    read_only = mcp_server_build(ToolContext(scope="alpha", read_only=True))
    assert "fact_store" not in listed(read_only)


def test_high_uncertainty_adds_a_memory_hint(alpha, settings):
    settings.KGSITE_RECALL_RELEVANCE = 0.1
    error, calm = call(alpha, "entity_get", {"name": "Kubernetes", "uncertainty": 0.2})
    assert "memory_hint" not in calm
    error, unsure = call(alpha, "entity_get", {"name": "Kubernetes", "uncertainty": 0.9})
    hint = unsure["memory_hint"]
    assert "0.90" in hint["surfaced_because"] and "0.50" in hint["surfaced_because"]
    texts = [f["text"] for f in hint["facts"]]
    assert "Kubernetes runs the alpha workers" in texts
    assert not any("beta" in t for t in texts)
    assert [e["text"] for e in hint["episodes"]] == ["Moved the alpha workers to Kubernetes"]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_by_entities", {"entities": ["Kubernetes"]}),
        ("ppr_retrieve", {"query_entities": ["Kubernetes"]}),
    ],
)
def test_high_uncertainty_hints_from_a_list_of_names_too(alpha, settings, tool, arguments):
    """A tool whose words come as a list (entity names) gave no hint at all."""
    settings.KGSITE_RECALL_RELEVANCE = 0.1
    error, unsure = call(alpha, tool, {**arguments, "uncertainty": 0.9})
    assert not error, unsure
    texts = [f["text"] for f in unsure["memory_hint"]["facts"]]
    assert "Kubernetes runs the alpha workers" in texts


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def stdio_env(tmp_path, *, scope: str | None = "alpha") -> dict[str, str]:
    """The environment of an ``mcp_serve`` subprocess on this test's database: the base
    settings (a real queue, no synchronous test mode) and this test's vector files."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.base",
        "DATABASE_URL": _database_url(),
        "KGSITE_DATA_DIR": str(tmp_path),
        "KGSITE_VECTOR_DIR": str(django_settings.KGSITE_VECTOR_DIR),
        "KGSITE_EMBEDDER": django_settings.KGSITE_EMBEDDER,
        "KGSITE_LOG_LEVEL": "WARNING",
    }
    if scope is not None:
        env["KGSITE_MCP_SCOPE"] = scope
    return env


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX stdio")
def test_stdio_subprocess_serves_the_same_tools(memory, tmp_path):
    env = stdio_env(tmp_path)
    params = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "manage.py"), "mcp_serve"], env=env, cwd=ROOT
    )

    async def main():
        async with Client(params, read_timeout_seconds=60) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            found = await client.call_tool("entity_get", {"name": "k8s"})
            listed_facts = await client.call_tool("facts_list", {})
            bad = await client.call_tool("entity_get", {"name": "\u200b"})
            again = await client.call_tool("entity_get", {"name": "Kubernetes"})
            return tools, found, listed_facts, bad, again

    tools, found, listed_facts, bad, again = anyio.run(main)
    assert "recall_session_start" in tools and "entity_get" in tools
    assert json.loads(found.content[0].text)["entity"]["id"] == memory["kube"].pk
    facts = json.loads(listed_facts.content[0].text)["facts"]
    assert {f["scope"] for f in facts} == {"alpha", ""}
    assert bad.is_error and "name" in bad.content[0].text
    assert not again.is_error  # the error did not take the server down


def test_graph_tools_are_listed_and_keep_to_the_servers_scope(
    alpha, memory, django_capture_on_commit_callbacks
):
    kube = memory["kube"]
    linux, _ = services.entity_store(name="Linux", type="os")
    with django_capture_on_commit_callbacks(execute=True):  # edges follow facts on commit
        for project in ("alpha", "beta"):
            services.fact_store(
                text=f"Kubernetes runs on Linux in {project}",
                subject=kube,
                predicate="runs_on",
                object_entity=linux,
                scope=project,
            )
    tools = listed(alpha)
    for name in (
        "validate_knowledge",
        "infer_relationship",
        "find_related_entities",
        "get_entity_graph",
        "ppr_retrieve",
    ):
        assert tools[name] == DESCRIPTIONS[name]
    beta_fact = Fact.objects.get(scope="beta", predicate="runs_on").pk
    alpha_fact = Fact.objects.get(scope="alpha", predicate="runs_on").pk
    error, graph = call(alpha, "get_entity_graph", {"entity": "Kubernetes"})
    assert not error
    fact_ids = {i for edge in graph["edges"] for i in edge["fact_ids"]}
    assert alpha_fact in fact_ids and beta_fact not in fact_ids
    error, ranked = call(alpha, "ppr_retrieve", {"query_entities": ["K8s"]})
    assert not error and ranked["seeds"][0]["id"] == kube.pk
    assert alpha_fact in {f["id"] for f in ranked["facts"]}
    assert "beta" not in json.dumps(ranked["facts"])
    error, text = call(alpha, "ppr_retrieve", {})
    assert error and "query" in text


def test_recall_finding_logs_a_resolved_unknown_with_its_resolution(alpha):
    error, body = call(
        alpha,
        "recall_finding",
        {
            "text": "Why do alpha deploys stall",
            "kind": "resolved_unknown",
            "resolved_by": "the registry rate-limits pulls",
            "log": True,
        },
    )
    assert not error and body["logged"] == "created"
    assert Fact.objects.get(pk=body["fact"]["id"]).resolved_by == "the registry rate-limits pulls"


def test_an_unsure_call_whose_words_show_nothing_gets_no_hint_and_no_error(alpha):
    """A session id of a zero-width space is a session id; the hint has no words to
    search with, which is no reason to fail the call (it failed naming a ``text``
    argument the tool does not have)."""
    error, body = call(alpha, "recall_session_start", {"session_id": "\u200b", "uncertainty": 0.9})
    assert not error, body
    assert "memory_hint" not in body


def test_entity_get_answers_an_entity_by_the_id_other_tools_gave(alpha, memory, curator):
    """facts_search, get_entity_graph and the others name entities by id, and every tool
    that takes an entity takes its id; entity_get said "none" to it, as to a merged-away
    id (which stands for its survivor, as in get_entity_graph)."""
    from entities.services import entity_merge

    kube = memory["kube"]
    error, body = call(alpha, "entity_get", {"name": kube.pk})
    assert not error, body
    assert body["match"] == "id" and body["entity"]["id"] == kube.pk
    assert body["aliases"] == ["K8s"] and body["facts"]
    copy, _ = services.entity_store(name="Kubernetes Engine", type="cloud")
    entity_merge(survivor=kube, duplicates=[copy], actor=curator)
    error, body = call(alpha, "entity_get", {"name": copy.pk})
    assert not error and body["match"] == "id" and body["entity"]["id"] == kube.pk
    error, body = call(alpha, "entity_get", {"name": kube.pk, "type": "venue"})
    assert body["match"] == "none"
