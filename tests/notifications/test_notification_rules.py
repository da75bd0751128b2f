"""Notifications as rules over generated histories (Hypothesis).

Each example replays a random history of creates (by urgency, recipient, key and series),
marks read (by ids, all of one urgency, by key or key prefix) and marks unread, against a
plain-Python model of what a user should see. After every step, for every user (two
curators, a reader and the system itself):

* the bell's unread counts, the pending panel and the chat digest agree with the model;
* a personal notice is seen only by its recipient, a broadcast only by curators;
* the same key notifies once, and a series notifies once while its notice is unread;
* marking read an id the user cannot see is a 404 that changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from kgsite.errors import NotFound
from notifications.models import Notification
from notifications.selectors import (
    DIGEST_HIGH_LIMIT,
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

URGENCIES = ("high", "medium", "low")
RECIPIENTS = (None, "ada", "bo", "cy")  # None: every curator; ada and bo curate, cy reads
KEYS = ("", "", "job:1", "job:2", "check:1", "check:2")
SERIES = {"job:1": "job:", "job:2": "job:"}  # keys of an outage series

create = st.tuples(
    st.just("create"),
    st.sampled_from(URGENCIES),
    st.sampled_from(RECIPIENTS),
    st.sampled_from(KEYS),
    st.booleans(),  # in its series
)
read_ids = st.tuples(
    st.just("read_ids"), st.sampled_from(RECIPIENTS[1:]), st.lists(st.integers(0, 9), max_size=3)
)
read_all = st.tuples(
    st.just("read_all"), st.sampled_from(RECIPIENTS[1:]), st.none() | st.sampled_from(URGENCIES)
)
by_key = st.tuples(
    st.sampled_from(["read_key", "read_prefix", "unread_key"]),
    st.sampled_from(["job:1", "job:2", "check:1", "job:", "check:"]),
)
history = st.lists(st.one_of(create, create, read_ids, read_all, by_key), max_size=12)


@dataclass
class Note:
    pk: int
    urgency: str
    recipient: str | None
    key: str
    read: bool = False


class Model:
    """What each user should see, written as plainly as possible."""

    def __init__(self) -> None:
        self.notes: list[Note] = []

    def visible(self, who: str | None) -> list[Note]:
        if who is None:  # the system: the broadcasts
            return [n for n in self.notes if n.recipient is None]
        curator = who in ("ada", "bo")
        return [n for n in self.notes if n.recipient == who or (curator and n.recipient is None)]

    def existing(self, key: str, series: str) -> list[Note]:
        """The notices a create may return instead of a new one (any unread one of the
        series: which one is not part of the contract)."""
        if series:
            unread = [n for n in self.notes if n.key.startswith(series) and not n.read]
            if unread:
                return unread
        return [n for n in self.notes if key and n.key == key]


class NotificationRules(TestCase):
    def setUp(self) -> None:
        group = curators_group()
        self.users = {name: User.objects.create_user(name) for name in RECIPIENTS[1:]}
        for name in ("ada", "bo"):
            self.users[name].groups.add(group)

    def user(self, who: str | None) -> User | None:
        return None if who is None else self.users[who]

    @seed(2431)
    @settings(
        max_examples=12,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(steps=history)
    def test_every_user_sees_what_the_model_says(self, steps) -> None:
        Notification.objects.all().delete()
        model = Model()
        for step in steps:
            getattr(self, f"_{step[0]}")(model, *step[1:])
            self.check(model)

    # --- steps -------------------------------------------------------------------

    def _create(self, model: Model, urgency, who, key, in_series) -> None:
        series = SERIES.get(key, "") if in_series else ""
        expected = model.existing(key, series)
        made = notification_create(
            type="system",
            urgency=urgency,
            title=f"{urgency} for {who or 'curators'}",
            recipient=self.user(who),
            key=key,
            series=series,
        )
        if expected:
            assert made.pk in {n.pk for n in expected}, "a key or an unread series notifies once"
            return
        model.notes.append(Note(made.pk, urgency, who, key))

    def _read_ids(self, model: Model, who, picks) -> None:
        notes = model.notes
        picked = [notes[i % len(notes)] for i in picks] if notes else []
        wanted = list({n.pk: n for n in picked}.values())
        wanted_ids = [n.pk for n in wanted]
        visible = {n.pk for n in model.visible(who)}
        if not set(wanted_ids) <= visible:
            before = list(Notification.objects.values_list("pk", "read").order_by("pk"))
            try:
                notification_mark_read(user=self.user(who), ids=wanted_ids)
            except NotFound as error:
                first_unseen = next(i for i, pk in enumerate(wanted_ids) if pk not in visible)
                assert error.field == f"ids.{first_unseen}"
            else:
                raise AssertionError("marking another user's notice read must be a 404")
            assert list(Notification.objects.values_list("pk", "read").order_by("pk")) == before
            return
        changed = notification_mark_read(user=self.user(who), ids=wanted_ids)
        assert changed == sum(not n.read for n in wanted)
        for n in wanted:
            n.read = True

    def _read_all(self, model: Model, who, urgency) -> None:
        targets = [
            n
            for n in model.visible(who)
            if not n.read and (urgency is None or n.urgency == urgency)
        ]
        changed = notification_mark_read(user=self.user(who), everything=True, urgency=urgency)
        assert changed == len(targets)
        for n in targets:
            n.read = True

    def _read_key(self, model: Model, key) -> None:
        targets = [n for n in model.notes if n.key == key and not n.read]
        assert notification_mark_read_by_key(key=key) == len(targets)
        for n in targets:
            n.read = True

    def _read_prefix(self, model: Model, key) -> None:
        targets = [n for n in model.notes if n.key.startswith(key) and n.key and not n.read]
        assert notification_mark_read_by_key(key=key, prefix=True) == len(targets)
        for n in targets:
            n.read = True

    def _unread_key(self, model: Model, key) -> None:
        targets = [n for n in model.notes if n.key == key and n.read]
        assert notification_mark_unread_by_key(key=key) == len(targets)
        for n in targets:
            n.read = False

    # --- what each user sees -----------------------------------------------------

    def check(self, model: Model) -> None:
        for who in RECIPIENTS:
            user = self.user(who)
            unread = [n for n in model.visible(who) if not n.read]
            by_urgency = {u: {n.pk for n in unread if n.urgency == u} for u in URGENCIES}
            counts = notification_unread_count(user=user)
            assert counts == {"total": len(unread), **{u: len(by_urgency[u]) for u in URGENCIES}}
            pending = notification_pending(user=user)
            assert {u: {n.pk for n in pending[u]} for u in URGENCIES} == by_urgency
            digest = notification_digest(user=user)
            assert {n.pk for n in digest.high} == by_urgency["high"]
            assert len(digest.high) <= DIGEST_HIGH_LIMIT
            assert (digest.high_count, digest.medium_count, digest.low_count) == (
                len(by_urgency["high"]),
                len(by_urgency["medium"]),
                len(by_urgency["low"]),
            )
            assert bool(digest.question) == bool(by_urgency["medium"])
        keyed = [n.key for n in model.notes if n.key]
        assert len(keyed) == len(set(keyed)), "one row per key"
