"""Issue 27: the permission matrix. Every route × 4 roles × 5 methods, every table
fingerprinted around each request: no anonymous caller or reader may change anything.

Routes come from Django's URL resolver (pages, admin, API), their ids filled from a small
seeded graph (entities, an alias, facts and their contradiction, a book with its job,
chunks and mentions, a merge, a duplicate suggestion, notifications, audit rows). Roles:
anonymous, reader by API token, reader by session, curator by session (CSRF checks off:
the worst case for authorisation). Methods: GET, POST, PUT, PATCH, DELETE, each with a
plausible body (JSON under /api/, a form elsewhere) so a view that validated before it
checked permissions would be caught writing.

A write is any change in any table between before and after (a hash of every row),
except the tables that record the visit itself (sessions, django-axes' access log) and
the queue's bookkeeping. A reader marking their own notification read is a write they
may make: counted apart as "own state". ``python -m benchmarks permissions``; the test
(tests/kgsite/test_permission_matrix.py) runs a sample of routes through the same code.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from dataclasses import dataclass, field

ROLES = ("anonymous", "reader token", "reader session", "curator")
METHODS = ("get", "post", "put", "patch", "delete")
# Tables that change with the visit itself, not with the data.
IGNORED_TABLES = re.compile(r"^(django_session|axes_.*|django_q_.*)$")
# A reader's own state: the read flag of their notifications.
OWN_STATE = {"notifications_notification"}
READERS = {"anonymous", "reader token", "reader session"}

BODY = {
    "text": "Permission probe: the lighthouse keeper wrote 40 logs.",
    "name": "Permission Probe",
    "type": "person",
    "alias": "Probe Alias",
    "description": "written by the permission probe",
    "resolution": "keep_first",
    "note": "probe",
    "existing": "The lighthouse opened in 1901.",
    "new": "The lighthouse opened in 1907.",
    "q": "lighthouse",
    "query": "lighthouse",
    "title": "Probe",
    "kind": "fact",
    "ids": [1, 2],
    "all": True,
}


@dataclass
class Outcome:
    role: str
    method: str
    path: str
    status: int
    changed: tuple[str, ...] = ()


@dataclass
class Matrix:
    outcomes: list[Outcome] = field(default_factory=list)

    def unauthorised(self) -> list[Outcome]:
        return [
            o
            for o in self.outcomes
            if o.role in READERS and o.changed and set(o.changed) - OWN_STATE
        ]

    def own_state(self) -> list[Outcome]:
        return [
            o
            for o in self.outcomes
            if o.role in READERS and o.changed and not set(o.changed) - OWN_STATE
        ]


# --- data ------------------------------------------------------------------------------


def seed() -> dict[str, str]:
    """A small graph with one of everything a route can name; its ids by parameter."""
    from django.contrib.auth.models import Group, Permission, User

    from books.models import Book, Chunk, IngestJob
    from books.services import book_ingest
    from entities.models import DuplicateSuggestion
    from entities.services import alias_add, entity_merge, entity_store, fact_store
    from integrity.detection.classifier import Verdict
    from integrity.services import contradiction_store
    from kgsite.models import AuditEntry
    from notifications.services import notification_create

    curator = User.objects.create_user("matrix-curator", password="x")
    group, _ = Group.objects.get_or_create(name="curators")
    group.permissions.add(Permission.objects.get(codename="curate"))
    curator.groups.add(group)
    reader = User.objects.create_user("matrix-reader", password="x")

    keeper, _ = entity_store(name="Ilse Marwood", type="person", actor=curator)
    tower, _ = entity_store(name="Skerry Light", type="place", actor=curator)
    twin, _ = entity_store(name="I. Marwood", type="person", actor=curator)
    spare, _ = entity_store(name="Spare Keeper", type="person", actor=curator)
    alias_add(entity=keeper, alias="Keeper Marwood", actor=curator)
    first = fact_store(text="Skerry Light was first lit in 1901.", subject=tower).fact
    second = fact_store(text="Skerry Light was first lit in 1907.", subject=tower).fact
    fact_store(text="Ilse Marwood kept Skerry Light.", subject=keeper, entities=[tower])
    verdict = Verdict("contradiction", "date", 0.95, "the years differ")
    contradiction = contradiction_store(fact_a=first, fact_b=second, verdict=verdict)
    if contradiction is None:
        from integrity.models import Contradiction

        contradiction = Contradiction.objects.get(fact_a=first, fact_b=second)
    merge = entity_merge(survivor=keeper, duplicates=[twin], actor=curator).merge
    low, high = sorted([keeper.pk, spare.pk])
    suggestion = DuplicateSuggestion.objects.create(
        pair_key=f"{low}|{high}"[:25], entity_a_id=low, entity_b_id=high, score=0.9
    )
    book_ingest(
        data=b"# Skerry Light\n\nIlse Marwood kept Skerry Light for forty years.\n",
        filename="skerry.md",
        embed=False,
    )
    IngestJob.objects.create(title="Skerry", source_name="skerry.md", source_path="/dev/null")
    note = notification_create(type="system", urgency="low", title="probe", recipient=reader)
    notification_create(type="system", urgency="high", title="probe for curators")
    return {
        "entity_id": keeper.pk,
        "fact_id": str(first.pk),
        "contradiction_id": str(contradiction.pk),
        "merge_id": str(merge.pk),
        "suggestion_id": str(suggestion.pk),
        "book_id": str(Book.objects.get().pk),
        "chunk_id": str(Chunk.objects.first().pk),
        "job_id": str(IngestJob.objects.first().pk),
        "notification_id": str(note.pk),
        "entry_id": str(AuditEntry.objects.first().pk),
        "alias": "Keeper Marwood",
        "object_id": str(first.pk),
        "content_type_id": "1",
        "app_label": "entities",
        "curator": curator.username,
        "reader": reader.username,
    }


# --- routes ----------------------------------------------------------------------------

_PARAM = re.compile(r"<(?:\w+:)?(\w+)>")
_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")


def routes(ids: dict[str, str]) -> list[str]:
    """Every URL pattern as a path with its parameters filled, if it resolves."""
    from django.urls import URLResolver, get_resolver, resolve
    from django.urls.exceptions import Resolver404

    def walk(patterns, prefix: str = ""):
        for pattern in patterns:
            text = str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + text)
            else:
                yield prefix + text

    paths: list[str] = []
    for raw in walk(get_resolver().url_patterns):
        text = raw.replace("^", "").replace("$", "")
        if "(?P<url>" in text or text.startswith("api/") and text.endswith("api/"):
            continue  # the catch-alls
        try:
            text = _PARAM.sub(lambda m: str(ids[m.group(1)]), text)
            text = _GROUP.sub(lambda m: str(ids[m.group(1)]), text)
        except KeyError:
            continue
        path = "/" + text
        try:
            resolve(path)
        except Resolver404:
            continue
        if path not in paths:
            paths.append(path)
    return paths


# --- fingerprints ----------------------------------------------------------------------


def tables() -> list[str]:
    from django.db import connection

    return sorted(t for t in connection.introspection.table_names() if not IGNORED_TABLES.match(t))


def fingerprint(names: list[str]) -> dict[str, str]:
    """A hash of every row of every table (the tables are small: a seeded graph)."""
    from django.db import connection

    found: dict[str, str] = {}
    with connection.cursor() as cursor:
        for name in names:
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(name)}")  # noqa: S608
            rows = sorted(repr(row) for row in cursor.fetchall())
            found[name] = hashlib.sha256("\n".join(rows).encode()).hexdigest()
    return found


# --- requests --------------------------------------------------------------------------


def client_for(role: str, ids: dict[str, str]):
    """A client as ``role``; a session role is logged in afresh for every request (a
    logout route would otherwise make the rest of the run anonymous)."""
    from django.contrib.auth.models import User
    from django.test import Client
    from rest_framework.authtoken.models import Token

    if role == "anonymous":
        return Client()
    reader = User.objects.get(username=ids["reader"])
    if role == "reader token":
        token = Token.objects.get_or_create(user=reader)[0].key
        return Client(HTTP_AUTHORIZATION=f"Token {token}")
    client = Client()
    client.force_login(
        reader if role == "reader session" else User.objects.get(username=ids["curator"])
    )
    return client


def _fields_listed(response) -> set[str] | None:
    """The fields a 400 for an unknown field says the body accepts, else None."""
    if response.status_code != 400:
        return None
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return None
    _head, sep, listed = message.partition("(the fields are: ")
    return {f.strip() for f in listed.rstrip(")").split(",")} if sep else None


def _send(client, method: str, path: str, ids: dict[str, str]):
    import json

    body = {**BODY, "survivor": ids["entity_id"], "duplicates": [ids["entity_id"]]}
    if method == "get":
        return client.get(path)
    if path.startswith("/api/"):
        response = getattr(client, method)(path, json.dumps(body), content_type="application/json")
        known = _fields_listed(response)
        if known is None:
            return response
        # A strict body refuses fields it does not know and lists its own: the same
        # request again with only those, so the role's right to write is what is probed.
        body = {k: v for k, v in body.items() if k in known}
        return getattr(client, method)(path, json.dumps(body), content_type="application/json")
    if method == "post":
        return client.post(path, body)
    return getattr(client, method)(path)


def matrix_run(paths: list[str], ids: dict[str, str], roles=ROLES, methods=METHODS) -> Matrix:
    """Each role's requests in turn (the curator's last: its writes may remove data)."""
    from django.conf import settings
    from django.core.cache import cache

    settings.KGSITE_PUBLIC_READ = False  # the default: reads need a user
    names = tables()
    matrix = Matrix()
    for role in roles:
        for path in paths:
            for method in methods:
                cache.clear()  # no throttle carries over between requests
                client = client_for(role, ids)
                before = fingerprint(names)
                response = _send(client, method, path, ids)
                after = fingerprint(names)
                changed = tuple(n for n in names if before[n] != after[n])
                matrix.outcomes.append(Outcome(role, method, path, response.status_code, changed))
    return matrix


# --- the table -------------------------------------------------------------------------


def _row(metric: str, value, unit: str = "", goal: str = "", ok=None, note: str = "") -> dict:
    return {"benchmark": "permissions", "metric": metric, "value": value, "unit": unit,
            "goal": goal, "ok": ok, "note": note}  # fmt: skip


def rows_for(matrix: Matrix, paths: list[str], seconds: float) -> list[dict]:
    rows = [
        _row("routes", len(paths)),
        _row("requests", len(matrix.outcomes), note=f"{seconds:.0f} s"),
    ]
    for role in ROLES:
        mine = [o for o in matrix.outcomes if o.role == role]
        if not mine:
            continue
        classes = Counter(f"{o.status // 100}xx" for o in mine)
        writes = sum(1 for o in mine if o.changed)
        summary = " ".join(f"{k} {classes[k]}" for k in sorted(classes))
        rows.append(_row(f"{role}: answers", summary))
        rows.append(_row(f"{role}: requests that wrote", writes))
    bad = matrix.unauthorised()
    rows.append(
        _row(
            "unauthorised writes (anonymous, readers)",
            len(bad),
            goal="0",
            ok=not bad,
            note="; ".join(f"{o.role} {o.method.upper()} {o.path} {o.changed}" for o in bad[:5]),
        )
    )
    own = matrix.own_state()
    rows.append(
        _row(
            "readers' writes of their own state",
            len(own),
            note="; ".join(sorted({f"{o.method.upper()} {o.path}" for o in own}))[:300],
        )
    )
    errors = [o for o in matrix.outcomes if o.status >= 500]
    rows.append(
        _row(
            "server errors",
            len(errors),
            goal="0",
            ok=not errors,
            note="; ".join(f"{o.role} {o.method.upper()} {o.path}" for o in errors[:5]),
        )
    )
    return rows


def run(quick: bool = False) -> list[dict]:
    import os

    os.environ.setdefault("KGSITE_EMBEDDER", "kgsite.vectors.embedder.HashingEmbedder")
    from benchmarks._django import setup

    setup("permissions")
    ids = seed()
    paths = routes(ids)
    if quick:
        paths = paths[::4]
    started = time.perf_counter()
    matrix = matrix_run(paths, ids)
    return rows_for(matrix, paths, time.perf_counter() - started)
