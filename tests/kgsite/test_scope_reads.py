"""Scope on every read by id: a fact, a contradiction or a notice of another project is
not found (404) unless the reader names that project or opts into every project; the
pages show curators every project and other readers global memory only."""

from __future__ import annotations

import pytest
from django.test import Client

from entities.services import fact_store
from integrity.detection.classifier import CONTRADICTION, Verdict
from integrity.services import contradiction_store

pytestmark = pytest.mark.django_db


@pytest.fixture
def facts(vector_dir):
    def store(text, scope):
        return fact_store(text=text, scope=scope).fact

    return {
        "global": store("The archive door code is 4417", ""),
        "alpha": store("The alpha deploy window opens at nine", "alpha"),
        "beta": store("The beta deploy window opens at six", "beta"),
        "beta2": store("The beta deploy window opens at eight", "beta"),
    }


@pytest.fixture
def beta_contradiction(facts):
    verdict = Verdict(CONTRADICTION, "value", 0.97, "six against eight")
    return contradiction_store(fact_a=facts["beta"], fact_b=facts["beta2"], verdict=verdict)


def test_a_fact_of_another_project_is_not_found_without_its_scope(api, facts):
    beta = facts["beta"].pk
    assert api.get(f"/api/v1/facts/{beta}/").status_code == 404
    assert api.get(f"/api/v1/facts/{beta}/", {"scope": "alpha"}).status_code == 404
    assert api.get(f"/api/v1/facts/{beta}/", {"scope": "beta"}).status_code == 200
    assert api.get(f"/api/v1/facts/{beta}/", {"all_scopes": "true"}).status_code == 200
    # Global memory is seen by every reader.
    glob = facts["global"].pk
    assert api.get(f"/api/v1/facts/{glob}/", {"scope": "alpha"}).status_code == 200
    assert api.get(f"/api/v1/facts/{glob}/").status_code == 200
    body = api.get(f"/api/v1/facts/{beta}/").json()
    assert body["error"]["code"] and "beta" not in body["error"]["message"]


def test_a_contradiction_of_another_project_is_not_found_or_listed(api, beta_contradiction):
    url = f"/api/v1/integrity/contradictions/{beta_contradiction.pk}/"
    assert api.get(url).status_code == 404
    assert api.get(url, {"scope": "alpha"}).status_code == 404
    assert api.get(url, {"scope": "beta"}).status_code == 200
    listed = api.get("/api/v1/integrity/contradictions/", {"scope": "alpha"}).json()
    assert listed["count"] == 0
    listed = api.get("/api/v1/integrity/contradictions/", {"all_scopes": "true"}).json()
    assert [row["id"] for row in listed["results"]] == [beta_contradiction.pk]


def test_notices_about_a_project_reach_only_its_readers(curator_api, beta_contradiction):
    alpha = curator_api.get("/api/v1/notifications/digest", {"scope": "alpha"}).json()
    assert alpha["high_count"] == 0 and alpha["high"] == []
    beta = curator_api.get("/api/v1/notifications/digest", {"scope": "beta"}).json()
    assert beta["high_count"] == 1 and beta["high"][0]["scope"] == "beta"
    # A curator's inbox without a scope: everything the curator may see.
    inbox = curator_api.get("/api/v1/notifications/").json()
    assert inbox["counts"]["total"] == 1
    counts = curator_api.get("/api/v1/notifications/unread-count", {"scope": "alpha"}).json()
    assert counts["total"] == 0


def test_session_start_shows_only_the_projects_own_contradictions(beta_contradiction):
    from entities.recall.options import RecallOptions
    from entities.recall.selectors import recall_session_start
    from entities.scopes import ScopeFilter

    def notices(scopes):
        result = recall_session_start(scopes=scopes, options=RecallOptions.defaults())
        return result["notifications"]

    assert notices(ScopeFilter(scope="alpha")) == []
    assert len(notices(ScopeFilter(scope="beta"))) == 1


def test_pages_show_curators_every_project_and_readers_global_memory(reader, curator, facts):
    as_reader, as_curator = Client(), Client()
    as_reader.force_login(reader)
    as_curator.force_login(curator)
    beta = facts["beta"].pk
    assert as_reader.get(f"/entities/facts/{beta}/").status_code == 404
    assert as_curator.get(f"/entities/facts/{beta}/").status_code == 200
    assert as_reader.get(f"/entities/facts/{facts['global'].pk}/").status_code == 200


def test_the_entity_page_lists_a_readers_facts_only(reader, curator, vector_dir):
    from entities.services import entity_store

    entity, _ = entity_store(name="Harbour Gate", type="place")
    fact_store(text="Harbour Gate closes at dusk for alpha crews", entities=[entity], scope="alpha")
    fact_store(text="Harbour Gate is painted blue", entities=[entity])
    as_reader, as_curator = Client(), Client()
    as_reader.force_login(reader)
    as_curator.force_login(curator)
    page = as_reader.get(f"/entities/{entity.pk}/").content.decode()
    assert "painted blue" in page and "dusk" not in page
    page = as_curator.get(f"/entities/{entity.pk}/").content.decode()
    assert "painted blue" in page and "dusk" in page
