"""Shared fixtures: users with and without the curator permission, API clients."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from rest_framework.test import APIClient


@pytest.fixture
def curator(db) -> User:
    user = User.objects.create_user("curator", password="curator-pass")
    user.groups.add(Group.objects.get(name="curators"))
    return user


@pytest.fixture
def reader(db) -> User:
    return User.objects.create_user("reader", password="reader-pass")


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def curator_api(curator) -> APIClient:
    client = APIClient()
    client.force_authenticate(curator)
    return client
