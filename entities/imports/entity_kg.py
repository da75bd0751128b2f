"""Import of the original agent's SQLite entity memory (schema versions 3 and 4).

Both versions have the same tables::

    entities(id, canonical_name, name_norm, type, created_at)   -- UNIQUE(name_norm)
    entity_aliases(entity_id, alias, alias_norm)
    entity_facts(entity_id, fact_id)                             -- PRIMARY KEY(both)

Ids are short strings (12 characters in the original). v3 filled ``name_norm`` and
``alias_norm`` with ``str.lower()`` and no Unicode normalisation, so the NFC and NFD
spellings of one name can be two rows; v4 re-filled them with NFC. The version may sit
in ``PRAGMA user_version``, in a ``schema_version`` table, in both, or nowhere: then the
norms tell (a norm that is not NFC, or two rows one NFC apart, is v3). Optional columns
are used when present: ``entities.description``, ``entity_facts.role``, and a ``facts``
table (``id`` and ``content`` or ``text``, optional ``confidence``) whose facts are then
imported and linked; without one (the original has none) each fact id stays an
external reference on its entities (``ExternalFactLink``), listed by ``entity_get`` and
resolved by ``facts_list(ids=...)``.

Every row's source id is kept as a second key of its entity (``ExternalEntityId``):
lookup, ``entity_get`` and ``GET /api/v1/entities/<id>/`` resolve it. Names equal up to
case and Unicode form fold into one entity: the oldest row's name survives, the others'
names become aliases, and their aliases, fact links and ids move to it. A second run
changes nothing.
"""

from __future__ import annotations

import contextlib
import math
import re
import sqlite3
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from kgsite.errors import Conflict, DomainError, InvalidInput
from kgsite.models import audit_many
from kgsite.text import normalize
from kgsite.vectors.service import vector_batch

from .. import services
from ..models import Entity, EntityFact, ExternalEntityId, ExternalFactLink, Fact
from ..names import normalize_type, validate_description
from ..scopes import scope_clean

SUPPORTED = (3, 4)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
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
    # Rows no entity can take: aliases and links of an id the entities table lacks.
    orphans: dict[str, int] = field(default_factory=dict)


@dataclass
class ImportReport:
    version: int
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    skipped: list[str] = field(default_factory=list)

    def skip(self, line: str) -> None:
        """A row left out, its control characters shown as escapes: a NUL in a name
        made PostgreSQL refuse the audit row's JSON, and the whole import with it."""
        self.skipped.append(_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", line))

    def as_dict(self) -> dict:
        return {"version": self.version, "counts": dict(self.counts), "skipped": self.skipped}


# --- Reading the store (plain sqlite3, read-only) ----------------------------------------


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info('{table}')")}


REQUIRED = {
    "entities": ("id", "canonical_name", "name_norm", "type", "created_at"),
    "entity_aliases": ("entity_id", "alias", "alias_norm"),
    "entity_facts": ("entity_id", "fact_id"),
}


def _check_layout(db: sqlite3.Connection, path: Path) -> None:
    """Every missing column of every table, named in one refusal."""
    problems = []
    for table, columns in REQUIRED.items():
        missing = [c for c in columns if c not in _columns(db, table)]
        if missing:
            problems.append(f"{table} lacks {', '.join(missing)}")
    if problems:
        raise InvalidInput(
            f"{path.name} is not an entity store of schema v3 or v4: {'; '.join(problems)}",
            field="path",
        )


def _declared_versions(db: sqlite3.Connection, tables: set[str]) -> set[int]:
    """The versions the store states: ``PRAGMA user_version`` and a ``schema_version``
    table (its ``version`` column, else its first column), when set."""
    found: set[int] = set()
    user_version = db.execute("PRAGMA user_version").fetchone()[0]
    if user_version:
        found.add(int(user_version))
    if "schema_version" in tables:
        columns = [row[1] for row in db.execute("PRAGMA table_info('schema_version')")]
        column = "version" if "version" in columns else columns[0] if columns else None
        if column is not None:
            row = db.execute(f'SELECT MAX("{column}") FROM schema_version').fetchone()
            if row and row[0] is not None:
                with contextlib.suppress(TypeError, ValueError):
                    found.add(int(row[0]))
    return found


def _version_from_norms(db: sqlite3.Connection) -> int:
    """v3 when a stored norm is not in NFC or two norms differ only by Unicode form."""
    seen: set[str] = set()
    for (norm,) in db.execute(
        "SELECT name_norm FROM entities UNION ALL SELECT alias_norm FROM entity_aliases"
    ):
        if not isinstance(norm, str):
            continue
        nfc = unicodedata.normalize("NFC", norm)
        if nfc != norm or nfc in seen:
            return 3
        seen.add(nfc)
    return 4


def _version(db: sqlite3.Connection, tables: set[str], path: Path) -> int:
    declared = _declared_versions(db, tables)
    if not declared:
        return _version_from_norms(db)
    unsupported = sorted(declared - set(SUPPORTED))
    if unsupported:
        raise InvalidInput(
            f"{path.name} has entity store schema v{unsupported[-1]}; only v3 and v4 can be "
            "imported",
            field="path",
        )
    # user_version and schema_version disagreeing: read it as the older (v3 folding is
    # the careful one, and it is what the norms would say if v4 had not finished).
    return min(declared)


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
        str(pk): (body, _confidence(pk, conf))
        for pk, body, conf in rows
        if isinstance(body, str) and body.strip()
    }


