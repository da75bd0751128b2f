"""Export and import the whole graph as JSON Lines: one header line, then one row a line.

Lossless: every table of the graph with its primary keys, timestamps, statuses and
history (superseded and retracted facts, confirmations, merges and the redirects of
merged-away ids, dismissed duplicate pairs, imported memories' ids, episodes, resolved
contradictions, read notifications, the audit log), through Django's serializers in raw
mode, so nothing is recomputed or re-stamped on the way in. Users are referred to by
username; an import creates the missing ones inactive, without a usable password (no
password hash ever leaves).

Derived data is not exported: the word-start name index, the graph's edges and the
vector indexes are rebuilt from the imported rows (relations are seeded by migration).
Trained TransE models are not exported either: train again after an import
(``train_kge``).

Models are named by label (``"books.Chunk"``), so this module imports no app: a label
whose app is not installed is skipped.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, connection, models, transaction

from kgsite.errors import Conflict, InvalidInput
from kgsite.text import normalize, type_tag

FORMAT = "kgsite-graph"
VERSION = 1
# Parents before children, so every foreign key points at a row already there.
LABELS = (
    "entities.Entity",
    "entities.Alias",
    "entities.Fact",
    "entities.EntityFact",
    "entities.FactConfirmation",  # the statements confirmations swallowed (their undo)
    "entities.EntityMerge",  # merge history and its undo
    "entities.EntityRedirect",  # merged-away ids still answer
    "entities.DuplicateSuggestion",  # a dismissed pair stays dismissed
    "entities.ExternalEntityId",  # imported memories' ids
    "entities.ExternalFactLink",
    "entities.Episode",  # agents' past work
    "books.Book",
    "books.Chunk",
    "books.Mention",
    "books.IngestJob",
    "integrity.Contradiction",
    "integrity.PendingFactCheck",
    "notifications.Notification",
    "kgsite.AuditEntry",
)

Progress = Callable[[int], None]
# Lookup columns derived from a display column: folded again on import, so a file written
# by an older normalisation (or by hand) cannot hold two names that fold the same, nor a
# name no lookup finds.
NORMALISED = {
    "entities.Entity": ("name_norm", "canonical_name"),
    "entities.Alias": ("alias_norm", "alias"),
    "books.Book": ("title_norm", "title"),
}


class _Encoder(DjangoJSONEncoder):
    """DjangoJSONEncoder cuts datetimes to milliseconds; an export keeps microseconds."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


def graph_models() -> list[type[models.Model]]:
    found = []
    for label in LABELS:
        app_label, name = label.split(".")
        if apps.is_installed(app_label) or app_label in apps.app_configs:
            try:
                found.append(apps.get_model(app_label, name))
            except LookupError:
                continue
    return found


def _user_fields(model: type[models.Model]) -> list[str]:
    user = get_user_model()
    return [
        f.attname for f in model._meta.concrete_fields if f.is_relation and f.related_model is user
    ]


def _usernames() -> list[str]:
    user = get_user_model()
    ids: set[int] = set()
    for model in graph_models():
        for attname in _user_fields(model):
            ids.update(
                model.objects.exclude(**{attname: None}).values_list(attname, flat=True).distinct()
            )
    return sorted(user.objects.filter(pk__in=ids).values_list(user.USERNAME_FIELD, flat=True))


def graph_counts() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in graph_models()}


def _rows(model: type[models.Model]) -> Iterator[dict[str, Any]]:
    queryset = model._default_manager.order_by("pk")
    for obj in queryset.iterator(chunk_size=2000):
        yield serializers.serialize("python", [obj], use_natural_foreign_keys=True)[0]


def graph_export(*, out: IO[str], progress: Progress | None = None) -> dict[str, int]:
    """Write the header and every row; returns the counts per table. Every read sees
    the database as it was at the first one (``_snapshot``): on a site that kept writing,
    the header's counts missed the rows written meanwhile, and import refused the file."""
    with _snapshot():
        counts = graph_counts()
        header = {"format": FORMAT, "version": VERSION, "tables": counts, "users": _usernames()}
        out.write(json.dumps(header, ensure_ascii=False) + "\n")
        for model in graph_models():
            for row in _rows(model):
                out.write(json.dumps(row, cls=_Encoder, ensure_ascii=False) + "\n")
                if progress:
                    progress(1)
    return counts


@contextmanager
def _snapshot() -> Iterator[None]:
    """One read-only transaction around the export, without holding writers off: SQLite
    (in WAL) reads a deferred transaction's snapshot while writers go on (``atomic``
    would take the write lock: IMMEDIATE), PostgreSQL a repeatable-read one. Inside a
    caller's transaction its reads are already one view."""
    if connection.in_atomic_block:
        yield
        return
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("ROLLBACK")  # read only: nothing to keep
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def _header(line: str) -> dict[str, Any]:
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InvalidInput(f"not a {FORMAT} export (first line)", field="path")
    if header.get("version") != VERSION:
        raise InvalidInput(f"export version {header.get('version')} is not {VERSION}", field="path")
    tables, users = header.get("tables", {}), header.get("users", [])
    if not isinstance(tables, dict) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in tables.values()
    ):
        raise InvalidInput("the header's tables are not a count per table", field="path")
    if not isinstance(users, list) or not all(isinstance(name, str) and name for name in users):
        raise InvalidInput("the header's users are not a list of usernames", field="path")
    return {**header, "tables": tables, "users": sorted(set(users))}


