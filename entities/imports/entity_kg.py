"""Import of an existing SQLite entity memory (tables ``entities``, ``entity_aliases``,
``entity_facts``; schema versions 3 and 4).

No sample of that store came with the issue; the schemas read here are our reading of
it (see README, "Importing an SQLite entity memory"):

v3::

    entities(id INTEGER PRIMARY KEY, name TEXT UNIQUE, entity_type TEXT, created_at TEXT)
    entity_aliases(entity_id INTEGER, alias TEXT)
    entity_facts(entity_id INTEGER, fact_id TEXT)

v4 adds ``entities.name_normalized`` (UNIQUE), ``entities.description``,
``entity_aliases.alias_normalized`` and ``entity_facts.role`` (subject, object,
mention). The version is read from a ``schema_version(version)`` table, else from
``PRAGMA user_version``, else from the columns (``name_normalized`` present: 4). A
``facts`` table (``id`` and ``content`` or ``text``, optional ``confidence``) may sit in
the same file: its facts are imported and linked; without it, fact ids stay external
references on the entities (``ExternalFactLink``).

v3's UNIQUE on the raw name let "Café" in NFC and in NFD (and "café" in another case)
be separate rows, which is what broke the store's own v4 migration. Here they fold into
one entity: the oldest row's name survives, the others' aliases and fact links move to
it, and a second run changes nothing.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from kgsite.errors import Conflict, DomainError, InvalidInput
from kgsite.models import audit_many
from kgsite.text import normalize
from kgsite.vectors.service import vector_batch

from .. import services
from ..models import Entity, EntityFact, ExternalFactLink, Fact
from ..names import normalize_type
from ..scopes import scope_clean

SUPPORTED = (3, 4)
UNTYPED = {"", "unknown", "none", "null"}
ROLES = set(EntityFact.Role.values)


@dataclass
class SourceEntity:
    id: str
    name: str
    type: str
    created_at: str
    description: str = ""
    aliases: list[str] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)  # (fact id, role)


@dataclass
class SourceStore:
    version: int
    entities: list[SourceEntity]
    facts: dict[str, tuple[str, float]] | None  # id -> (text, confidence); None: no table


@dataclass
class ImportReport:
    version: int
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    skipped: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"version": self.version, "counts": dict(self.counts), "skipped": self.skipped}


# --- Reading the store (plain sqlite3, read-only) ----------------------------------------


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info('{table}')")}


def _version(db: sqlite3.Connection, tables: set[str]) -> int:
    if "schema_version" in tables and "version" in _columns(db, "schema_version"):
        row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        if row and row[0] is not None:
            return int(row[0])
    user_version = db.execute("PRAGMA user_version").fetchone()[0]
    if user_version:
        return int(user_version)
    return 4 if "name_normalized" in _columns(db, "entities") else 3


def _check_layout(db: sqlite3.Connection, version: int) -> None:
    needed = {
        "entities": {"id", "name", "entity_type", "created_at"},
        "entity_aliases": {"entity_id", "alias"},
        "entity_facts": {"entity_id", "fact_id"},
    }
    if version == 4:
        needed["entities"] |= {"name_normalized", "description"}
        needed["entity_facts"] |= {"role"}
    for table, columns in needed.items():
        missing = sorted(columns - _columns(db, table))
        if missing:
            raise InvalidInput(
                f"not an entity store of schema v{version}: {table} lacks {', '.join(missing)}",
                field="path",
            )


def _facts_table(db: sqlite3.Connection, tables: set[str]) -> dict[str, tuple[str, float]] | None:
    if "facts" not in tables:
        return None
    columns = _columns(db, "facts")
    text = "content" if "content" in columns else "text" if "text" in columns else None
    if "id" not in columns or text is None:
        return None
    confidence = "confidence" if "confidence" in columns else "1.0"
    rows = db.execute(f"SELECT id, {text}, {confidence} FROM facts ORDER BY id")
    return {
        str(pk): (body, min(1.0, max(0.0, float(conf if conf is not None else 1.0))))
        for pk, body, conf in rows
        if isinstance(body, str) and body.strip()
    }


def entity_store_read(path: Path) -> SourceStore:
    """Read a v3 or v4 store; anything else is refused with InvalidInput naming ``path``."""
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file", field="path")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise InvalidInput(f"{path} is not an SQLite database ({exc})", field="path") from None
    try:
        missing = {"entities", "entity_aliases", "entity_facts"} - tables
        if missing:
            raise InvalidInput(
                f"{path} is not an entity store: no table {', '.join(sorted(missing))}",
                field="path",
            )
        version = _version(db, tables)
        if version not in SUPPORTED:
            raise InvalidInput(
                f"{path} has entity store schema v{version}; only v3 and v4 can be imported",
                field="path",
            )
        _check_layout(db, version)
        return SourceStore(version, _entities(db, version), _facts_table(db, tables))
    finally:
        db.close()


def _entities(db: sqlite3.Connection, version: int) -> list[SourceEntity]:
    description = "description" if version == 4 else "''"
    by_id: dict[str, SourceEntity] = {}
    for pk, name, entity_type, created, desc in db.execute(
        f"SELECT id, name, entity_type, created_at, {description} FROM entities ORDER BY id"
    ):
        by_id[str(pk)] = SourceEntity(
            id=str(pk),
            name=name or "",
            type=(entity_type or "").strip(),
            created_at=str(created or ""),
            description=desc or "",
        )
    for entity_id, alias in db.execute(
        "SELECT entity_id, alias FROM entity_aliases ORDER BY rowid"
    ):
        if str(entity_id) in by_id and isinstance(alias, str):
            by_id[str(entity_id)].aliases.append(alias)
    role = "role" if version == 4 else "'mention'"
    for entity_id, fact_id, fact_role in db.execute(
        f"SELECT entity_id, fact_id, {role} FROM entity_facts ORDER BY rowid"
    ):
        if str(entity_id) in by_id and fact_id is not None:
            by_id[str(entity_id)].facts.append((str(fact_id), fact_role or "mention"))
    return list(by_id.values())


# --- Folding and writing -----------------------------------------------------------------


def _type_of(raw: str) -> str:
    if raw.strip().lower() in UNTYPED:
        return ""
    try:
        return normalize_type(raw)
    except InvalidInput:
        return ""


def entities_fold(entities: list[SourceEntity]) -> list[list[SourceEntity]]:
    """Groups of rows naming one entity (same name up to case and Unicode form, same
    type), oldest first: the first row of each group survives."""
    groups: dict[tuple[str, str], list[SourceEntity]] = defaultdict(list)
    for entity in entities:
        norm = normalize(entity.name)
        if norm:
            groups[(norm, _type_of(entity.type))].append(entity)
    return [sorted(rows, key=lambda e: (e.created_at, _id_key(e.id))) for rows in groups.values()]


def _id_key(value: str) -> tuple[int, str]:
    return (int(value), "") if value.isdigit() else (0, value)


def _import_group(group: list[SourceEntity], report: ImportReport) -> Entity | None:
    oldest = group[0]
    try:
        entity, created = services.entity_store(
            name=oldest.name, type=_type_of(oldest.type), description=oldest.description
        )
    except DomainError as exc:
        report.skipped.append(f"entity '{oldest.name}': {exc.message}")
        report.counts["entities_skipped"] += 1
        return None
    report.counts["entities_created" if created else "entities_existing"] += 1
    report.counts["names_folded"] += len(group) - 1
    for row in group:
        for alias in row.aliases:
            _alias(entity, alias, report)
    return entity


def _alias(entity: Entity, alias: str, report: ImportReport) -> None:
    if normalize(alias) == entity.name_norm:
        report.counts["aliases_redundant"] += 1  # folds into the canonical name
        return
    try:
        _row, created = services.alias_add(entity=entity, alias=alias, manual=True)
    except Conflict as exc:
        report.skipped.append(f"alias '{alias}' of '{entity.canonical_name}': {exc.message}")
        report.counts["aliases_skipped"] += 1
        return
    except InvalidInput as exc:
        report.skipped.append(f"alias '{alias}': {exc.message}")
        report.counts["aliases_skipped"] += 1
        return
    report.counts["aliases_created" if created else "aliases_existing"] += 1


def _fact_for(
    store: str, fact_id: str, source: SourceStore, scope: str, report: ImportReport
) -> Fact | None:
    """The fact an external id maps to: imported once, found again on later runs."""
    if source.facts is None or fact_id not in source.facts:
        return None
    known = (
        ExternalFactLink.objects.filter(
            store=store, external_id=fact_id, entity__isnull=True, fact__isnull=False
        )
        .select_related("fact")
        .first()
    )
    if known is not None:
        return known.fact
    text, confidence = source.facts[fact_id]
    try:
        result = services.fact_store(
            text=text, confidence=confidence, source=f"entity_kg:{store}"[:255], scope=scope
        )
    except DomainError as exc:
        report.skipped.append(f"fact {fact_id}: {exc.message}")
        report.counts["facts_skipped"] += 1
        return None
    report.counts[f"facts_{result.action}"] += 1
    ExternalFactLink.objects.create(store=store, external_id=fact_id, fact=result.fact)
    return result.fact


def _link(
    store: str, entity: Entity, fact_id: str, role: str, fact: Fact | None, report: ImportReport
) -> None:
    if fact is not None:
        role = role if role in ROLES else EntityFact.Role.MENTION
        _row, created = services.fact_link(fact=fact, entity=entity, role=role)
        report.counts["links_created" if created else "links_existing"] += 1
    _ref, created = ExternalFactLink.objects.get_or_create(
        store=store, external_id=fact_id, entity=entity, defaults={"fact": fact}
    )
    if fact is None:
        report.counts["external_refs_created" if created else "external_refs_existing"] += 1


@transaction.atomic
def entity_kg_import(*, path: Path, store: str | None = None, scope: str = "", actor=None):
    """Import a v3/v4 entity store; idempotent (a second run only counts what exists)."""
    source = entity_store_read(path)
    store = (store or path.stem).strip()[:255]
    if not store:
        raise InvalidInput("store must not be empty", field="store")
    scope = scope_clean(scope)
    report = ImportReport(version=source.version)
    with vector_batch():
        for group in entities_fold(source.entities):
            entity = _import_group(group, report)
            if entity is None:
                continue
            seen: set[str] = set()
            for row in group:
                for fact_id, role in row.facts:
                    if fact_id in seen:
                        continue
                    seen.add(fact_id)
                    fact = _fact_for(store, fact_id, source, scope, report)
                    _link(store, entity, fact_id, role, fact, report)
    audit_many(
        actor=actor,
        action="entity_kg.import",
        model=Entity,
        payload={"store": store, "path": path.name, **report.as_dict()},
    )
    return report
