"""The contradictions' admin page reads; resolving, dismissing and undoing go through
the service, which audits them. A delete there erased a contradiction, and a resolved
one's history, with no audit row."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from integrity.models import Contradiction, PendingFactCheck
from kgsite.models import AuditEntry


@pytest.fixture
def admin_client(client, db):
    client.force_login(User.objects.create_superuser("admin", password="admin-pass"))
    return client


def test_a_contradiction_cannot_be_deleted_in_the_admin(admin_client, contradiction):
    url = f"/admin/integrity/contradiction/{contradiction.pk}/delete/"
    assert admin_client.get(url).status_code == 403
    admin_client.post(url, {"post": "yes"})
    admin_client.post(
        "/admin/integrity/contradiction/",
        {"action": "delete_selected", "_selected_action": [contradiction.pk], "post": "yes"},
    )
    assert Contradiction.objects.filter(pk=contradiction.pk).exists()
    page = admin_client.get(f"/admin/integrity/contradiction/{contradiction.pk}/change/")
    assert page.status_code == 200


def test_a_fact_waiting_for_its_check_cannot_be_dropped_in_the_admin(admin_client, contradiction):
    waiting = PendingFactCheck.objects.create(fact=contradiction.fact_a, error="broker down")
    url = f"/admin/integrity/pendingfactcheck/{waiting.pk}/delete/"
    assert admin_client.get(url).status_code == 403
    admin_client.post(url, {"post": "yes"})
    assert PendingFactCheck.objects.filter(pk=waiting.pk).exists()
    assert not AuditEntry.objects.filter(action__startswith="contradiction").exists()
