"""The notifications API given what clients really send: every wrong body is a 400 whose
JSON names the field and marks nothing; ids of others are 404s; long lists are capped but
counted; a project's reader hears only about that project."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from kgsite.converters import MAX_ID
from notifications.models import Notification
from notifications.selectors import PENDING_LIMIT
from notifications.services import notification_create

pytestmark = pytest.mark.django_db

READ = "/api/v1/notifications/read"


def make(urgency: str = "high", title: str = "something", **kwargs) -> Notification:
    return notification_create(type="system", urgency=urgency, title=title, **kwargs)


def unread() -> int:
    return Notification.objects.filter(read=False).count()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ids": [0]}, "ids.0"),
        ({"ids": [-5]}, "ids.0"),
        ({"ids": [MAX_ID + 1]}, "ids.0"),
        ({"ids": list(range(1, 1002))}, "ids"),
        ({"ids": "1"}, "ids"),
        ({"ids": None}, "ids"),
        ({"ids": [1.5]}, "ids.0"),
        ({"all": "maybe"}, "all"),
        ({"all": False}, "ids"),
        ({"all": True, "urgency": "HIGH!"}, "urgency"),
        ({"all": True, "urgency": ["high"]}, "urgency"),
    ],
)
def test_a_wrong_body_is_a_400_naming_the_field_and_marks_nothing(curator_api, body, field):
    make()
    response = curator_api.post(READ, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == field and error["message"]
    assert unread() == 1


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        ("{not json", "application/json"),
        ("[1, 2]", "application/json"),
        ('"all"', "application/json"),
    ],
    ids=["broken", "a-list", "a-string"],
)
def test_a_body_that_is_no_object_is_a_400_with_a_json_error(curator_api, content, content_type):
    make()
    response = curator_api.post(READ, content, content_type=content_type)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["message"]
    assert unread() == 1


def test_an_id_list_with_one_unknown_id_marks_none_of_them(curator_api):
    mine = make()
    response = curator_api.post(READ, {"ids": [mine.pk, mine.pk + 1000]}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "ids.1"
    assert str(mine.pk + 1000) in response.json()["error"]["message"]
    assert unread() == 1


def test_repeated_ids_mark_once_and_a_second_call_marks_nothing(curator_api):
    mine = make()
    body = {"ids": [mine.pk, mine.pk, mine.pk]}
    assert curator_api.post(READ, body, format="json").json() == {"marked": 1}
    assert curator_api.post(READ, body, format="json").json() == {"marked": 0}


def test_all_with_a_null_urgency_marks_every_urgency(curator_api):
    for urgency in ("high", "medium", "low"):
        make(urgency)
    body = {"all": True, "urgency": None}
    assert curator_api.post(READ, body, format="json").json() == {"marked": 3}


@pytest.mark.parametrize("path", ["0", "99999999999999999999", "abc"])
def test_reading_one_with_a_bad_id_is_a_404(curator_api, path):
    assert curator_api.post(f"/api/v1/notifications/{path}/read").status_code == 404


def test_reading_another_users_notice_is_a_404_that_changes_nothing(curator_api):
    other = User.objects.create_user("grace")
    hers = make(title="For Grace", recipient=other)
    response = curator_api.post(f"/api/v1/notifications/{hers.pk}/read")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    hers.refresh_from_db()
    assert hers.read is False


def test_the_pending_list_is_capped_per_urgency_but_the_counts_are_whole(curator_api):
    Notification.objects.bulk_create(
        Notification(type="system", urgency="low", title=f"note {i}")
        for i in range(PENDING_LIMIT + 5)
    )
    make("high", "one to act on")
    body = curator_api.get("/api/v1/notifications/").json()
    assert len(body["low"]) == PENDING_LIMIT
    assert body["counts"] == {
        "total": PENDING_LIMIT + 6,
        "high": 1,
        "medium": 0,
        "low": PENDING_LIMIT + 5,
    }
    assert [n["title"] for n in body["high"]] == ["one to act on"]


def test_the_get_endpoints_refuse_writes(curator_api):
    for path in ("", "unread-count", "digest"):
        assert curator_api.post(f"/api/v1/notifications/{path}").status_code == 405
    assert curator_api.get(READ).status_code == 405


# --- projects ----------------------------------------------------------------------------------


def test_a_project_reader_hears_about_that_project_and_global_memory_only(curator_api):
    make("high", "global contradiction")
    make("high", "harbour contradiction", scope="harbour")
    make("high", "airport contradiction", scope="airport")
    titles = {
        n["title"] for n in curator_api.get("/api/v1/notifications/?scope=harbour").json()["high"]
    }
    assert titles == {"global contradiction", "harbour contradiction"}
    counts = curator_api.get("/api/v1/notifications/unread-count?scope=harbour").json()
    assert counts["high"] == 2
    digest = curator_api.get("/api/v1/notifications/digest?scope=airport").json()
    assert {n["title"] for n in digest["high"]} == {"global contradiction", "airport contradiction"}
    everything = curator_api.get("/api/v1/notifications/").json()
    assert len(everything["high"]) == 3  # no scope named: the curator's whole inbox


def test_a_project_reader_marking_all_read_marks_that_project_and_global_only(curator_api):
    """A harbour agent's "mark all read" ({"all": true, "scope": "harbour"}) dropped the
    scope and silenced the airport's contradiction for the curator too."""
    make("high", "global contradiction")
    make("high", "harbour contradiction", scope="harbour")
    make("high", "airport contradiction", scope="airport")
    response = curator_api.post(READ, {"all": True, "scope": "harbour"}, format="json")
    assert response.status_code == 200 and response.json()["marked"] == 2
    left = Notification.objects.filter(read=False).values_list("title", flat=True)
    assert list(left) == ["airport contradiction"]
    response = curator_api.post(READ, {"all": True, "all_scopes": True}, format="json")
    assert response.json()["marked"] == 1 and unread() == 0


def test_a_field_mark_read_does_not_take_is_a_400_naming_it(curator_api):
    make("high", "harbour contradiction", scope="harbour")
    response = curator_api.post(READ, {"all": True, "project": "harbour"}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "project" and "scope" in error["message"]
    assert unread() == 1


@pytest.mark.parametrize(
    "query",
    ["scope=" + "x" * 129, "scope=harbour%00", "all_scopes=perhaps"],
    ids=["long", "control", "not-a-yes-or-no"],
)
@pytest.mark.parametrize("path", ["", "unread-count", "digest"])
def test_a_bad_scope_is_a_400_naming_it(curator_api, query, path):
    make("high", "harbour contradiction", scope="harbour")
    response = curator_api.get(f"/api/v1/notifications/{path}?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == query.split("=")[0]
    assert "harbour contradiction" not in response.content.decode()
