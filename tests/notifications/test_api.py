from __future__ import annotations

import pytest

from notifications.models import Notification
from notifications.services import notification_create

pytestmark = pytest.mark.django_db


def make(urgency: str, title: str = "something", **kwargs) -> Notification:
    return notification_create(type="system", urgency=urgency, title=title, **kwargs)


def test_pending_list_is_grouped_by_urgency(curator_api):
    api = curator_api
    make("high", "A contradiction")
    make("low", "a duplicate")
    body = api.get("/api/v1/notifications/").json()
    assert [n["title"] for n in body["high"]] == ["A contradiction"]
    assert body["medium"] == []
    assert [n["title"] for n in body["low"]] == ["a duplicate"]
    assert body["counts"] == {"total": 2, "high": 1, "medium": 0, "low": 1}


def test_unread_count(curator_api):
    api = curator_api
    make("medium")
    make("medium")
    assert api.get("/api/v1/notifications/unread-count").json() == {
        "total": 2,
        "high": 0,
        "medium": 2,
        "low": 0,
    }


def test_digest_for_chat_clients(curator_api):
    api = curator_api
    make("high", "Paris or Lyon?")
    make("medium")
    make("medium")
    make("low")
    body = api.get("/api/v1/notifications/digest").json()
    assert [n["title"] for n in body["high"]] == ["Paris or Lyon?"]
    assert body["high_count"] == 1
    assert body["medium"] == {"count": 2, "question": "I have 2 notifications; show them?"}
    assert body["badge"] == 1


def test_mark_read_then_digest_no_longer_shows_it(curator_api):
    high = make("high")
    response = curator_api.post("/api/v1/notifications/read", {"ids": [high.pk]}, format="json")
    assert response.status_code == 200
    assert response.json() == {"marked": 1}
    assert curator_api.get("/api/v1/notifications/digest").json()["high"] == []


def test_mark_one_read(curator_api):
    n = make("low")
    response = curator_api.post(f"/api/v1/notifications/{n.pk}/read")
    assert response.status_code == 200
    assert response.json()["read"] is True


def test_mark_all_of_one_urgency(curator_api):
    make("medium")
    make("low")
    response = curator_api.post(
        "/api/v1/notifications/read", {"all": True, "urgency": "medium"}, format="json"
    )
    assert response.json() == {"marked": 1}
    assert curator_api.get("/api/v1/notifications/unread-count").json()["low"] == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "ids"),
        ({"ids": []}, "ids"),
        ({"ids": ["x"]}, "ids.0"),
        ({"all": True, "urgency": "urgent"}, "urgency"),
    ],
)
def test_mark_read_bad_input_names_the_field(curator_api, body, field):
    make("high")
    response = curator_api.post("/api/v1/notifications/read", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field
    assert Notification.objects.filter(read=True).count() == 0


def test_mark_read_unknown_id_is_404(curator_api):
    response = curator_api.post("/api/v1/notifications/read", {"ids": [999]}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_marking_a_broadcast_read_needs_a_curator(api, anon_api):
    n = make("high")
    assert anon_api.post(f"/api/v1/notifications/{n.pk}/read").status_code == 401
    # A reader does not even see a broadcast: it is addressed to the curators.
    assert api.post(f"/api/v1/notifications/{n.pk}/read").status_code == 404
    assert Notification.objects.get(pk=n.pk).read is False


@pytest.mark.parametrize(
    "path", ["", "unread-count", "digest"], ids=["pending", "unread-count", "digest"]
)
def test_notifications_are_not_readable_anonymously(anon_api, settings, path):
    settings.KGSITE_PUBLIC_READ = True  # a public knowledge base keeps its inbox private
    make("high", "Paris or Lyon?")
    response = anon_api.get(f"/api/v1/notifications/{path}")
    assert response.status_code == 401
    assert "Paris" not in response.content.decode()


def test_a_reader_sees_only_their_own_notifications(api, reader):
    make("high", "for the curators")
    make("low", "your book is in", recipient=reader)
    body = api.get("/api/v1/notifications/").json()
    assert body["high"] == []
    assert [n["title"] for n in body["low"]] == ["your book is in"]
    assert api.post("/api/v1/notifications/read", {"all": True}, format="json").json() == {
        "marked": 1
    }
    assert Notification.objects.get(title="for the curators").read is False
