"""A fact deleted for good (the admin's delete) takes its contradictions with it: their
notifications must close too, or the bell keeps counting a contradiction whose page is
a 404."""

from __future__ import annotations

import pytest

from entities.services import entity_store, fact_delete, fact_store
from integrity import services
from integrity.models import Contradiction
from notifications.models import Notification


@pytest.fixture
def contradiction(db, monkeypatch, django_capture_on_commit_callbacks) -> Contradiction:
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [])
    alice = entity_store(name="Alice", type="person")[0]
    with django_capture_on_commit_callbacks(execute=True):
        fact_store(text="Alice was born in 1990.", subject=alice)
        fact_store(text="Alice was born in 1985.", subject=alice)
    return Contradiction.objects.get()


@pytest.mark.parametrize("which", ["fact_a", "fact_b"])
def test_deleting_a_fact_closes_its_contradictions_notification(
    curator, curator_client, contradiction, which
):
    notice = Notification.objects.get(key=f"contradiction:{contradiction.pk}")
    assert not notice.read
    fact_delete(fact=getattr(contradiction, which), actor=curator)
    assert not Contradiction.objects.exists()
    notice.refresh_from_db()
    assert notice.read
    assert not Notification.objects.filter(read=False, key__startswith="contradiction:").exists()


def test_another_contradictions_notification_stays_open(curator, contradiction):
    other = Notification.objects.create(
        key="contradiction:999", title="another", payload={"contradiction": 999}
    )
    key = f"contradiction:{contradiction.pk}"
    contradiction.delete()
    other.refresh_from_db()
    assert not other.read
    assert Notification.objects.get(key=key).read
