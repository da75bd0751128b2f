"""Shared fixtures: users with and without the curator permission, API clients (anonymous,
reader, curator)."""

from __future__ import annotations

import os

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Group, Permission, User
from django.test import Client
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from kgsite.vectors import service as vector_service

# Property tests draw the same examples on every run, so a CI run is reproducible and a
# red one is red again on a laptop. To search further, HYPOTHESIS_PROFILE=explore draws
# new examples each run (and keeps failures in .hypothesis/).
hypothesis_settings.register_profile("ci", derandomize=True)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def curators_group() -> Group:
    """The group migration 0002 creates; a transactional test's flush removes it (the
    permission comes back with post_migrate), so recreate it the same way."""
    group, _ = Group.objects.get_or_create(name="curators")
    group.permissions.add(
        Permission.objects.get(codename="curate", content_type__app_label="entities")
    )
    return group


@pytest.fixture
def curator(db) -> User:
    user = User.objects.create_user("curator", password="curator-pass")
    user.groups.add(curators_group())
    return user


@pytest.fixture
def reader(db) -> User:
    return User.objects.create_user("reader", password="reader-pass")


@pytest.fixture
def anon_api() -> APIClient:
    """No credentials: reads are refused unless KGSITE_PUBLIC_READ opens them."""
    return APIClient()


@pytest.fixture
def api(reader) -> APIClient:
    """An authenticated reader without the curator permission (reads need credentials)."""
    client = APIClient()
    client.force_authenticate(reader)
    return client


@pytest.fixture
def curator_client(curator) -> Client:
    """A curator logged in to the pages."""
    client = Client()
    client.force_login(curator)
    return client


@pytest.fixture
def reader_client(reader) -> Client:
    """A reader logged in to the pages."""
    client = Client()
    client.force_login(reader)
    return client


@pytest.fixture
def curator_api(curator) -> APIClient:
    client = APIClient()
    client.force_authenticate(curator)
    return client


def pgvector_backend() -> bool:
    """True in CI's third run (KGSITE_VECTOR_BACKEND=pgvector): vectors in PostgreSQL."""
    return django_settings.KGSITE_VECTOR_BACKEND == "pgvector"


def pytest_collection_modifyitems(config, items):
    """Tests of the hnswlib files themselves (journal, generations) skip on pgvector;
    every other test runs on both backends."""
    if not pgvector_backend():
        return
    skip = pytest.mark.skip(reason="hnswlib files only (KGSITE_VECTOR_BACKEND=pgvector)")
    for item in items:
        if item.get_closest_marker("hnswlib_only"):
            item.add_marker(skip)


@pytest.fixture
def vector_dir(request, tmp_path, settings):
    """A fresh vector directory and no in-memory indexes: a process starting cold.
    On pgvector the vectors are rows, so the test gets the database."""
    if pgvector_backend() and not request.node.get_closest_marker("django_db"):
        request.getfixturevalue("db")
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    settings.KGSITE_GAZETTEER_RECHECK_SECONDS = 0
    vector_service.vector_indexes_reset()
    yield settings.KGSITE_VECTOR_DIR
    vector_service.vector_indexes_reset()


def restart() -> None:
    """What a new process sees: only the files on disk."""
    vector_service.vector_indexes_reset()


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle counters (bad API tokens per address) live in the cache: no test sees
    another's. Login failures (django-axes) are rows, rolled back with the test."""
    yield
    from django.core.cache import cache

    cache.clear()
