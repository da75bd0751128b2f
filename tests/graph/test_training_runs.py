"""What a curator reads on a TransE training run once it has ended (GET /api/v1/kge/models)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from entities.graph import services as graph_services
from entities.graph.edges import edges_rebuild
from entities.graph.models import KGEModel
from entities.graph.services import kge_runs_recover, kge_start, kge_train

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


@pytest.mark.parametrize("field", ["epoch", "dimension", "eval_every"])
def test_a_setting_the_endpoint_does_not_take_is_refused_before_anything_is_queued(
    curator_api, db, field
):
    """ "epoch" for "epochs" was dropped: the run was queued with the default 200."""
    response = curator_api.post("/api/v1/kge/models", {field: 5}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == field and "epochs" in error["message"]
    assert not KGEModel.objects.exists()


def test_a_run_whose_worker_died_reads_failed_in_one_line_and_a_new_run_trains(
    small_world, curator_api, settings
):
    """A worker killed mid-training left its run "training" for ever."""
    live = kge_start(config={"dim": 8, "epochs": 5})
    queued = kge_start(config={"dim": 8, "epochs": 5})
    dead = kge_start(config={"dim": 8, "epochs": 5})
    silent = timezone.now() - timedelta(seconds=settings.KGSITE_JOB_LEASE_SECONDS + 1)
    KGEModel.objects.filter(pk=dead.pk).update(updated_at=silent, done=10, total=100)
    # Still waiting behind a long job in the queue: no worker took it, none died.
    KGEModel.objects.filter(pk=queued.pk).update(updated_at=silent)

    rows = {r["id"]: r for r in curator_api.get("/api/v1/kge/models").json()["results"]}
    assert rows[dead.pk]["status"] == "failed"
    assert "worker died during training" in rows[dead.pk]["error"]
    assert "\n" not in rows[dead.pk]["error"]
    assert rows[live.pk]["status"] == "training"  # its worker may still be at it
    assert rows[queued.pk]["status"] == "training"
    graph_services.kge_train_task(queued.pk)  # its turn comes: it trains
    assert KGEModel.objects.get(pk=queued.pk).status == "ready"

    response = curator_api.post("/api/v1/kge/models", {"epochs": 5, "dim": 8}, format="json")
    assert response.status_code == 202
    assert KGEModel.objects.get(pk=response.json()["id"]).status == "ready"


@pytest.mark.django_db(transaction=True)
def test_a_long_training_step_keeps_its_run_alive(settings):
    """The worker's heartbeat runs while training: a slow epoch is not taken for death."""
    people = [make_entity(f"Walker {i}", "person") for i in range(8)]
    for i, person in enumerate(people):
        state(person, "knows", people[(i + 1) % 8])
    edges_rebuild()
    settings.KGSITE_JOB_LEASE_SECONDS = 1.0
    recovered: list[list[int]] = []

    def slow(epoch, total, record):
        if not recovered:
            time.sleep(1.6)
            recovered.append(kge_runs_recover())

    run = kge_train(config={"dim": 8, "epochs": 4, "eval_every": 2}, progress=slow)
    assert recovered == [[]]
    assert run.status == "ready"
