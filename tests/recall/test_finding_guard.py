"""The finding trigger's use of the duplicate guard: a value in digits, a date or a
negation the stored memory lacks keeps a finding new; weak objections alone (a name: a
translation, a variant; a number in words) leave the decision to the trained second
stage."""

from __future__ import annotations

import json

import pytest

from entities.recall import scorer
from entities.recall.retrieval import Candidate


def judged(*, blocked: bool, weak_only: bool) -> dict:
    return {"contradiction": 0.1, "duplicate": 0.3, "compatible": 0.6,
            "blocked": blocked, "weak_only": weak_only, "label": "compatible"}  # fmt: skip


@pytest.fixture
def second_stage(tmp_path, settings):
    """A stored model whose second stage says "restated" (or not) to every pair."""

    def use(verdict: bool) -> None:
        path = tmp_path / f"model-{verdict}.json"
        head = {"features": list(scorer.PAIR_FEATURES), "coef": [0.0] * len(scorer.PAIR_FEATURES),
                "intercept": 10.0 if verdict else -10.0, "threshold": 0.5}  # fmt: skip
        path.write_text(json.dumps({"embedder": scorer.model_signature(),
                                    "heads": {"finding_pair": head}}))  # fmt: skip
        settings.KGSITE_RECALL_MODEL = str(path)
        scorer.model_clear()

    yield use
    scorer.model_clear()


def test_a_value_the_memory_lacks_stays_a_veto(second_stage):
    second_stage(True)
    pair = Candidate(fact=None)  # type: ignore[arg-type]
    assert not scorer.restates(0.99, judged(blocked=True, weak_only=False), pair)
    assert scorer.restates(0.99, judged(blocked=False, weak_only=False), pair)


def test_weak_objections_alone_leave_the_decision_to_the_second_stage(second_stage):
    pair = Candidate(fact=None)  # type: ignore[arg-type]
    second_stage(True)
    assert scorer.restates(0.99, judged(blocked=True, weak_only=True), pair)
    second_stage(False)
    assert not scorer.restates(0.99, judged(blocked=True, weak_only=True), pair)


def test_the_pair_reading_says_when_names_alone_block(monkeypatch):
    from integrity import restates

    class Reading:
        contradiction, duplicate, compatible = 0.1, 0.3, 0.6
        head = type("H", (), {"duplicate_min": 0.5, "uncertain_min": 0.4})()

        def __init__(self, blockers):
            self.blockers = blockers

    for blockers, weak_only in (
        (("name Heron",), True),
        (("name Heron", "number ten minutes"), True),
        (("name Heron", "number 42"), False),
        (("time 10:00",), False),
        (("identifier X7-2",), False),
        (("negation",), False),
        ((), False),
    ):
        monkeypatch.setattr(restates, "pair_reading", lambda *a, b=blockers, **k: Reading(b))
        assert restates.pair_restates("stored text", "new text")["weak_only"] is weak_only


def test_one_name_in_place_of_another_is_a_swap_and_a_variant_is_not():
    from integrity.restates import names_swapped

    stored = "The billing export writes Parquet files to object storage"
    assert names_swapped(stored, "The billing export writes Avro files to object storage")
    assert not names_swapped(stored, "The billing export writes Parquet files to object storage")
    assert not names_swapped(
        "Billing runs on PostgreSQL 15 in one region", "Billing runs on Postgres 15 in one region"
    )
