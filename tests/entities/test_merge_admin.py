"""The admin's "Merge selected entities" action: preview page, survivor choice, merge."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User

from entities.models import Entity, EntityMerge

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/entities/entity/"


@pytest.fixture
def staff_curator(client, curator):
    curator.is_staff = True
    curator.save()
    for codename in ("view_entity", "change_entity", "view_entitymerge"):
        curator.user_permissions.add(Permission.objects.get(codename=codename))
    client.force_login(User.objects.get(pk=curator.pk))
    return client


def action(graph, *extra_ids, **data):
    ids = [graph["survivor"].pk, graph["dup"].pk, *extra_ids]
    return {"action": "merge_selected", "_selected_action": ids, **data}


def test_first_step_shows_the_preview_and_writes_nothing(staff_curator, graph):
    page = staff_curator.post(CHANGELIST, action(graph))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Which entity stays?" in html
    assert "Maggie Okonkwo" in html and "New aliases" in html
    assert not EntityMerge.objects.exists()


def test_choosing_the_survivor_and_confirming_merges(staff_curator, graph):
    survivor, dup = graph["survivor"], graph["dup"]
    preview = staff_curator.post(CHANGELIST, action(graph, survivor=dup.pk))
    assert f'value="{dup.pk}" checked' in preview.content.decode()
    response = staff_curator.post(
        CHANGELIST, action(graph, survivor=survivor.pk, _confirm="Merge"), follow=True
    )
    assert response.status_code == 200
    assert "Merged 1 entities into" in response.content.decode()
    assert not Entity.objects.filter(pk=dup.pk).exists()
    assert EntityMerge.objects.get().survivor == survivor


def test_cross_type_without_the_box_shows_the_error(staff_curator, graph):
    page = staff_curator.post(CHANGELIST, action(graph, graph["other"].pk, _confirm="Merge"))
    html = page.content.decode()
    assert "allow_cross_type" in html and "not of the survivor" in html
    assert Entity.objects.filter(pk=graph["other"].pk).exists()


def test_the_action_needs_the_curate_permission(client, graph):
    staff = User.objects.create_user("staff", password="x", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_entity"))
    client.force_login(staff)
    page = client.get(CHANGELIST)
    assert "merge_selected" not in page.content.decode()
    client.post(CHANGELIST, action(graph, _confirm="Merge"))
    assert Entity.objects.filter(pk=graph["dup"].pk).exists()


def test_merge_history_page_summarises_and_undoes(staff_curator, graph, curator):
    staff_curator.post(CHANGELIST, action(graph, _confirm="Merge"))
    merge = EntityMerge.objects.get()
    page = staff_curator.get(f"/admin/entities/entitymerge/{merge.pk}/change/")
    assert page.status_code == 200
    assert "new aliases: Maggie Okonkwo" in page.content.decode()
    response = staff_curator.post(
        "/admin/entities/entitymerge/",
        {"action": "undo_selected", "_selected_action": [merge.pk]},
        follow=True,
    )
    assert f"Undid merge {merge.pk}." in response.content.decode()
    assert Entity.objects.filter(pk=graph["dup"].pk).exists()


def test_a_survivor_changed_after_the_preview_is_previewed_again_before_merging(
    staff_curator, graph
):
    """The preview shows one survivor; choosing another and pressing Merge straight away
    merged into the one never previewed (its aliases, facts and conflicts unseen)."""
    import re

    survivor, dup = graph["survivor"], graph["dup"]
    preview = staff_curator.post(CHANGELIST, action(graph, survivor=dup.pk)).content.decode()
    previewed = re.search(r'name="previewed" value="([^"]*)"', preview).group(1)
    changed = staff_curator.post(
        CHANGELIST,
        action(graph, survivor=survivor.pk, previewed=previewed, _confirm="Merge"),
    )
    html = changed.content.decode()
    assert changed.status_code == 200 and "changed since the preview" in html
    assert f'value="{survivor.pk}" checked' in html
    assert not EntityMerge.objects.exists()
    again = re.search(r'name="previewed" value="([^"]*)"', html).group(1)
    staff_curator.post(
        CHANGELIST, action(graph, survivor=survivor.pk, previewed=again, _confirm="Merge")
    )
    assert EntityMerge.objects.get().survivor == survivor
