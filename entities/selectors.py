"""Read-side queries for the entity graph."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Prefetch, Q, QuerySet, prefetch_related_objects
from rapidfuzz import fuzz, process

from kgsite.converters import parse_id
from kgsite.errors import InvalidInput, NotFound
from kgsite.text import normalize

from . import hooks, lookup_sql
from .models import (
    Alias,
    DuplicateSuggestion,
    Entity,
    EntityFact,
    EntityMerge,
    EntityRedirect,
    ExternalFactLink,
    Fact,
)
from .name_index import fold, name_candidates
from .names import normalize_type, validate_name
from .scopes import ScopeFilter

SUGGESTION_LIMIT = 5
SUGGESTION_MIN_SCORE = 0.6


@dataclass
class LookupResult:
    """The lookup contract: a match, an honest "ambiguous", or "none" with suggestions."""

    match: str  # canonical | alias | external_id | ambiguous | none
    entity: Entity | None = None
    aliases: list[str] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    candidates: list[Entity] = field(default_factory=list)
    suggestions: list[tuple[Entity, float]] = field(default_factory=list)
    scopes: ScopeFilter = field(default_factory=ScopeFilter)
    # The entity's imported ids, when the lookup read them with its other details.
    external: dict | None = None

    def as_dict(self) -> dict:
        def brief(e: Entity) -> dict:
            return {"id": e.id, "canonical_name": e.canonical_name, "type": e.type}

        return {
            "match": self.match,
            "entity": brief(self.entity) if self.entity else None,
            "aliases": self.aliases,
            "facts": self.facts,
            "candidates": [brief(e) for e in self.candidates],
            "suggestions": [{**brief(e), "score": round(s, 3)} for e, s in self.suggestions],
            **self._external_refs(),
        }

    def _external_refs(self) -> dict:
        if self.entity is None:
            return EMPTY_REFS
        if self.external is None:
            self.external = entity_external_refs(entity=self.entity, scopes=self.scopes)
        return self.external


EMPTY_REFS = {"external_ids": [], "external_facts": []}


def entity_external_refs(*, entity: Entity, scopes: ScopeFilter | None = None) -> dict:
    """The entity's ids in imported memories, and the fact ids they linked to it there
    (with the fact each became, or null where the store had no facts table), of the
    imports the reader's scope sees (default: global memory)."""
    return lookup_sql.external_refs(entity.id, scopes)  # on every lookup answer: plain SQL


def entity_by_external_id(value: object) -> Entity | None:
    """The entity an imported memory knew by this id (exact, as the store spelt it)."""
    if not isinstance(value, str) or not value.strip() or len(value) > 255:
        return None
    # An id two stores both used names no entity for sure: no answer rather than a guess.
    # Plain SQL: every missed lookup asks.
    return lookup_sql.entity_by_external_id(value.strip())


def entity_get(*, entity_id: str) -> Entity:
    """An entity by id, or by its id in an imported memory (a second key)."""
    try:
        return Entity.objects.get(pk=entity_id)
    except Entity.DoesNotExist:
        found = entity_by_external_id(entity_id)
        if found is not None:
            return found
        raise NotFound(f"no entity with id '{entity_id}'", field="id") from None


def entities_by_pk(*, ids: list[str]) -> dict[str, Entity]:
    """The entities of these primary keys, in one read (an unknown id is absent)."""
    return Entity.objects.in_bulk(sorted(set(ids))) if ids else {}


def entity_list(*, type: str | None = None, prefix: str | None = None) -> QuerySet[Entity]:  # noqa: A002
    qs = Entity.objects.all()
    wanted = normalize_type(type) if type else ""
    if wanted:  # blank once trimmed: any type, as lookup reads it (not "untyped only")
        qs = qs.filter(type=wanted)
    if prefix:
        qs = qs.filter(name_norm__startswith=normalize(prefix))
    return qs.order_by("name_norm", "type")


def entity_facts(
    *,
    entity: Entity,
    status: str | None = Fact.Status.ACTIVE,
    scopes: ScopeFilter | None = None,
) -> list[int]:
    """Ids of the entity's facts that the reader's scope sees (global only by default)."""
    qs = EntityFact.objects.filter(entity=entity)
    if status:
        qs = qs.filter(fact__status=status)
    qs = qs.filter((scopes or ScopeFilter()).q("fact__"))
    return list(qs.order_by("fact_id").values_list("fact_id", flat=True))


