"""The audit log and the dashboard's recent actions show a reader (no curator
permission) global memory only, as every other page does: a project's facts are not
named, linked or quoted there."""

from __future__ import annotations

import pytest
from django.urls import reverse

from entities.services import fact_store
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.resolution import contradiction_resolve
from integrity.services import contradiction_store

pytestmark = pytest.mark.django_db

SECRET = "Acme ships the Falcon release on 3 March"


@pytest.fixture
def project_rows(curator):
    """An agent's project facts, stored (and audited) as the API stores them, with a
    contradiction between two of them, and one global fact."""
    first = fact_store(text=SECRET, scope="acme", actor=curator).fact
    second = fact_store(text="Acme ships the Falcon release on 9 May", scope="acme", actor=curator)
    verdict = Verdict("contradiction", "date", 0.9, "dates differ")
    contradiction_store(fact_a=first, fact_b=second.fact, verdict=verdict)
    contradiction_resolve(
        contradiction=Contradiction.objects.get(), resolution="keep_first", actor=curator
    )
    fact_store(text="The tower is 40 metres tall", actor=curator)
    return first


def test_a_reader_does_not_read_project_facts_in_the_audit_log(
    reader_client, curator_client, project_rows
):
    for url in (reverse("audit"), reverse("home")):
        html = reader_client.get(url).content.decode()
        assert "The tower is 40 metres tall" in html  # global memory is named
        assert "Falcon" not in html, url
        assert f"/entities/facts/{project_rows.pk}/" not in html
    # curators see every project, here too
    assert "Falcon" in curator_client.get(reverse("audit")).content.decode()
