"""The bell follows what curators decide elsewhere: a contradiction rings it, resolving
it in the inbox (or through the API) silences it for every curator, and undoing the
resolution rings it again. A curator never chases a notice about something settled, nor
misses one about something reopened."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from entities.services import fact_store
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.services import contradiction_store
from tests.conftest import curators_group

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _badge(client: Client) -> int:
    html = client.get(reverse("notifications:badge"), **HTMX).content.decode()
    return int(re.search(r'data-count="(\d+)"', html).group(1))


def _pair(first: str, second: str, confidence: float = 0.95) -> Contradiction:
    a, b = fact_store(text=first).fact, fact_store(text=second).fact
    verdict = Verdict("contradiction", "number", confidence, "values differ")
    return contradiction_store(fact_a=a, fact_b=b, verdict=verdict)


@pytest.fixture
def second_curator(curator) -> Client:
    other = User.objects.create_user("second", password="second-pass")
    other.groups.add(curators_group())
    client = Client()
    client.force_login(other)
    return client


def test_a_contradiction_rings_the_bell_and_links_to_its_card(curator_client):
    before = _badge(curator_client)
    pair = _pair("The tower is 40 metres tall", "The tower is 55 metres tall")
    assert _badge(curator_client) == before + 1
    panel = curator_client.get(reverse("notifications:panel"), **HTMX).content.decode()
    assert reverse("integrity:detail", args=[pair.pk]) in panel


def test_resolving_silences_it_for_every_curator_and_undo_rings_it_again(
    curator_client, second_curator
):
    pair = _pair("The tower is 40 metres tall", "The tower is 55 metres tall")
    rung = _badge(second_curator)
    assert rung >= 1
    curator_client.post(
        reverse("integrity:resolve", args=[pair.pk]), {"resolution": "keep_first"}, **HTMX
    )
    assert _badge(second_curator) == rung - 1
    assert _badge(curator_client) == rung - 1
    curator_client.post(reverse("integrity:undo", args=[pair.pk]), **HTMX)
    assert _badge(second_curator) == rung


def test_a_refused_resolution_leaves_the_bell_as_it_was(curator_client):
    pair = _pair("The tower is 40 metres tall", "The tower is 55 metres tall")
    rung = _badge(curator_client)
    response = curator_client.post(
        reverse("integrity:resolve", args=[pair.pk]), {"resolution": "both_true"}, **HTMX
    )
    assert response.status_code == 400 and "HX-Trigger" not in response
    assert _badge(curator_client) == rung


def test_a_resolution_through_the_api_silences_the_bell_too(curator_client, curator_api):
    pair = _pair("The tower is 40 metres tall", "The tower is 55 metres tall")
    rung = _badge(curator_client)
    url = f"/api/v1/integrity/contradictions/{pair.pk}/resolve"
    assert curator_api.post(url, {"resolution": "drop_both"}).status_code == 200
    assert _badge(curator_client) == rung - 1


def test_a_low_confidence_contradiction_still_waits_in_the_inbox(curator_client):
    pair = _pair("The ferry leaves at 7", "The ferry leaves at 9", confidence=0.3)
    html = curator_client.get(reverse("integrity:inbox")).content.decode()
    assert f'id="contradiction-{pair.pk}"' in html
