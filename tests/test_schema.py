from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_openapi_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(out),
        stdout=StringIO(),
        stderr=StringIO(),
    )
    text = out.read_text()
    assert "/api/v1/entities/lookup" in text and "/api/v1/facts/" in text
