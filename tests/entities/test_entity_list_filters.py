"""The entity list's filters as a client types them: a name prefix in any case or Unicode
form, a type in any case, and its pages walked to the end, alike on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from entities.services import entity_store

pytestmark = pytest.mark.django_db


@pytest.fixture
def names():
    for name, type_ in [
        ("Émile Zola", "person"),
        ("Émilie du Châtelet", "person"),
        ("Straße Kite", "toy"),
        ("Box Kite", "toy"),
        ("Delta Kite", "toy"),
    ]:
        entity_store(name=name, type=type_)


def listed(api, **params) -> list[str]:
    response = api.get("/api/v1/entities/", params)
    assert response.status_code == 200, response.json()
    return sorted(e["canonical_name"] for e in response.json()["results"])


@pytest.mark.parametrize("prefix", ["Émi", "ÉMI", "émi", "e\u0301mi"])
def test_a_prefix_matches_in_any_case_or_unicode_form(api, names, prefix):
    assert listed(api, prefix=prefix) == ["Émile Zola", "Émilie du Châtelet"]


@pytest.mark.parametrize("prefix", ["straße", "STRASSE", "Strasse K"])
def test_a_sharp_s_prefix_matches_its_double_s_spelling(api, names, prefix):
    assert listed(api, prefix=prefix) == ["Straße Kite"]


@pytest.mark.parametrize("type_", ["", " ", "\u00a0"])
def test_a_type_filter_of_blanks_lists_every_type(api, names, type_):
    """Spaces from an emptied form field listed only untyped entities: here none."""
    assert len(listed(api, type=type_)) == 5


@pytest.mark.parametrize("type_", ["toy", "TOY", " Toy "])
def test_the_type_filter_takes_any_case(api, names, type_):
    assert listed(api, type=type_) == ["Box Kite", "Delta Kite", "Straße Kite"]
    assert listed(api, type=type_, prefix="box") == ["Box Kite"]


def test_walking_the_pages_lists_each_entity_once(api, names):
    seen, url, params = [], "/api/v1/entities/", {"page_size": 2}
    while url:
        body = api.get(url, params).json()
        assert body["count"] == 5 and len(body["results"]) <= 2
        seen += [e["id"] for e in body["results"]]
        url, params = body["next"], {}
    assert len(seen) == len(set(seen)) == 5
