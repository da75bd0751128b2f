"""A text of zero-width spaces, word joiners or a byte-order mark shows nothing, as a
blank one: every body that stores or judges a text refuses it by name (a fact, a logged
finding, an episode's narrative, the pair check). They were stored as facts and episodes
that read as empty, and the pair check called such a text a duplicate of a real one."""

from __future__ import annotations

import pytest

from entities.models import Fact
from entities.recall.models import Episode
from entities.services import fact_store

pytestmark = pytest.mark.django_db

NOTHING = "\u200b \ufeff\u2060"


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/api/v1/facts/", {"text": NOTHING}, "text"),
        ("/api/v1/recall/finding", {"text": NOTHING, "log": True}, "text"),
        ("/api/v1/recall/episodes", {"narrative": NOTHING, "session_id": "s1"}, "narrative"),
        ("/api/v1/integrity/check", {"existing": "The pier is 90 m long.", "new": NOTHING}, "new"),
    ],
    ids=["fact", "finding", "episode", "pair-check"],
)
def test_a_text_that_shows_nothing_is_refused_by_name(curator_api, vector_dir, url, body, field):
    response = curator_api.post(url, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["field"] == field
    assert "must not be empty" in response.json()["error"]["message"]
    assert not Fact.objects.exists() and not Episode.objects.exists()


def test_a_fact_cannot_be_edited_into_a_text_that_shows_nothing(curator_api, vector_dir):
    fact = fact_store(text="The pier is 90 m long.").fact
    response = curator_api.patch(f"/api/v1/facts/{fact.pk}/", {"text": "\u200b"}, format="json")
    assert response.status_code == 400 and response.json()["error"]["field"] == "text"
    fact.refresh_from_db()
    assert fact.text == "The pier is 90 m long."


def test_a_joiner_inside_real_words_is_still_text(curator_api, vector_dir):
    body = {"text": "Mi\u200dlan is a city."}
    assert curator_api.post("/api/v1/facts/", body, format="json").status_code == 201
