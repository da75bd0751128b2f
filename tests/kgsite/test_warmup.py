"""A web process loads what its first write needs before it serves (issue 25)."""

from __future__ import annotations

import pytest

from kgsite import warmup


@pytest.mark.django_db
def test_the_warm_up_loads_the_encoder_the_index_and_the_pair_model():
    took = warmup.warm_up()
    assert {"embedder", "facts index", "pair model"} <= set(took)


@pytest.mark.django_db
def test_a_failing_warmer_is_skipped(monkeypatch):
    def broken():
        raise RuntimeError("no model here")

    monkeypatch.setattr(warmup, "_warmers", [("broken", broken), *warmup._warmers])
    took = warmup.warm_up()
    assert "broken" not in took
    assert "embedder" in took