def entity_lookup(
    *,
    name: object,
    type: str | None = None,  # noqa: A002
    scopes: ScopeFilter | None = None,
) -> LookupResult:
    """Resolve a name through canonical names and aliases; never guess.

    A name matching (as canonical name or alias) entities of several types is
    "ambiguous" unless ``type`` narrows it: the candidates list canonical matches
    first. Within one type a canonical match wins over an alias of another entity.
    Near misses are only ever suggestions.
    """
    if name is None:
        raise InvalidInput("name is required", field="name")
    norm = normalize(validate_name(name))
    entity_type = (normalize_type(type) or None) if type else None  # blank: any type

    # One statement, two index lookups joined by UNION ALL: an OR over the two paths makes
    # PostgreSQL scan every entity (57 ms at 100,000 entities against 0.2 ms). (name_norm,
    # type) is unique, an alias joins at most one entity per type, and the alias branch
    # skips canonical matches, so no row comes twice. Plain SQL (lookup_sql): the ORM's
    # queryset building cost many times the database's own time on this path.
    found = lookup_sql.entities_named(norm, entity_type)
    if not found:
        imported = entity_by_external_id(name)
        if imported is not None and entity_type in (None, imported.type):
            return LookupResult(
                match="external_id",
                entity=imported,
                aliases=sorted(imported.aliases.values_list("alias", flat=True)),
                facts=entity_facts(entity=imported, scopes=scopes),
                scopes=scopes or ScopeFilter(),
            )
        return LookupResult(match="none", suggestions=entity_suggest(norm=norm, type=entity_type))
    canonical = [e for e in found if e.name_norm == norm]
    if len({e.type for e in found}) > 1:
        by_alias = [e for e in found if e.name_norm != norm]
        return LookupResult(match="ambiguous", candidates=canonical + by_alias)
    # One type: at most one canonical match, and at most one alias owner.
    if canonical:
        match, entity = "canonical", canonical[0]
    elif len(found) == 1:
        match, entity = "alias", found[0]
    else:  # pragma: no cover - excluded by the unique constraints
        return LookupResult(match="ambiguous", candidates=found)
    # Aliases, facts and imported ids in one more statement: a hit is two round trips.
    details = lookup_sql.details(entity.id, status=Fact.Status.ACTIVE, scopes=scopes)
    return LookupResult(
        match=match,
        entity=entity,
        aliases=details.aliases,
        facts=details.facts,
        scopes=scopes or ScopeFilter(),
        external=details.external,
    )


def entity_suggest(*, norm: str, type: str | None = None) -> list[tuple[Entity, float]]:  # noqa: A002
    """Near misses by edit distance and token similarity, for "did you mean".

    Candidates come from the word-start index (``entities.name_index``), never a scan.
    """
    folded_query = fold(norm)
    stems = {token[:3] for token in folded_query.split() if len(token) >= 3}
    if not stems:
        return []
    pairs = name_candidates(stems=sorted(stems), type=type)
    # One call into rapidfuzz's C loop for every candidate text.
    matches = process.extract(
        folded_query,
        [text for _id, text in pairs],
        scorer=fuzz.WRatio,
        score_cutoff=SUGGESTION_MIN_SCORE * 100,
        limit=None,
    )
    best: dict[str, float] = {}
    for _text, score, position in matches:
        entity_id = pairs[position][0]
        best[entity_id] = max(best.get(entity_id, 0.0), score / 100)
    # Ranked on the rows; only the entities shown are built as model instances (a miss
    # has dozens of candidates over the score cut-off).
    order = {pk: position for position, pk in enumerate(best)}
    rows = lookup_sql.entity_rows_by_id(list(best))
    ranked = sorted(rows, key=lambda row: (-best[row[0]], row[2], order[row[0]]))  # 2: norm
    return [(lookup_sql.entity_from_row(row), best[row[0]]) for row in ranked[:SUGGESTION_LIMIT]]


def facts_links_load(*, facts: list[Fact]) -> None:
    """Load the facts' entity links with their entities in one read (``FactSerializer``
    reads ``entity_facts`` and each link's entity: one read per link otherwise)."""
    links = EntityFact.objects.select_related("entity").order_by("pk")
    prefetch_related_objects(facts, Prefetch("entity_facts", queryset=links))


