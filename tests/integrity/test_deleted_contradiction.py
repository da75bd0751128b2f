"""A fact deleted for good (the admin's delete) takes its contradictions with it: their
notifications must close too, or the bell keeps counting a contradiction whose page is
a 404."""

from __future__ import annotations

import pytest

from entities.services import fact_delete
from integrity.models import Contradiction
from notifications.models import Notification


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
