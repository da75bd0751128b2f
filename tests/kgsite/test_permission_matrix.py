"""No anonymous caller or reader changes anything (issue 27: the permission matrix).

A sample of the routes of ``python -m benchmarks permissions`` (every third route
outside the admin, and the admin's index and one change form), through the same code:
each request with every table fingerprinted before and after.
"""

from __future__ import annotations

import pytest

from benchmarks import bench_permissions as matrix

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded(vector_dir, settings):
    settings.KGSITE_PUBLIC_READ = False
    ids = matrix.seed()
    return ids, matrix.routes(ids)


def test_the_routes_cover_pages_admin_and_api(seeded):
    ids, paths = seeded
    assert len(paths) >= 100
    assert f"/api/v1/facts/{ids['fact_id']}/" in paths
    assert f"/entities/{ids['entity_id']}/merge" in paths
    assert "/admin/entities/entity/" in paths


def test_no_anonymous_or_reader_request_writes(seeded):
    ids, paths = seeded
    sample = [p for p in paths if not p.startswith("/admin/")][::3]
    sample += ["/admin/", f"/admin/entities/fact/{ids['fact_id']}/change/"]
    readers = ("anonymous", "reader token", "reader session")
    result = matrix.matrix_run(sample, ids, roles=readers)
    assert len(result.outcomes) == len(sample) * 3 * 5
    assert result.unauthorised() == []
    assert [o for o in result.outcomes if o.status >= 500] == []


def test_the_fingerprint_sees_a_curator_write(seeded):
    """The harness itself: a curator's new fact and alias show as writes."""
    ids, _ = seeded
    paths = ["/api/v1/facts/", f"/api/v1/entities/{ids['entity_id']}/aliases/"]
    result = matrix.matrix_run(paths, ids, roles=("curator",), methods=("post",))
    fact, alias = (set(o.changed) for o in result.outcomes)
    assert "entities_fact" in fact and {"entities_alias", "kgsite_auditentry"} <= alias
    assert result.unauthorised() == []  # a curator's writes are allowed