def fact_get(*, fact_id: int, scopes: ScopeFilter | None = None) -> Fact:
    """One fact; with ``scopes``, a fact outside the reader's view is not found (404)."""
    qs = Fact.objects.prefetch_related("entity_facts__entity")
    if scopes is not None:
        qs = qs.filter(scopes.q())
    try:
        return qs.get(pk=fact_id)
    except Fact.DoesNotExist:
        raise NotFound(f"no fact with id {fact_id}", field="id") from None


MAX_FACT_REFS = 100


def fact_refs_resolve(*, ids: list, scopes: ScopeFilter) -> list[dict]:
    """Facts by id, in the order asked: one of ours (a number), or an id of an imported
    memory. An imported id resolves to the fact it became, else to an external
    reference naming the entities it was linked to; an id outside the reader's scope or
    unknown answers ``found: false``."""
    if not isinstance(ids, list) or not ids:
        raise InvalidInput("ids must be a non-empty list", field="ids")
    if len(ids) > MAX_FACT_REFS:
        raise InvalidInput(f"ids takes at most {MAX_FACT_REFS} ids", field="ids")
    asked = []
    for i, value in enumerate(ids):
        if isinstance(value, bool) or not isinstance(value, int | str) or str(value).strip() == "":
            raise InvalidInput("each id must be a number or a string", field=f"ids.{i}")
        if isinstance(value, str) and len(value) > 255:
            raise InvalidInput("an id is at most 255 characters", field=f"ids.{i}")
        asked.append(str(value).strip())
    numbers = {a: n for a in asked if (n := parse_id(a)) is not None}
    own = list(numbers.values())
    visible = Fact.objects.filter(scopes.q())
    facts = visible.in_bulk(own)
    links: dict[str, list[ExternalFactLink]] = {}
    refs = ExternalFactLink.objects.filter(scopes.q(), external_id__in=asked)
    for link in refs.order_by("store", "pk"):
        links.setdefault(link.external_id, []).append(link)
    imported = visible.in_bulk([lk.fact_id for rows in links.values() for lk in rows if lk.fact_id])
    answers = []
    for a in asked:
        if numbers.get(a) in facts:
            answers.append({"id": a, "found": True, "fact": facts[numbers[a]]})
            continue
        rows = links.get(a, [])
        became = next((imported[lk.fact_id] for lk in rows if lk.fact_id in imported), None)
        if became is not None:
            answers.append({"id": a, "found": True, "fact": became, "store": rows[0].store})
        elif rows and not any(lk.fact_id for lk in rows):
            answers.append(
                {
                    "id": a,
                    "found": True,
                    "fact": None,
                    "store": rows[0].store,
                    "external": True,
                    "entities": sorted({lk.entity_id for lk in rows if lk.entity_id}),
                }
            )
        else:
            answers.append({"id": a, "found": False, "fact": None})
    return answers


def fact_kind_valid(kind: object) -> str:
    """``kind`` when it is one of the fact kinds, else the 400 naming the field (a kind
    to search or list by; ``services.fact_kind_check`` checks one to store)."""
    if kind not in Fact.Kind.values:
        raise InvalidInput(f"kind must be one of {', '.join(Fact.Kind.values)}", field="kind")
    return kind


def fact_list(
    *,
    entity: str | None = None,
    status: str | None = None,
    source: str | None = None,
    kind: str | None = None,
    scopes: ScopeFilter | None = None,
) -> QuerySet[Fact]:
    """Facts the reader's scope sees (``scopes``: global only by default), newest first."""
    qs = Fact.objects.prefetch_related("entity_facts__entity").filter((scopes or ScopeFilter()).q())
    if kind:
        qs = qs.filter(kind=fact_kind_valid(kind))
    if entity:
        qs = qs.filter(entity_facts__entity_id=entity)
    if status:
        if status not in Fact.Status.values:
            raise InvalidInput(
                f"status must be one of {', '.join(Fact.Status.values)}", field="status"
            )
        qs = qs.filter(status=status)
    source = (source or "").strip()  # stored trimmed (``fact_store``), as ``type`` is read
    if source:
        qs = qs.filter(source=source)
    return qs.order_by("-created_at", "-id")


SEARCH_LIMIT = 50


