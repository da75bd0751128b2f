"""A refused resolution names the fact it is about: the page finds that fact in the
service's refusal itself, not in the words of its English message, and the API's error
body stays as it was (code, message, field)."""

from __future__ import annotations

from entities.models import Fact
from entities.services import fact_update
from integrity.views import refusal
from kgsite.errors import Conflict


def test_the_page_names_the_fact_the_refusal_carries(contradiction):
    second = contradiction.fact_b
    # A message in other words (no "fact N" in it): the fact comes with the refusal.
    refused = Conflict("refused", code="kept_inactive", fact_id=second.pk)
    said = refusal(refused, contradiction)
    assert f"fact {second.pk} " in said and f"fact {contradiction.fact_a_id} " not in said


def test_keeping_an_ended_fact_names_it_on_the_page_and_in_the_api(
    curator, curator_client, curator_api, contradiction
):
    second = contradiction.fact_b
    fact_update(fact=second, actor=curator, status=Fact.Status.RETRACTED)
    page = curator_client.post(
        f"/integrity/contradictions/{contradiction.pk}/resolve",
        {"resolution": "keep_second"},
        HTTP_HX_REQUEST="true",
    )
    assert page.status_code == 400
    assert f"fact {second.pk} is retracted already" in page.content.decode()

    url = f"/api/v1/integrity/contradictions/{contradiction.pk}/resolve"
    body = curator_api.post(url, {"resolution": "keep_second"}, format="json").json()
    assert body == {
        "error": {
            "code": "kept_inactive",
            "message": f"fact {second.pk} is retracted already, so it cannot be kept; undo "
            "what ended it, or choose another resolution",
            "field": "resolution",
        }
    }