def _confidence(pk: object, value: object) -> float:
    """A stored confidence clamped to 0..1 (none: 1); one that is not a number refuses
    the store, naming the fact, rather than end the import in a traceback."""
    if value is None:
        return 1.0
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if math.isnan(number):
        raise InvalidInput(
            f"fact {pk}: confidence {value!r} is not a number", field="path"
        ) from None
    return min(1.0, max(0.0, number))


def entity_store_read(path: Path) -> SourceStore:
    """Read a v3 or v4 store; anything else is refused with InvalidInput naming ``path``."""
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file", field="path")
    try:
        # As a file URI, percent-encoded: a "#", "?" or "%" in the name would otherwise
        # end the path early, and SQLite would create an empty file of the shorter name.
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise InvalidInput(f"{path} is not an SQLite database ({exc})", field="path") from None
    try:
        missing = [t for t in REQUIRED if t not in tables]
        if missing:
            raise InvalidInput(
                f"{path.name} is not an entity store: no table {', '.join(missing)}",
                field="path",
            )
        _check_layout(db, path)
        version = _version(db, tables, path)
        entities, orphans = _entities(db)
        return SourceStore(version, entities, _facts_table(db, tables), orphans)
    finally:
        db.close()


def _entities(db: sqlite3.Connection) -> tuple[list[SourceEntity], dict[str, int]]:
    """The entities with their aliases and fact links, and how many alias and link rows
    name an id no entity has."""
    description = "description" if "description" in _columns(db, "entities") else "''"
    by_id: dict[str, SourceEntity] = {}
    orphans: dict[str, int] = defaultdict(int)
    for pk, name, entity_type, created, desc in db.execute(
        f"SELECT id, canonical_name, type, created_at, {description} FROM entities ORDER BY id"
    ):
        by_id[str(pk)] = SourceEntity(
            id=str(pk),
            name=name if isinstance(name, str) else "",
            type=(entity_type if isinstance(entity_type, str) else "").strip(),
            created_at=str(created or ""),
            description=desc if isinstance(desc, str) else "",
        )
    for entity_id, alias in db.execute(
        "SELECT entity_id, alias FROM entity_aliases ORDER BY rowid"
    ):
        if str(entity_id) in by_id and isinstance(alias, str):
            by_id[str(entity_id)].aliases.append(alias)
        elif str(entity_id) not in by_id:
            orphans["aliases_orphaned"] += 1
    role = "role" if "role" in _columns(db, "entity_facts") else "'mention'"
    for entity_id, fact_id, fact_role in db.execute(
        f"SELECT entity_id, fact_id, {role} FROM entity_facts ORDER BY rowid"
    ):
        if str(entity_id) in by_id and fact_id is not None:
            by_id[str(entity_id)].facts.append((str(fact_id), fact_role or "mention"))
        elif str(entity_id) not in by_id:
            orphans["links_orphaned"] += 1
    return list(by_id.values()), dict(orphans)


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
    description = oldest.description
    try:
        validate_description(description)
    except DomainError as exc:  # the entity is kept; only what no description may hold goes
        report.skip(f"entity '{oldest.name}': {exc.message}; imported without it")
        report.counts["descriptions_skipped"] += 1
        description = ""
    try:
        entity, created = services.entity_store(
            name=oldest.name, type=_type_of(oldest.type), description=description
        )
    except DomainError as exc:
        report.skip(f"entity '{oldest.name}': {exc.message}")
        report.counts["entities_skipped"] += 1
        return None
    report.counts["entities_created" if created else "entities_existing"] += 1
    report.counts["names_folded"] += len(group) - 1
    for row in group:
        if row is not oldest and row.name != oldest.name:
            _alias(entity, row.name, report)
        for alias in row.aliases:
            _alias(entity, alias, report)
    return entity


