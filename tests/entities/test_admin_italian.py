"""The admin's own words (our actions, messages and the merge page, not Django's) on
Italian: they were English around Django's Italian."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/entities/entity/"


@pytest.fixture
def italian_staff(client, curator):
    curator.is_staff = True
    curator.save()
    for codename in ("view_entity", "change_entity", "view_entitymerge"):
        curator.user_permissions.add(Permission.objects.get(codename=codename))
    client.force_login(User.objects.get(pk=curator.pk))
    assert client.post(reverse("set_language"), {"language": "it", "next": "/"}).status_code == 302
    return client


def test_the_merge_action_and_its_page_are_italian(italian_staff, graph):
    survivor, dup, other = graph["survivor"], graph["dup"], graph["other"]
    listing = italian_staff.get(CHANGELIST).content.decode()
    assert "Unisci le entità selezionate" in listing

    alone = italian_staff.post(
        CHANGELIST, {"action": "merge_selected", "_selected_action": [survivor.pk]}, follow=True
    ).content.decode()
    assert "Seleziona almeno due entità da unire." in alone

    ids = [survivor.pk, dup.pk, other.pk]
    page = italian_staff.post(
        CHANGELIST,
        {"action": "merge_selected", "_selected_action": ids, "allow_cross_type": "on"},
    ).content.decode()
    assert "Quale entità resta?" in page and "Aggiorna l'anteprima" in page
    # The dropped alias's reason, as the entity pages say it.
    assert "“M. Okonkwo” indica già “Marguerite Okonkwo”" in page
    assert "Which entity stays?" not in page and "already names" not in page
