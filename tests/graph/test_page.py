"""The entity graph page: linked from the admin, drawn by the vendored vis-network."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings

from entities.graph.edges import edges_rebuild

from .conftest import make_entity, state

pytestmark = pytest.mark.django_db


def test_the_admin_links_to_a_page_that_draws_the_graph(client, curator):
    curator.is_staff = True
    curator.is_superuser = True
    curator.save()
    app, lib = make_entity("Ledgerly", "software"), make_entity("Quillpack", "library")
    fact = state(app, "uses", lib)
    edges_rebuild()
    client.force_login(curator)
    admin_page = client.get(f"/admin/entities/entity/{app.pk}/change/").content.decode()
    assert f'href="/graph/entity/{app.pk}/"' in admin_page
    page = client.get(f"/graph/entity/{app.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "vendor/vis-network/vis-network.min.js" in html
    # Every script and stylesheet is served by the site itself (no CDN): a random
    # CSRF token may contain the letters "cdn", so look at the addresses only.
    external = re.findall(r'(?:src|href)="((?:https?:)?//[^"]*)"', html)
    assert external == []
    data = json.loads(
        html.split('id="graph-data" type="application/json">')[1].split("</script>")[0]
    )
    assert {n["label"] for n in data["nodes"]} == {"Ledgerly", "Quillpack"}
    assert data["edges"][0]["fact_ids"] == [fact.pk]


def test_the_library_and_its_licence_are_served_from_static():
    folder = Path(settings.BASE_DIR) / "static" / "vendor" / "vis-network"
    assert (folder / "vis-network.min.js").stat().st_size > 100_000
    assert (folder / "LICENSE-MIT").exists() and (folder / "LICENSE-APACHE-2.0").exists()


def test_the_page_needs_a_login(client, db):
    entity = make_entity("Ledgerly", "software")
    assert client.get(f"/graph/entity/{entity.pk}/").status_code == 302
