"""What an agent hears at session start and in its chat digest (the hooks entities calls):
only broadcast notices of the reader's view of the memory, HIGH ones oldest first and in
full up to a cap, the rest as counts."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from entities.scopes import ScopeFilter
from notifications.models import Notification
from notifications.selectors import (
    DIGEST_HIGH_LIMIT,
    notification_digest_dict,
    notification_high_pending,
)
from notifications.services import notification_create, notification_mark_read

pytestmark = pytest.mark.django_db


def make(urgency: str, title: str, **kwargs) -> Notification:
    return notification_create(type="contradiction", urgency=urgency, title=title, **kwargs)


@pytest.fixture
def inbox():
    grace = User.objects.create_user("grace")
    return {
        "first": make("high", "global, first"),
        "second": make("high", "global, second", link="/integrity/"),
        "harbour": make("high", "harbour project", scope="harbour"),
        "personal": make("high", "for Grace", recipient=grace),
        "medium": make("medium", "global medium"),
        "harbour medium": make("medium", "harbour medium", scope="harbour"),
        "low": make("low", "global low"),
    }


def test_session_start_hears_the_global_high_notices_oldest_first(inbox):
    pending = notification_high_pending()
    assert [n["title"] for n in pending] == ["global, first", "global, second"]
    assert pending[1]["link"] == "/integrity/" and pending[0]["id"] == inbox["first"].pk
    assert set(pending[0]) == {"id", "type", "title", "link", "created_at"}


def test_a_project_hears_its_own_and_the_global_ones(inbox):
    titles = [n["title"] for n in notification_high_pending(scopes=ScopeFilter.of("harbour"))]
    assert titles == ["global, first", "global, second", "harbour project"]
    everything = notification_high_pending(scopes=ScopeFilter.of(None, True))
    assert "harbour project" in [n["title"] for n in everything]
    assert "for Grace" not in [n["title"] for n in everything]  # personal, not broadcast


def test_the_digest_counts_what_it_does_not_show(inbox):
    digest = notification_digest_dict()
    assert [n["title"] for n in digest["high"]] == ["global, first", "global, second"]
    assert digest["high_count"] == 2
    assert digest["medium"] == {"count": 1, "question": "I have 1 notification; show it?"}
    assert digest["badge"] == 1
    harbour = notification_digest_dict(scopes=ScopeFilter.of("harbour"))
    assert harbour["high_count"] == 3 and harbour["medium"]["count"] == 2


def test_what_was_read_is_heard_no_more(inbox):
    notification_mark_read(user=None, ids=[inbox["first"].pk])
    assert [n["title"] for n in notification_high_pending()] == ["global, second"]
    assert notification_digest_dict()["high_count"] == 1


def test_many_high_notices_are_shown_up_to_the_cap_and_counted_whole(db):
    for i in range(DIGEST_HIGH_LIMIT + 4):
        make("high", f"contradiction {i:02}")
    digest = notification_digest_dict()
    assert len(digest["high"]) == DIGEST_HIGH_LIMIT
    assert digest["high_count"] == DIGEST_HIGH_LIMIT + 4
    assert digest["high"][0]["title"] == "contradiction 00"  # the oldest first
    assert len(notification_high_pending()) == DIGEST_HIGH_LIMIT


def test_an_empty_inbox_says_nothing(db):
    assert notification_high_pending() == []
    assert notification_digest_dict() == {
        "high": [],
        "high_count": 0,
        "medium": {"count": 0, "question": ""},
        "badge": 0,
    }
