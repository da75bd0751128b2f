from __future__ import annotations

import pytest

from entities.extraction import extract_entities, extract_entities_batch
from entities.services import entity_store

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_unknown_person_and_organisation_have_no_canonical_id():
    lisbon, _ = entity_store(name="Lisbon", type="place")
    text = "Barack Obama met the board of Microsoft in Lisbon last week."
    found = extract_entities(text, include_unknown=True)
    by_surface = {d.surface_form: d for d in found}
    assert by_surface["Lisbon"].canonical_id == lisbon.id
    assert by_surface["Barack Obama"].canonical_id is None
    assert by_surface["Barack Obama"].entity_type == "person"
    assert by_surface["Microsoft"].canonical_id is None
    assert by_surface["Microsoft"].entity_type == "organization"
    for d in found:
        assert text[d.start : d.end] == d.surface_form
    assert [d.start for d in found] == sorted(d.start for d in found)


def test_unknown_names_are_off_by_default_and_never_shadow_known_ones():
    obama, _ = entity_store(name="Barack Obama", type="person")
    text = "Barack Obama met the board of Microsoft."
    assert [d.canonical_id for d in extract_entities(text)] == [obama.id]
    found = extract_entities(text, include_unknown=True)
    assert [(d.surface_form, d.canonical_id) for d in found] == [
        ("Barack Obama", obama.id),
        ("Microsoft", None),
    ]


def test_batch_matches_single_calls():
    texts = ["Angela Merkel visited Paris.", "", "Nothing to see here."]
    batch = extract_entities_batch(texts, include_unknown=True)
    assert batch == [extract_entities(t, include_unknown=True) for t in texts]
    assert any(d.entity_type == "person" for d in batch[0])
