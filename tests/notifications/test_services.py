from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, User

from kgsite.errors import InvalidInput, NotFound
from notifications.models import Notification
from notifications.selectors import (
    notification_digest,
    notification_pending,
    notification_unread_count,
)
from notifications.services import (
    notification_create,
    notification_mark_read,
    notification_mark_read_by_key,
    notification_mark_unread_by_key,
)
from tests.conftest import curators_group

pytestmark = pytest.mark.django_db


def make(urgency: str, title: str = "something", **kwargs) -> Notification:
    return notification_create(type="system", urgency=urgency, title=title, **kwargs)


def test_create_stores_a_job_failed_notification_for_other_apps():
    n = notification_create(
        type="job_failed",
        urgency="high",
        title="Ingesting 'Dune' failed",
        payload={"book": 3, "error": "bad PDF"},
        link="/books/3/",
    )
    n.refresh_from_db()
    assert (n.type, n.urgency, n.read) == ("job_failed", "high", False)
    assert n.payload == {"book": 3, "error": "bad PDF"}
    assert n.link == "/books/3/"


def test_same_key_notifies_once():
    first = make("high", key="contradiction:1")
    again = make("high", key="contradiction:1")
    assert first.pk == again.pk
    assert Notification.objects.count() == 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"type": "gossip", "urgency": "high", "title": "x"}, "type"),
        ({"type": "system", "urgency": "urgent", "title": "x"}, "urgency"),
        ({"type": "system", "urgency": "low", "title": "  "}, "title"),
        ({"type": "system", "urgency": "low", "title": "x", "payload": [1]}, "payload"),
    ],
)
def test_bad_input_is_rejected(kwargs, field):
    with pytest.raises(InvalidInput) as info:
        notification_create(**kwargs)
    assert info.value.field == field
    assert Notification.objects.count() == 0


def test_pending_groups_unread_by_urgency_newest_first():
    old_high = make("high", "old high")
    new_high = make("high", "new high")
    medium = make("medium")
    low = make("low")
    read = make("low", "already read")
    Notification.objects.filter(pk=read.pk).update(read=True)
    groups = notification_pending()
    assert [n.pk for n in groups["high"]] == [new_high.pk, old_high.pk]
    assert [n.pk for n in groups["medium"]] == [medium.pk]
    assert [n.pk for n in groups["low"]] == [low.pk]
    assert notification_unread_count() == {"total": 4, "high": 2, "medium": 1, "low": 1}


def test_personal_notifications_are_seen_only_by_their_recipient():
    alice = User.objects.create_user("alice")
    bob = User.objects.create_user("bob")
    for curator in (alice, bob):
        curator.groups.add(curators_group())
    make("high", "for alice", recipient=alice)
    make("high", "for everyone")
    assert [n.title for n in notification_pending(user=alice)["high"]] == [
        "for everyone",
        "for alice",
    ]
    assert [n.title for n in notification_pending(user=bob)["high"]] == ["for everyone"]
    assert notification_unread_count(user=None)["high"] == 1


def test_broadcasts_are_for_curators_only():
    """A broadcast is addressed to every curator: a reader sees only their own, and an
    anonymous caller nothing."""
    reader = User.objects.create_user("carol")
    make("high", "a contradiction to resolve")
    make("low", "your job is done", recipient=reader)
    assert [n.title for n in notification_pending(user=reader)["low"]] == ["your job is done"]
    assert notification_pending(user=reader)["high"] == []
    assert notification_unread_count(user=AnonymousUser())["total"] == 0


def test_mark_read_by_ids_and_all_of_one_urgency():
    a, b = make("high"), make("high")
    m1, m2 = make("medium"), make("medium")
    assert notification_mark_read(user=None, ids=[a.pk]) == 1
    assert notification_mark_read(user=None, ids=[a.pk]) == 0  # already read
    assert notification_mark_read(user=None, everything=True, urgency="medium") == 2
    assert notification_unread_count() == {"total": 1, "high": 1, "medium": 0, "low": 0}
    assert Notification.objects.get(pk=b.pk).read is False
    assert Notification.objects.get(pk=m1.pk).read_at is not None
    assert Notification.objects.get(pk=m2.pk).read