def _prefix(field: str, norm: str) -> Q:
    """``field`` starts with ``norm``, as an index range where the database compares
    strings by code point (SQLite: its LIKE is case-insensitive and never uses the
    index); elsewhere ``LIKE 'x%'``."""
    if connection.vendor == "sqlite":
        return Q(**{f"{field}__gte": norm, f"{field}__lt": norm + "\U0010ffff"})
    return Q(**{f"{field}__startswith": norm})


def entity_search(
    *, q: str = "", type: str | None = None, limit: int = SEARCH_LIMIT, candidates: bool = True
) -> list[Entity]:  # noqa: A002
    """Search as you type: entities whose name, a word of their name, or an alias starts
    with ``q`` (normalised as lookup normalises), best first: exact name, exact alias,
    then name prefixes, alias prefixes and word prefixes, each alphabetical.

    Every branch but the word-prefix one is an index range scan on ``name_norm`` or
    ``alias_norm``; the word-prefix one (a scan) runs only when the others found fewer
    than ``limit``. An empty ``q`` lists by name. ``candidates=False`` leaves out what
    extraction proposed and no curator confirmed yet (they have their review queue).
    """
    norm = normalize(q) if isinstance(q, str) else ""
    entity_type = normalize_type(type) if type else None
    base = Entity.objects.all() if candidates else Entity.objects.filter(candidate=False)
    if entity_type:
        base = base.filter(type=entity_type)
    if not norm:
        return list(base.order_by("name_norm", "type")[:limit])
    found: dict[str, Entity] = {}
    # Filtered as ``base`` is before the cut: other types' aliases must not fill it.
    aliases = Alias.objects.filter(_prefix("alias_norm", norm))
    if entity_type:
        aliases = aliases.filter(type=entity_type)
    if not candidates:
        aliases = aliases.filter(entity__candidate=False)
    alias_ids = aliases.order_by("alias_norm").values("entity_id")
    branches = [
        base.filter(name_norm=norm),
        base.filter(aliases__alias_norm=norm),
        base.filter(_prefix("name_norm", norm)),
        base.filter(pk__in=alias_ids[: limit * 4]),
        base.filter(name_norm__contains=f" {norm}"),
    ]
    for qs in branches:
        if len(found) >= limit:
            break
        for entity in qs.order_by("name_norm", "type").distinct()[:limit]:
            found.setdefault(entity.id, entity)
    return list(found.values())[:limit]


def entity_types() -> list[str]:
    """The types in use, for a type filter (one pass over the (type, name) index)."""
    return list(Entity.objects.order_by("type").values_list("type", flat=True).distinct())


# --- merges, redirects, duplicate suggestions, the entity page ---------------------------

REDIRECT_HOPS = 20


def entity_redirect_target(*, entity_id: str) -> str | None:
    """The entity that absorbed a merged-away id, following later merges; None when the
    id was never merged away (or its merge was undone)."""
    current, seen = entity_id, {entity_id}
    for _hop in range(REDIRECT_HOPS):
        target = (
            EntityRedirect.objects.filter(old_id=current)
            .values_list("target_id", flat=True)
            .first()
        )
        if target is None or target in seen:
            break
        current = target
        seen.add(current)
        if Entity.objects.filter(pk=current).exists():
            return current
    return None


def entity_not_found(entity_id: str, *, field: str) -> NotFound:
    """The 404 for an id no entity has, naming ``field``; a merged-away id says where it
    went (the entity's own address answers 301 to it)."""
    target = entity_redirect_target(entity_id=entity_id)
    hint = f" (it was merged into '{target}')" if target else ""
    return NotFound(f"no entity with id '{entity_id}'{hint}", field=field)


def entity_named(*, entity_id: str, field: str) -> Entity:
    """An entity a request names (its id or an imported one); otherwise the 404 naming
    ``field`` that says where a merged-away id went."""
    try:
        return entity_get(entity_id=entity_id)
    except NotFound:
        raise entity_not_found(entity_id, field=field) from None


def merge_get(*, merge_id: int) -> EntityMerge:
    try:
        return EntityMerge.objects.select_related("actor", "undone_by").get(pk=merge_id)
    except (EntityMerge.DoesNotExist, ValueError, TypeError):
        raise NotFound(f"no merge with id {merge_id}", field="id") from None


def merge_list() -> QuerySet[EntityMerge]:
    """Merge history, newest first."""
    return EntityMerge.objects.select_related("actor", "undone_by").order_by("-created_at", "-id")


