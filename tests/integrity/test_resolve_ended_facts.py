"""Resolving a contradiction whose fact ended meanwhile: a curator retracted it, or
corrected it (superseded by an edit). The resolution must not rewrite that history: a
retracted fact stays retracted (not "superseded"), an edited one stays superseded (not
"retracted"), and undoing the resolution gives back the state it had."""

from __future__ import annotations

import pytest

from entities.curation import fact_supersede
from entities.models import Fact
from entities.services import fact_update


def _end(fact: Fact, how: str, actor) -> None:
    if how == "retracted":
        fact_update(fact=fact, actor=actor, status=Fact.Status.RETRACTED)
    else:
        fact_supersede(fact=fact, text="Alice was born in 1986.", actor=actor)


@pytest.mark.parametrize("how", ["retracted", "superseded"])
@pytest.mark.parametrize("resolution", ["keep_first", "drop_both"])
def test_a_fact_ended_meanwhile_keeps_its_status(
    curator_api, curator, contradiction, how, resolution
):
    second = contradiction.fact_b
    _end(second, how, curator)
    second.refresh_from_db()
    ended = (second.status, second.valid_to)
    assert second.status == how

    url = f"/api/v1/integrity/contradictions/{contradiction.pk}/"
    response = curator_api.post(
        url + "resolve", {"resolution": resolution, "note": ""}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["fact_b"]["status"] == how
    second.refresh_from_db()
    assert (second.status, second.valid_to) == ended
    first = Fact.objects.get(pk=contradiction.fact_a_id)
    assert first.status == ("active" if resolution == "keep_first" else "retracted")

    assert curator_api.post(url + "undo", format="json").status_code == 200
    second.refresh_from_db()
    assert (second.status, second.valid_to) == ended
    first.refresh_from_db()
    assert first.status == "active"
