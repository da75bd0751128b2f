"""A button on a card whose object was deleted since the page was drawn (a fact deleted
in the admin takes its contradictions along): the swapped card says so in a few words;
the whole 404 page, header and all, was swapped inside the card."""

from __future__ import annotations

import pytest
from django.urls import reverse

from entities.models import Fact
from entities.services import fact_delete, fact_store
from integrity.detection.classifier import Verdict
from integrity.models import Contradiction
from integrity.services import contradiction_store

pytestmark = pytest.mark.django_db


def _swap(client, url: str, data: dict, target: str):
    return client.post(url, data, HTTP_HX_REQUEST="true", HTTP_HX_TARGET=target)


def _gone(response, target: str) -> None:
    assert response.status_code == 404
    html = response.content.decode()
    assert html.startswith(f'<div id="{target}"') and "<html" not in html
    assert 'role="alert"' in html and "deleted or merged since the page was drawn" in html


def test_resolving_a_contradiction_deleted_meanwhile(curator_client, curator):
    a, b = (fact_store(text=f"The pier is {n} metres long").fact for n in (80, 95))
    verdict = Verdict("contradiction", "number", 0.9, "values differ")
    contradiction = contradiction_store(fact_a=a, fact_b=b, verdict=verdict)
    url = reverse("integrity:resolve", args=[contradiction.pk])
    fact_delete(fact=a, actor=curator)
    target = f"contradiction-{contradiction.pk}"
    _gone(_swap(curator_client, url, {"resolution": "keep_second"}, target), target)
    assert Fact.objects.get(pk=b.pk).status == "active"
    assert not Contradiction.objects.exists()


def test_retracting_a_fact_deleted_meanwhile(curator_client, curator, holmes):
    fact = fact_store(text="Holmes keeps a scrapbook", entities=[holmes]).fact
    url = reverse("entities:fact-retract", args=[fact.pk])
    fact_delete(fact=fact, actor=curator)
    _gone(_swap(curator_client, url, {"entity": holmes.pk}, "facts"), "facts")


def test_a_target_that_is_no_element_id_is_left_out(curator_client):
    response = _swap(curator_client, "/integrity/contradictions/999/resolve", {}, 'x" onclick')
    assert response.status_code == 404
    assert response.content.decode().startswith('<div class="card gone">')


def test_a_page_that_is_not_there_is_still_the_whole_404_page(curator_client):
    response = curator_client.get("/integrity/contradictions/999/")
    assert response.status_code == 404 and b"<html" in response.content
