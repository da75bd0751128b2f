"""The models and their migrations agree: a fresh install creates every table, column
and index the code reads (a change to a model without its migration would otherwise
show only on a user's database, as a missing column or a slow scan)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:
        pytest.fail(f"models changed without a migration:\n{out.getvalue()}{exit_}")
