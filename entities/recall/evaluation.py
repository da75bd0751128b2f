"""Scoring recall on a recall set (``../shared/eval/recall_dev*.json`` format): store its
memories in a scratch database, ask each query through its trigger's selector, and
count what a good answer must show (``expect``) and must never show (``forbid``).

Used by ``manage.py eval_recall`` (the product as it answers) and ``manage.py
train_recall`` (the candidates and their features, to learn the scorers from).
"""

from __future__ import annotations

import contextlib
import json
import logging
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import connection
from django.test.utils import override_settings

from kgsite.errors import DomainError
from kgsite.vectors import service as vectors

from .. import services
from ..models import Entity, Fact
from ..scopes import ScopeFilter
from . import selectors
from .kinds import CROSSLINGUAL_KIND, crosslingual_enabled
from .options import RecallOptions

ENDPOINTS = ("recall", "pre-check", "unknown", "finding", "domain", "session-start")
MEMORY_FIELDS = ("confidence", "resolved_by", "domain", "goal_status")


class RecallFileError(Exception):
    pass


def recall_file_load(path: str | Path) -> dict[str, Any]:
    """The parsed file, checked for the fields the evaluation reads."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecallFileError(f"{path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("memories"), list):
        raise RecallFileError(f"{path}: expected an object with memories and queries")
    if not data.get("queries"):  # nothing to measure or to learn from
        raise RecallFileError(f"{path}: holds no queries")
    if not isinstance(data["queries"], list):
        raise RecallFileError(f"{path}: queries must be a list")
    for i, m in enumerate(data["memories"], 1):
        _memory_check(path, i, m)
    keys = {m.get("key") for m in data["memories"]}
    for i, q in enumerate(data["queries"], 1):
        _query_check(path, i, q, keys)
    return data


def _query_check(path: str | Path, i: int, q: object, keys: set) -> None:
    if not isinstance(q, dict):
        raise RecallFileError(f"{path}: query {i} is not an object")
    if q.get("endpoint") not in ENDPOINTS:
        raise RecallFileError(f"{path}: query {q.get('id')}: unknown endpoint")
    if not isinstance(q.get("input", {}), dict):
        raise RecallFileError(f"{path}: query {q.get('id')}: input must be an object")
    for name in ("expect", "forbid"):
        if not isinstance(q.get(name, []), list):
            raise RecallFileError(f"{path}: query {q.get('id')}: {name} must be a list")
    unknown = set(q.get("expect", [])) | set(q.get("forbid", []))
    if unknown - keys:
        raise RecallFileError(f"{path}: query {q.get('id')} names unknown memories")


def _memory_check(path: str | Path, i: int, m: object) -> None:
    """A memory ``memories_store`` can store: checked before the scratch database is
    built, so a bad one is one line, not a traceback half-way through the set."""
    if not isinstance(m, dict):
        raise RecallFileError(f"{path}: memory {i} is not an object")
    if m.get("key") is None:
        raise RecallFileError(f"{path}: memory {i} has no key")
    name = m["key"]
    if not isinstance(m.get("text"), str) or not m["text"].strip():
        raise RecallFileError(f"{path}: memory {name} has no text")
    try:
        services.fact_kind_check(
            kind=m.get("kind"),
            **{k: m[k] for k in ("resolved_by", "domain", "goal_status") if m.get(k)},
        )
    except DomainError as exc:
        raise RecallFileError(f"{path}: memory {name}: {exc.message}") from None


@contextlib.contextmanager
def scratch_database() -> Iterator[None]:
    """A new, migrated database (the test database of the configured engine) and a
    temporary vector directory, dropped afterwards: the real memory is never touched."""
    with (
        tempfile.TemporaryDirectory(prefix="kgsite-recall-eval-") as tmp,
        override_settings(KGSITE_VECTOR_DIR=Path(tmp), KGSITE_GAZETTEER_RECHECK_SECONDS=0),
    ):
        vectors.vector_indexes_reset()
        logging.getLogger("django-q").setLevel(logging.WARNING)  # one line per queued job
        old_name = connection.settings_dict["NAME"]
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            yield
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)
            vectors.vector_indexes_reset()


def memories_store(data: dict[str, Any]) -> dict[str, int]:
    """Store the file's entities and memories; memory key -> fact id (two keys share a
    fact when ``fact_store`` folds one memory into another as a duplicate)."""
    entities: dict[str, Entity] = {}
    for e in data.get("entities", []):
        try:
            entities[e["name"]] = services.entity_create(
                name=e["name"], type=e.get("type"), aliases=e.get("aliases", []), actor=None
            )
        except DomainError:
            continue
    ids: dict[str, int] = {}
    for m in data["memories"]:
        fields = {k: m[k] for k in MEMORY_FIELDS if m.get(k) is not None}
        linked = [entities[n] for n in m.get("entities", []) if n in entities]
        stored = services.fact_store(
            text=m["text"], kind=m["kind"], scope=m.get("scope", ""), entities=linked, **fields
        )
        ids[m["key"]] = stored.fact.pk
        vectors.vector_upsert("facts", [stored.fact.pk])
        if crosslingual_enabled():
            vectors.vector_upsert(CROSSLINGUAL_KIND, [stored.fact.pk])
    return ids


# --- Asking -----------------------------------------------------------------------------------


def _fact_ids(items: list[dict[str, Any]]) -> list[int]:
    return [i["id"] for i in items if i.get("type") == "fact"]


def ask(q: dict[str, Any], options: RecallOptions) -> tuple[dict[str, Any], list[int]]:
    """The trigger's answer to query ``q`` and the fact ids it surfaced, in order."""
    args, endpoint = q.get("input", {}), q["endpoint"]
    scopes = ScopeFilter.of(q.get("scope", ""))
    if endpoint == "recall":
        answer = selectors.recall_query(query=args["query"], scopes=scopes, options=options)
        return answer, _fact_ids(answer["items"])
    if endpoint == "pre-check":
        answer = selectors.recall_pre_check(action=args["action"], scopes=scopes, options=options)
        shown = answer["mistakes"] + answer["dead_ends"] + answer["similar"]
        return answer, _fact_ids(shown)
    if endpoint == "unknown":
        answer = selectors.recall_unknown(text=args["text"], scopes=scopes, options=options)
        return answer, _fact_ids(answer["items"])
    if endpoint == "finding":
        answer = selectors.recall_finding(
            text=args["text"], scope=scopes.scope, kind=args.get("kind", Fact.Kind.FACT)
        )
        return answer, _fact_ids(answer["items"])
    if endpoint == "domain":
        answer = selectors.recall_domain(
            tool=args["tool"], arguments=args.get("arguments", {}), scopes=scopes, options=options
        )
        return answer, _fact_ids(answer["patterns"])
    answer = selectors.recall_session_start(
        scopes=scopes, session_id=args.get("session_id", ""), options=options
    )
    shown = []
    for goal in answer["goals"]:
        shown += [goal["goal"], *goal["facts"]]
    return answer, _fact_ids(shown)


