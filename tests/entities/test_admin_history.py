"""What the admin may not do to the memory's history: forge or erase audit rows, or
delete a curator's decision on a duplicate pair (the next scan would ask it again)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from entities.duplicates import pair_key, pair_of
from entities.models import DuplicateSuggestion, Entity
from entities.services import (
    duplicate_dismiss,
    duplicate_scan_request,
    duplicate_scan_run,
    entity_store,
)
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser("admin", password="admin-pass"))
    return client


def test_audit_rows_cannot_be_added_edited_or_deleted_in_the_admin(admin_client):
    entity, _ = entity_store(name="Vellmar Crossing", type="place")
    entry = AuditEntry.objects.get(target_id=entity.pk)
    assert admin_client.get("/admin/kgsite/auditentry/add/").status_code == 403
    admin_client.post("/admin/kgsite/auditentry/add/", {})
    assert admin_client.get(f"/admin/kgsite/auditentry/{entry.pk}/delete/").status_code == 403
    admin_client.post(f"/admin/kgsite/auditentry/{entry.pk}/delete/", {"post": "yes"})
    admin_client.post(
        "/admin/kgsite/auditentry/",
        {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"},
    )
    assert list(AuditEntry.objects.values_list("pk", flat=True)) == [entry.pk]
    # The log stays readable.
    page = admin_client.get(f"/admin/kgsite/auditentry/{entry.pk}/change/")
    assert page.status_code == 200 and "entity.create" in page.content.decode()


def test_a_dismissed_duplicate_pair_cannot_be_deleted_to_come_back(admin_client, vector_dir):
    town, _ = entity_store(name="Vellmar Crossing", type="place")
    station, _ = entity_store(name="Vellmar Crossing", type="station")
    scan, _new = duplicate_scan_request()
    duplicate_scan_run(scan_id=scan.pk)
    suggestion = DuplicateSuggestion.objects.get(pair_key=pair_key(pair_of(town.pk, station.pk)))
    duplicate_dismiss(suggestion=suggestion, actor=User.objects.get(username="admin"))
    url = f"/admin/entities/duplicatesuggestion/{suggestion.pk}/delete/"
    assert admin_client.get(url).status_code == 403
    admin_client.post(url, {"post": "yes"})
    admin_client.post(
        "/admin/entities/duplicatesuggestion/",
        {"action": "delete_selected", "_selected_action": [suggestion.pk], "post": "yes"},
    )
    again, _new = duplicate_scan_request()
    duplicate_scan_run(scan_id=again.pk)
    suggestion.refresh_from_db()
    assert suggestion.status == "dismissed"
    assert Entity.objects.count() == 2
