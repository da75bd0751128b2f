"""The contradictions' admin page reads; resolving, dismissing and undoing go through
the service, which audits them. A delete there erased a contradiction, and a resolved
one's history, with no audit row."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from entities.services import fact_store
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction, PendingFactCheck
from integrity.services import contradiction_store
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


@pytest.mark.parametrize("term", ["köln", "KÖLN", "Ko\u0308ln"])
def test_the_admin_search_finds_a_contradiction_however_its_words_are_cased(admin_client, term):
    """SQLite's LIKE folds ASCII letters only: the facts' raw texts missed "köln" for a
    fact written "KÖLN"; their normalised texts match the normalised term."""
    first = fact_store(text="The tower in KÖLN is 40 metres tall").fact
    second = fact_store(text="The tower in KÖLN is 55 metres tall").fact
    verdict = Verdict("contradiction", "number", 0.9, "values differ")
    contradiction_store(fact_a=first, fact_b=second, verdict=verdict)
    page = admin_client.get("/admin/integrity/contradiction/", {"q": term}).content.decode()
    assert "40 metres tall" in page and "1 contradiction" in page