def merge_undoable_for(*, entity: Entity) -> EntityMerge | None:
    """The newest merge into ``entity`` that is not undone yet (the page's undo button)."""
    return merge_list().filter(survivor=entity, undone_at__isnull=True).first()


def merge_done_as_asked(*, survivor_id: str, duplicate_ids: list[str], actor) -> EntityMerge | None:
    """The newest merge into ``survivor_id``, not undone, if ``actor`` made it and it
    merged every one of ``duplicate_ids``: the same merge asked twice finds it done."""
    merge = merge_list().filter(survivor_id=survivor_id, undone_at__isnull=True).first()
    if merge is None or merge.actor_id != getattr(actor, "pk", None):
        return None
    wanted = {i for i in duplicate_ids if i}
    return merge if wanted and wanted <= set(merge.duplicate_ids) else None


def merge_undone_by(*, merge_id: int, actor) -> bool:
    """Whether ``actor`` undid this merge and none of its entities was merged again
    since: its Undo asked a second time finds it done."""
    merge = EntityMerge.objects.filter(pk=merge_id, undone_by_id=getattr(actor, "pk", None))
    merge = merge.first()
    if merge is None:
        return False
    ids = {merge.survivor_id, *merge.duplicate_ids}
    later = EntityMerge.objects.filter(pk__gt=merge.pk, undone_at__isnull=True)
    return not any(ids & {m.survivor_id, *m.duplicate_ids} for m in later)


def duplicate_suggestions_pending(*, entity: Entity | None = None) -> QuerySet[DuplicateSuggestion]:
    """Pairs waiting for a curator, best evidence first (both entities still exist)."""
    qs = DuplicateSuggestion.objects.filter(
        status=DuplicateSuggestion.Status.PENDING,
        entity_a__isnull=False,
        entity_b__isnull=False,
    )
    if entity is not None:
        qs = qs.filter(Q(entity_a=entity) | Q(entity_b=entity))
    return qs.select_related("entity_a", "entity_b").order_by("-score", "id")


def duplicate_suggestion_get(*, suggestion_id: int) -> DuplicateSuggestion:
    try:
        return DuplicateSuggestion.objects.select_related("entity_a", "entity_b").get(
            pk=suggestion_id
        )
    except (DuplicateSuggestion.DoesNotExist, ValueError, TypeError):
        raise NotFound(f"no duplicate suggestion with id {suggestion_id}", field="id") from None


@dataclass(frozen=True)
class FactRow:
    fact: Fact
    role: str  # subject | object | mention


@dataclass(frozen=True)
class EntityPageData:
    entity: Entity
    aliases: list[Alias]
    facts: list[FactRow]  # the newest ENTITY_PAGE_FACTS of ``fact_count``
    fact_count: int
    # Mentions grouped by book, defining chunks first (``hooks.MentionReader``'s shape).
    books: list[dict]
    undoable_merge: EntityMerge | None
    suggestions: list[DuplicateSuggestion]


ENTITY_PAGE_FACTS = 200


def entity_page_data(*, entity: Entity, scopes: ScopeFilter | None = None) -> EntityPageData:
    """Everything the entity page shows: aliases, facts (newest first; status,
    confidence, confirmations, source, validity are on ``fact``), mentions by book
    (supplied by books through ``hooks.mention_reader``), the merge it can undo and
    the duplicate suggestions that involve it. Facts of ``scopes`` only (default: every
    project, as curators see them)."""
    scopes = scopes or ScopeFilter(all_scopes=True)
    linked = EntityFact.objects.filter(scopes.q("fact__"), entity=entity)
    links = (
        linked.select_related("fact")
        .prefetch_related(
            Prefetch(
                "fact__entity_facts",
                queryset=EntityFact.objects.select_related("entity").order_by("role", "entity_id"),
            ),
            "fact__confirmation_rows",
        )
        .order_by("-fact__created_at", "-fact_id")[:ENTITY_PAGE_FACTS]
    )
    return EntityPageData(
        entity=entity,
        aliases=list(entity.aliases.order_by("alias_norm")),
        facts=[FactRow(fact=link.fact, role=link.role) for link in links],
        fact_count=linked.count(),
        books=hooks.entity_mentions_read(entity.pk),
        undoable_merge=merge_undoable_for(entity=entity),
        suggestions=list(duplicate_suggestions_pending(entity=entity)[:20]),
    )
