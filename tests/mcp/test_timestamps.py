"""One spelling of a timestamp for the same object, whichever way an agent asks: the REST
API's serializers write UTC as "Z"; answers built by hand wrote "+00:00"."""

from __future__ import annotations

import pytest

from entities.mcp.server import mcp_server_build
from entities.mcp.tools import ToolContext
from entities.recall.api import EpisodeSerializer
from entities.recall.models import Episode
from tests.recall.test_mcp import call

pytestmark = pytest.mark.django_db(transaction=True)

NARRATIVE = "Moved the nightly ledger exports of Saltmarsh to the replica"


@pytest.fixture
def server(vector_dir):
    return mcp_server_build(ToolContext())


def _episode_items(answer: dict) -> list[dict]:
    return [item for item in answer["items"] if item["type"] == "episode"]


def test_an_episode_recalled_over_mcp_has_the_timestamp_rest_wrote(server, curator_api):
    stored = curator_api.post("/api/v1/recall/episodes", {"narrative": NARRATIVE}, format="json")
    assert stored.status_code == 201, stored.json()
    written = stored.json()["created_at"]
    assert written.endswith("Z")
    asked = {"query": NARRATIVE}
    error, mcp = call(server, "recall", asked)
    assert not error, mcp
    rest = curator_api.post("/api/v1/recall", asked, format="json").json()
    assert [i["created_at"] for i in _episode_items(mcp)] == [written]
    assert [i["created_at"] for i in _episode_items(rest)] == [written]


def test_episode_store_answers_the_timestamp_rest_answers(server):
    error, body = call(server, "episode_store", {"narrative": NARRATIVE})
    assert not error, body
    as_rest = EpisodeSerializer(Episode.objects.get(pk=body["id"])).data
    assert body == dict(as_rest)
