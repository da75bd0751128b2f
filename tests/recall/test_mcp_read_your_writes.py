"""Read-your-writes over MCP with no worker: ``mcp_serve`` alone (the README's client
configuration) finds a fact it just stored in its next call, because the server writes
its own index updates instead of queueing them for a worker that is not running."""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from entities import services

from .test_mcp import ROOT, stdio_env

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX stdio")
def test_a_stored_fact_is_found_by_the_next_calls_without_a_worker(vector_dir, tmp_path):
    services.entity_store(name="Nightly Export", type="job")
    env = stdio_env(tmp_path)  # a real queue and no worker
    params = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "manage.py"), "mcp_serve"], env=env, cwd=ROOT
    )
    unknown = "Why does the nightly export stall after midnight"
    mistake = "Restarting the nightly export during the backup window corrupted the archive"

    async def main():
        async with Client(params, read_timeout_seconds=120) as client:

            async def tool(name, arguments):
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content[0].text
                return json.loads(result.content[0].text)

            stored = await tool(
                "fact_store",
                {
                    "text": unknown,
                    "kind": "resolved_unknown",
                    "resolved_by": "the export waited on a lock held by the vacuum job",
                },
            )
            await tool("fact_store", {"text": mistake, "kind": "mistake"})
            search = await tool("facts_search", {"q": unknown, "k": 5})
            resolved = await tool("recall_unknown", {"text": unknown})
            check = await tool("recall_pre_check", {"action": mistake})
            return stored, search, resolved, check

    stored, search, resolved, check = anyio.run(main)
    assert stored["action"] == "created"
    assert stored["fact"]["id"] in [hit["id"] for hit in search["results"]]
    assert resolved["already_resolved"], resolved
    assert mistake in json.dumps(check["mistakes"])
