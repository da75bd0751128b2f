"""Schemathesis against the live OpenAPI schema, through the WSGI app (no network).

Every operation gets a bounded number of generated requests, anonymous, as a reader and
as a curator, and fails on any 5xx, any answer whose body or content type the schema
does not describe, and any status code it does not document. ``KGSITE_FUZZ_EXAMPLES``
sets the examples per operation (default 8: about 1,000 requests, under a minute).
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from entities.services import alias_add, entity_store, fact_store

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("KGSITE_FUZZ_EXAMPLES", "8"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture
def some_data(db) -> None:
    """A little data so some ids and names resolve."""
    entity, _ = entity_store(name="Ankara", type="place")
    alias_add(entity=entity, alias="Angora")
    fact_store(text="Ankara is the capital of Turkey.", entities=[entity])


@pytest.fixture
def curator_headers(curator) -> dict[str, str]:
    return {"Authorization": f"Token {Token.objects.create(user=curator).key}"}


@pytest.fixture
def reader_headers(reader) -> dict[str, str]:
    return {"Authorization": f"Token {Token.objects.create(user=reader).key}"}


@pytest.fixture
def api_schema(vector_dir, some_data):
    # As Django's test client does: a request's end must not close the connection that
    # holds the test's transaction.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def fuzz(schema, headers: dict[str, str]) -> list[str]:
    """Run every operation's bounded examples; the failures, one line each.

    Driven by hand rather than ``schemathesis.pytest.from_fixture``: its lazy loader
    reads a pytest attribute that pytest 9 no longer has.
    """
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @bounded
        def run(case) -> None:
            case.call_and_validate(headers=headers, checks=CHECKS)

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - collect them all
            failures.append(f"{operation.label}: {exc}")
    return failures


bounded = hypothesis_settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    database=None,
)


def test_anonymous_callers_get_what_the_schema_says(api_schema):
    failures = fuzz(api_schema, {})
    assert not failures, "\n".join(failures)


def test_a_reader_gets_what_the_schema_says(api_schema, reader_headers):
    """Every read answered in full; every write refused (403)."""
    failures = fuzz(api_schema, reader_headers)
    assert not failures, "\n".join(failures)


def test_a_curator_gets_what_the_schema_says(api_schema, curator_headers):
    failures = fuzz(api_schema, curator_headers)
    assert not failures, "\n".join(failures)
