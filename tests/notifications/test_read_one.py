"""POST /api/v1/notifications/<id>/read: its id is in the address, so a 404 names
``id`` (as every other address's 404 does), not the ``ids`` of the bulk endpoint's body."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from notifications.services import notification_create

pytestmark = pytest.mark.django_db


def test_an_unknown_notification_is_a_404_naming_the_id_in_the_address(curator_api):
    response = curator_api.post("/api/v1/notifications/99999/read")
    assert response.status_code == 404
    assert response.json()["error"] == {
        "code": "not_found",
        "message": "no notification with id 99999",
        "field": "id",
    }


def test_another_users_notification_is_the_same_404(curator_api):
    hers = notification_create(
        type="system", urgency="low", title="For Grace", recipient=User.objects.create_user("g")
    )
    response = curator_api.post(f"/api/v1/notifications/{hers.pk}/read")
    assert response.status_code == 404 and response.json()["error"]["field"] == "id"
