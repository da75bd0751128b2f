"""Before logging a finding: does the memory already hold it, and would logging it
confirm that memory (only one of the finding's own scope)? Integrity's duplicate
judgement decides, never a looser rule of recall's own."""

from __future__ import annotations

import time
from typing import Any

from .. import hooks, services
from ..models import Fact
from ..scopes import ScopeFilter, scope_owns
from . import scorer
from .items import Fk, _ms, fact_item, text_check, trigger_candidates
from .options import RecallOptions, trigger_check

# Memories the pair model reads per finding, the most relevant first.
FINDING_PAIRS = 3


def finding_restated(*, text: str, scope: str, kind: str = Fk.FACT) -> tuple[Fact | None, str]:
    """The stored memory ``text`` restates, and how it was found: the duplicate
    judgement of ``fact_store`` first (same text, or an index neighbour the pair model
    calls a duplicate), then the pair model on the memories of the same kind that hybrid
    retrieval finds relevant (project and global memory). A memory of another kind is
    never the one confirmed: a mistake restating a decision, or a resolved unknown its
    open question, is a memory of its own."""
    existing = services.fact_find_duplicate(text=text, scope=scope, kind=kind)
    if existing is not None and existing.goal_status != _logged_goal_status(kind):
        existing = None  # a done goal is not the active one a goal finding logs
    if existing is not None:
        return existing, "an existing fact already says this (duplicate rule)"
    judges = hooks.pair_judges()
    if not judges:
        return None, ""
    options = RecallOptions.defaults()
    found = trigger_candidates("finding", text, ScopeFilter.of(scope), options)
    found = [
        c for c in found if c.fact.kind == kind and c.fact.goal_status == _logged_goal_status(kind)
    ]
    result = scorer.ranked(
        "finding", found, k=FINDING_PAIRS, floor=options.similarity, strict=False
    )
    for (fact, relevance, why), candidate in zip(result.facts, result.candidates, strict=True):
        for judge in judges:
            if scorer.restates(relevance, judge(fact.text, text), candidate):
                return fact, f"the pair model reads it as a restatement of this memory ({why})"
    return None, ""


def _logged_goal_status(kind: str) -> str:
    """The goal status a finding of ``kind`` is logged with (a goal: active)."""
    return Fact.GoalStatus.ACTIVE if kind == Fk.GOAL else ""


def recall_finding(*, text: str, scope: str, kind: str = Fk.FACT) -> dict[str, Any]:
    """Does this finding already exist? Integrity's duplicate judgement decides (the
    pair model with the duplicate guard), never a looser rule of recall's own."""
    trigger_check("finding")
    started = time.perf_counter()
    text = text_check(text, "text")
    existing, because = finding_restated(text=text, scope=scope, kind=kind)
    if existing is None:
        return {"action": "create_new", "existing_fact": None, "items": [], "took_ms": _ms(started)}
    item = fact_item(existing, None, because)
    return {
        # What logging does: only the finding's own scope is confirmed, global memory shown.
        "action": "boost_confidence" if scope_owns(existing.scope, scope) else "create_new",
        "existing_fact": {
            "id": existing.pk,
            "text": existing.text,
            "confidence": existing.confidence,
            "confirmations": existing.confirmations,
            "scope": existing.scope,
        },
        "items": [item],
        "took_ms": _ms(started),
    }