@dataclass
class Outcome:
    query: dict[str, Any]
    hit: bool
    found: int
    wanted: int
    leaks: list[str]
    shown: list[str]


def judge(q: dict[str, Any], answer: dict[str, Any], shown: list[int], ids: dict[str, int]):
    """A hit: every expected memory surfaced; with none expected, the trigger found
    nothing to reuse (``unknown``: no resolution; ``finding``: ``create_new``)."""
    key_of: dict[int, list[str]] = {}
    for key, pk in ids.items():
        key_of.setdefault(pk, []).append(key)
    shown_keys = [k for pk in shown for k in key_of.get(pk, [f"#{pk}"])]
    expect, forbid = q.get("expect", []), q.get("forbid", [])
    found = sum(1 for k in expect if ids[k] in shown)
    if q["endpoint"] == "finding":
        existing = (answer.get("existing_fact") or {}).get("id")
        hit = existing is None if not expect else existing in {ids[k] for k in expect}
    elif not expect and q["endpoint"] == "unknown":
        hit = answer.get("already_resolved") is None
    else:
        hit = found == len(expect)
    leaks = [k for k in forbid if ids[k] in shown]
    return Outcome(q, hit, found, len(expect), leaks, shown_keys)


@dataclass
class Report:
    rows: dict[str, list[Outcome]] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        self.rows.setdefault(outcome.query["endpoint"], []).append(outcome)

    def table(self) -> list[tuple[str, int, int, float, float, int]]:
        """(endpoint, hits, queries, hit rate, recall of expected memories, leaks)."""
        out = []
        every = [o for rows in self.rows.values() for o in rows]
        for name, rows in [*((e, self.rows.get(e, [])) for e in ENDPOINTS), ("all", every)]:
            if not rows:
                continue
            hits = sum(o.hit for o in rows)
            wanted = sum(o.wanted for o in rows)
            found = sum(o.found for o in rows)
            leaks = sum(len(o.leaks) for o in rows)
            out.append(
                (name, hits, len(rows), hits / len(rows), found / wanted if wanted else 1.0, leaks)
            )
        return out

    def format(self, *, misses: bool = True) -> str:
        lines = [f"{'endpoint':<14} {'hits':>9} {'hit rate':>9} {'recall':>7} {'leaks':>6}"]
        for name, hits, n, rate, recall, leaks in self.table():
            lines.append(f"{name:<14} {hits:>4}/{n:<4} {rate:>9.2f} {recall:>7.2f} {leaks:>6}")
        if misses:
            wrong = [o for rows in self.rows.values() for o in rows if not o.hit or o.leaks]
            if wrong:
                lines += ["", "misses:"]
            for o in wrong:
                q = o.query
                what = "leak " + ",".join(o.leaks) if o.leaks else "miss"
                lines.append(
                    f"  {q['id']} [{q['endpoint']}] {what}: expect {q.get('expect')} "
                    f"shown {o.shown[:8]}"
                )
        return "\n".join(lines)


def recall_evaluate(data: dict[str, Any], options: RecallOptions | None = None) -> Report:
    """Store ``data``'s memories (call inside ``scratch_database``) and score every query."""
    options = options or RecallOptions.defaults()
    ids = memories_store(data)
    report = Report()
    for q in data.get("queries", []):
        answer, shown = ask(q, options)
        report.add(judge(q, answer, shown, ids))
    return report
