"""Page test fixtures: logged-in clients for a curator and a reader, with CSRF enforced
where a test posts as a browser would."""

from __future__ import annotations

import pytest
from django.test import Client

from entities.services import alias_add, entity_store

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def csrf_client(curator) -> Client:
    """A curator's browser: CSRF enforced, the token taken from a page as htmx does."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(curator)
    return client


def csrf_token(client: Client, url: str = "/") -> str:
    """The token a page puts in ``hx-headers`` on <body>."""
    client.get(url)
    return client.cookies["csrftoken"].value


@pytest.fixture
def holmes(db):
    entity, _ = entity_store(name="Sherlock Holmes", type="person")
    alias_add(entity=entity, alias="Mr. Holmes")
    return entity
