"""check_pending_facts when a check fails: one line and a non-zero exit."""

from __future__ import annotations

import io

import pytest

from entities.services import entity_store, fact_store
from integrity import services
from integrity.models import PendingFactCheck

pytestmark = pytest.mark.django_db


def test_the_pending_checks_command_fails_in_one_line_when_a_check_fails(monkeypatch, capsys):
    """It printed each failure's traceback and 'checked 0 of 1 pending facts; 1 left'
    with exit 0, as if all were well."""
    from django.core.management import CommandError, call_command

    alice = entity_store(name="Alice", type="person")[0]
    fact = fact_store(text="Alice lives in Paris.", subject=alice).fact
    services.fact_check_defer(fact_id=fact.pk, error="down")

    def explode(*, fact_id):
        raise RuntimeError("database hiccup")

    monkeypatch.setattr(services, "fact_check", explode)
    with pytest.raises(CommandError) as caught:
        call_command("check_pending_facts", stdout=io.StringIO())
    assert str(caught.value) == (
        "checked 0 of 1 pending facts; 1 left: 1 could not be checked "
        f"(fact {fact.pk}: RuntimeError: database hiccup)"
    )
    assert "Traceback" not in capsys.readouterr().err
    assert PendingFactCheck.objects.filter(fact=fact).exists()
