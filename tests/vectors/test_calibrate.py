"""ef_search calibrated on the index's own vectors: the smallest value reaching a target."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from kgsite.vectors import service
from kgsite.vectors.calibrate import calibrate, calibrated_ef
from kgsite.vectors.index import KINDS, register_kind

SIZE, DIM = 3000, 32


@pytest.fixture
def clustered(vector_dir, settings):
    """3,000 vectors in 60 tight clusters, from a kind whose vectors come from elsewhere;
    a sparse graph (M=4) so a small ef_search misses neighbours."""
    settings.KGSITE_HNSW_M = 4
    settings.KGSITE_HNSW_EF_CONSTRUCTION = 16
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(60, DIM))
    table = centres[rng.integers(0, 60, SIZE)] + 0.3 * rng.normal(size=(SIZE, DIM))
    table = (table / np.linalg.norm(table, axis=1, keepdims=True)).astype(np.float32)

    def vectors(pairs):
        return np.stack([table[int(key)] for key, _version in pairs])

    register_kind(
        "probe", lambda ids: [(k, "v1") for k in (ids if ids is not None else range(SIZE))],
        vectors=vectors, dim=DIM, signature="probe-v1",
    )  # fmt: skip
    service.vector_indexes_reset()
    service.vector_rebuild("probe")
    yield service.vector_index("probe")
    KINDS.pop("probe", None)
    service.vector_indexes_reset()


@pytest.mark.django_db
def test_the_chosen_ef_reaches_the_target_and_a_smaller_one_does_not(clustered):
    result = calibrate(clustered, target=0.97, k=10, queries=100)
    assert result.live == SIZE and result.reached
    recalls = {ef: recall for ef, (recall, _ms) in result.steps.items()}
    assert recalls[result.ef_search] >= 0.97
    assert all(recall < 0.97 for ef, recall in recalls.items() if ef < result.ef_search)
    assert min(recalls) < result.ef_search  # the sparse graph needed more than the first step
    assert clustered.ef_search == clustered._ef_setting  # measuring changes nothing


@pytest.mark.django_db
def test_the_command_keeps_the_value_and_a_new_process_uses_it(clustered, vector_dir):
    out = StringIO()
    call_command("calibrate_vectors", "--kind", "probe", "--target", "0.9", stdout=out)
    saved = json.loads((vector_dir / "probe" / "calibration.json").read_text())
    assert f"ef_search {saved['ef_search']} reaches recall 0.9" in out.getvalue()
    service.vector_indexes_reset()  # as another process would open it
    reopened = service.vector_index("probe")
    assert reopened.search(np.eye(DIM, dtype=np.float32)[0], 5)
    assert reopened.ef_search == saved["ef_search"] != reopened._ef_setting
    # Measured at 3,000 vectors: a store four times larger falls back to the setting.
    assert calibrated_ef("probe", live=SIZE * 4, signature="probe-v1", default=256) == 256
    assert calibrated_ef("probe", live=SIZE, signature="other-model", default=256) == 256


@pytest.mark.django_db
def test_bad_arguments_are_one_readable_line(clustered):
    with pytest.raises(CommandError, match="unknown kind 'nope'"):
        call_command("calibrate_vectors", "--kind", "nope")
    with pytest.raises(CommandError, match="--target must be above 0 and at most 1"):
        call_command("calibrate_vectors", "--kind", "probe", "--target", "1.5")


@pytest.mark.django_db
@pytest.mark.parametrize("content", ["[]", '{"signature": "probe-v1", "ef_search": 64}', '"fast"'])
def test_a_calibration_file_of_another_shape_leaves_the_setting(clustered, vector_dir, content):
    """A calibration file edited by hand (or written by another version) that was JSON
    but no calibration made every search of the kind fail ('list' has no 'get', a
    missing 'live' a KeyError), on either backend."""
    path = vector_dir / "probe" / "calibration.json"
    path.parent.mkdir(parents=True, exist_ok=True)  # pgvector keeps no index files there
    path.write_text(content)
    service.vector_indexes_reset()  # as another process would open it
    reopened = service.vector_index("probe")
    assert len(reopened.search(np.eye(DIM, dtype=np.float32)[0], 5)) == 5
    assert reopened.ef_search == reopened._ef_setting