def test_mark_read_of_someone_elses_notification_is_not_found():
    owner = User.objects.create_user("owner")
    other = User.objects.create_user("other")
    private = make("low", recipient=owner)
    with pytest.raises(NotFound):
        notification_mark_read(user=other, ids=[private.pk])
    assert Notification.objects.get(pk=private.pk).read is False


def test_mark_read_needs_ids_or_all():
    with pytest.raises(InvalidInput) as info:
        notification_mark_read(user=None)
    assert info.value.field == "ids"


def test_digest_shows_high_asks_about_medium_and_counts_low():
    make("high", "first")
    make("high", "second")
    for _ in range(3):
        make("medium")
    for _ in range(5):
        make("low")
    digest = notification_digest()
    assert [n.title for n in digest.high] == ["first", "second"]  # in the order they happened
    assert digest.question == "I have 3 notifications; show them?"
    assert digest.low_count == 5
    # The digest itself marks nothing read.
    assert notification_unread_count()["total"] == 10


def test_digest_question_is_singular_or_empty():
    assert notification_digest().question == ""
    make("medium")
    assert notification_digest().question == "I have 1 notification; show it?"


def test_a_notification_read_by_key_can_be_raised_again():
    n = make("high", key="contradiction:7")
    other = make("high", key="contradiction:8")
    assert notification_mark_read_by_key(key="contradiction:7") == 1
    assert notification_unread_count(user=None)["total"] == 1
    assert notification_mark_unread_by_key(key="contradiction:7") == 1
    n.refresh_from_db()
    assert (n.read, n.read_at) == (False, None)
    assert notification_unread_count(user=None)["total"] == 2
    # Unread already, or unknown: nothing changes.
    assert notification_mark_unread_by_key(key="contradiction:7") == 0
    assert notification_mark_unread_by_key(key="contradiction:9") == 0
    other.refresh_from_db()
    assert other.read is False


def test_a_series_notifies_once_while_its_notice_is_unread():
    first = make("medium", key="queue:1", series="queue:")
    again = make("medium", key="queue:2", series="queue:")
    assert again.pk == first.pk
    assert Notification.objects.count() == 1
    make("medium", key="other:1")  # another series or none: not held back
    assert Notification.objects.count() == 2
    # Once the notice has been read, the next event of the series notifies again.
    assert notification_mark_read_by_key(key="queue:1") == 1
    third = make("medium", key="queue:3", series="queue:")
    assert third.pk != first.pk
    assert Notification.objects.filter(key__startswith="queue:", read=False).count() == 1


def test_a_series_key_must_start_with_the_series():
    with pytest.raises(InvalidInput) as info:
        make("low", key="other:1", series="queue:")
    assert info.value.field == "key"
    assert not Notification.objects.exists()


def test_mark_read_by_key_prefix_closes_the_whole_series():
    series = [make("low", key=f"queue:{i}") for i in range(3)]
    other = make("low", key="queuer:1")
    notification_mark_read_by_key(key="queue:0")
    assert notification_mark_read_by_key(key="queue:", prefix=True) == 2
    for n in series:
        n.refresh_from_db()
        assert n.read and n.read_at is not None
    other.refresh_from_db()
    assert other.read is False
    # Without prefix the key must match whole; an empty prefix would match everything.
    assert notification_mark_read_by_key(key="queuer") == 0
    with pytest.raises(InvalidInput):
        notification_mark_read_by_key(key="", prefix=True)
    other.refresh_from_db()
    assert other.read is False


@pytest.mark.django_db(transaction=True)
def test_deleting_a_fact_closes_the_notices_that_name_it(vector_dir):
    from entities.services import fact_delete, fact_store

    a = fact_store(text="The export runs nightly at two").fact
    b = fact_store(text="The export job runs every night at 2").fact
    other = fact_store(text="Backups are kept for a month").fact

    def notice(key: str, first, second) -> Notification:
        brief = {"fact_a": {"id": first.pk}, "fact_b": {"id": second.pk}}
        return notification_create(
            type="duplicate", urgency="low", title=key, payload=brief, key=key
        )

    about_b = notice("duplicate:b", a, b)
    unrelated = notice("duplicate:other", a, other)
    fact_delete(fact=b, actor=None)
    about_b.refresh_from_db()
    unrelated.refresh_from_db()
    assert about_b.read is True
    assert unrelated.read is False