def _source_ids(store: str, group: list[SourceEntity], entity: Entity, report: ImportReport):
    """Each row's id becomes a second key of the entity it folded into."""
    for row in group:
        _ref, created = ExternalEntityId.objects.get_or_create(
            store=store, external_id=row.id, defaults={"entity": entity}
        )
        report.counts["source_ids_created" if created else "source_ids_existing"] += 1


def _alias(entity: Entity, alias: str, report: ImportReport) -> None:
    if normalize(alias) == entity.name_norm:
        report.counts["aliases_redundant"] += 1  # folds into the canonical name
        return
    try:
        _row, created = services.alias_add(entity=entity, alias=alias, manual=True)
    except Conflict as exc:
        report.skip(f"alias '{alias}' of '{entity.canonical_name}': {exc.message}")
        report.counts["aliases_skipped"] += 1
        return
    except InvalidInput as exc:
        report.skip(f"alias '{alias}': {exc.message}")
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
        report.skip(f"fact {fact_id}: {exc.message}")
        report.counts["facts_skipped"] += 1
        return None
    report.counts[f"facts_{result.action}"] += 1
    ExternalFactLink.objects.create(
        store=store, external_id=fact_id, fact=result.fact, scope=result.fact.scope
    )
    return result.fact


def _link(
    store: str,
    entity: Entity,
    fact_id: str,
    role: str,
    fact: Fact | None,
    report: ImportReport,
    scope: str,
) -> None:
    if fact is not None:
        role = role if role in ROLES else EntityFact.Role.MENTION
        _row, created = services.fact_link(fact=fact, entity=entity, role=role)
        report.counts["links_created" if created else "links_existing"] += 1
    _ref, created = ExternalFactLink.objects.get_or_create(
        store=store, external_id=fact_id, entity=entity, defaults={"fact": fact, "scope": scope}
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
    # Rows nothing can be made of are counted, not dropped unsaid.
    report.counts.update(source.orphans)
    unnamed = sum(1 for e in source.entities if not normalize(e.name))
    if unnamed:
        report.counts["entities_unnamed"] = unnamed
    with vector_batch():
        for group in entities_fold(source.entities):
            entity = _import_group(group, report)
            if entity is None:
                continue
            _source_ids(store, group, entity, report)
            seen: set[str] = set()
            for row in group:
                for fact_id, role in row.facts:
                    if fact_id in seen:
                        continue
                    seen.add(fact_id)
                    fact = _fact_for(store, fact_id, source, scope, report)
                    _link(store, entity, fact_id, role, fact, report, scope)
    audit_many(
        actor=actor,
        action="entity_kg.import",
        model=Entity,
        payload={"store": store, "path": path.name, **report.as_dict()},
    )
    return report