def _read(lines: IO[str]) -> Iterator[tuple[int, str]]:
    """The rows' lines with their numbers (the header is line 1); blank lines are skipped,
    and a file in another code page is refused in one line."""
    number = 1
    try:
        for number, line in enumerate(lines, start=2):
            if line.strip():
                yield number, line
    except UnicodeDecodeError:
        raise InvalidInput(
            f"not UTF-8 text (after line {number}): save it as UTF-8", field="path"
        ) from None


def _ensure_users(usernames: list[str]) -> int:
    user = get_user_model()
    field = user.USERNAME_FIELD
    present = set(user.objects.filter(**{f"{field}__in": usernames}).values_list(field, flat=True))
    created = 0
    for name in usernames:
        if name not in present:
            new = user(**{field: name}, is_active=False)
            new.set_unusable_password()
            new.save()
            created += 1
    return created


@dataclass
class ImportResult:
    tables: dict[str, int]
    users_created: int


def graph_import(*, lines: IO[str], progress: Progress | None = None) -> ImportResult:
    """Read an export into an empty graph, all or nothing.

    A graph that already holds rows is refused (409) before anything is written: merging
    two graphs' ids is not something to do implicitly. Any bad line rolls everything back.
    """
    try:
        first = lines.readline()
    except UnicodeDecodeError:
        raise InvalidInput("not UTF-8 text: save it as UTF-8", field="path") from None
    header = _header(first)
    present = {label: n for label, n in graph_counts().items() if n}
    if present:
        listed = ", ".join(f"{label} ({n})" for label, n in present.items())
        raise Conflict(f"the graph is not empty: {listed}; import into an empty database")
    known = {m._meta.label for m in graph_models()}
    seen: dict[str, int] = dict.fromkeys(known, 0)
    lines_of: dict[tuple[str, Any], int] = {}
    with transaction.atomic():
        users_created = _ensure_users(header["users"])
        for number, line in _read(lines):
            _import_line(line, number, known, lines_of)
            label = json.loads(line)["model"]
            seen[_label(label)] += 1
            if progress:
                progress(1)
        _check_counts(header["tables"], seen)
        _check_references()
        _reset_sequences()
    return ImportResult(tables=seen, users_created=users_created)


def _label(model: str) -> str:
    return apps.get_model(model)._meta.label


def _import_line(
    line: str, number: int, known: set[str], lines_of: dict[tuple[str, Any], int]
) -> None:
    """Save one row. ``lines_of`` remembers the line of each (table, id) saved: a second
    row with the same id would overwrite the first while the counts still matched."""
    try:
        row = json.loads(line)
        if not isinstance(row, dict):
            raise ValueError("not a JSON object of a table's row")
        if _label(row["model"]) not in known:
            raise ValueError(f"{row['model']} is not a table of the graph")
        for obj in serializers.deserialize("python", [row], handle_forward_references=False):
            key = (obj.object._meta.label, obj.object.pk)
            if key[1] is not None and key in lines_of:
                raise ValueError(f"{key[0]} {key[1]!r} is on line {lines_of[key]} already")
            _fold_again(obj.object)
            obj.save()
            lines_of[key] = number
    except KeyError as exc:  # its str() is the bare key: "line 2: 'model'" said nothing
        raise InvalidInput(f"line {number}: the row has no {exc} field", field="path") from None
    except Exception as exc:  # noqa: BLE001 - any bad row: one readable error, no half-write
        raise InvalidInput(f"line {number}: {exc}", field="path") from None


def _fold_again(instance: models.Model) -> None:
    """Fold the lookup column again from its display column, and refuse a row whose name
    another row already holds once folded ("STRASSE" after "Straße", an alias that is an
    entity's name) in one line, as the services refuse it."""
    column, display = NORMALISED.get(instance._meta.label, (None, None))
    if column is None:
        return
    if instance._meta.label != "books.Book":  # types are case-free tags ("Person" is "person")
        instance.type = type_tag(instance.type or "")
    norm, stored = normalize(getattr(instance, display) or ""), getattr(instance, column) or ""
    if stored != norm and not (len(stored) == 512 and norm.startswith(stored)):
        setattr(instance, column, norm)  # (an alias norm cut to 512 characters stays)
    norm = getattr(instance, column)
    same = (
        {column: norm}
        if instance._meta.label == "books.Book"
        else {column: norm, "type": instance.type}
    )
    twin = type(instance)._default_manager.filter(**same).exclude(pk=instance.pk).first()
    if twin is None and instance._meta.label == "entities.Alias":
        entity = apps.get_model("entities", "Entity")
        twin = entity._default_manager.filter(name_norm=norm, type=instance.type).first()
    if twin is not None:
        raise ValueError(
            f"'{getattr(instance, display)}' folds to the same name as {twin._meta.label} "
            f"{twin.pk} '{twin}'"
        )


def _check_counts(expected: dict[str, int], seen: dict[str, int]) -> None:
    for label, count in expected.items():
        if label in seen and seen[label] != count:
            raise InvalidInput(
                f"{label}: the header promises {count} rows, the file holds {seen[label]} "
                "(a truncated export?)",
                field="path",
            )


def _check_references() -> None:
    """Foreign keys are checked when the transaction commits (they are deferred), where
    a row naming a row the file does not hold ended the import in a traceback: check
    them here, while the refusal can still be one line."""
    try:
        connection.check_constraints()
    except IntegrityError as exc:
        detail = " ".join(str(exc).split())  # PostgreSQL's DETAIL line joins the first
        raise InvalidInput(
            f"a row refers to a row the file does not hold: {detail}", field="path"
        ) from None


def _reset_sequences() -> None:
    """PostgreSQL: the next id after the imported ones (SQLite needs nothing)."""
    statements = connection.ops.sequence_reset_sql(no_style(), graph_models())
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)
