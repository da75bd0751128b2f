"""What a curator reads on a TransE training run once it has ended (GET /api/v1/kge/models)."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from entities.graph import services as graph_services
from entities.graph.edges import edges_rebuild
from entities.graph.models import KGEModel
from entities.graph.services import kge_train

from .conftest import make_entity, state

# Early stopping after the second check: no check can beat the best by 1000 %.
STOPS_EARLY = {"dim": 8, "epochs": 100, "eval_every": 2, "patience": 1, "relative_delta": 10.0}


@pytest.fixture
def small_world(db):
    people = [make_entity(f"Walker {i}", "person") for i in range(8)]
    towns = [make_entity(n, "place") for n in ("Oldport", "Ferrow", "Lintby")]
    for i, person in enumerate(people):
        state(person, "was born in", towns[i % 3])
        state(person, "knows", people[(i + 1) % 8])
    edges_rebuild()


def test_an_early_stopped_run_reads_as_finished_not_stuck_part_way(small_world, curator_api):
    run = kge_train(config=STOPS_EARLY)
    assert run.status == "ready" and run.metrics["epochs"] < STOPS_EARLY["epochs"]
    row = curator_api.get("/api/v1/kge/models").json()["results"][0]
    assert row["id"] == run.pk
    assert row["done"] == row["total"] == run.metrics["epochs"]


def test_a_failed_run_tells_the_reason_in_one_line_without_a_traceback(
    small_world, curator_api, monkeypatch
):
    def broken(*args, **kwargs):
        raise RuntimeError("not enough memory for the entity table")

    monkeypatch.setattr(graph_services, "train_transe", broken)
    with pytest.raises(RuntimeError):
        kge_train(config={"dim": 8, "epochs": 5})
    row = curator_api.get("/api/v1/kge/models").json()["results"][0]
    assert row["status"] == "failed"
    assert row["error"] == "RuntimeError: not enough memory for the entity table"
    assert KGEModel.objects.get(pk=row["id"]).error == row["error"]


@pytest.mark.parametrize("seed", [2**64, 10**30])
def test_a_seed_torch_cannot_take_is_refused_before_anything_is_queued(curator_api, db, seed):
    """torch.manual_seed stops at 2**64: such a seed was queued (202) and the run then
    failed mid-way in the worker."""
    response = curator_api.post("/api/v1/kge/models", {"seed": seed}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "seed"
    with pytest.raises(CommandError, match="--seed must be between 0 and"):
        call_command("train_kge", "--seed", str(seed), "--no-progress")
    assert not KGEModel.objects.exists()
