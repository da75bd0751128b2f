"""Entity detection: a gazetteer over known names and aliases, plus spaCy for unknown names.

The gazetteer is the fast path shared by the API, book ingestion and search, so it is
pure Python tuned for throughput: texts are normalised once (``kgsite.text.normalize``
semantics) with an offset map back to the original, split into tokens by one regex, and
matched with a hash-based token trie (a dict of full names plus a set of proper token
prefixes). Matches always sit on word boundaries, the leftmost-longest match wins, and
offsets always refer to the text the caller passed in.

Ambiguity: when one surface form names several entities (the spell "Shield" and the
armour "Shield"), canonical-name matches beat alias matches (as in lookup); if more
than one entity remains after the optional ``types`` filter the mention is returned once
with ``canonical_id=None``, ``entity_type="ambiguous"`` and the remaining ``candidates``.

Caching: ``gazetteer_get()`` builds the DB-backed gazetteer once per process. It is
rebuilt when this process saves an entity or alias (an ``entities.hooks.on_entity_saved`` hook bumps
an in-process version) and when a cheap fingerprint of the tables (row counts and
latest ``updated_at``) changes; the fingerprint is checked at most every
``KGSITE_GAZETTEER_RECHECK_SECONDS`` seconds, which bounds staleness across processes.
"""

from __future__ import annotations

import re
import threading
import time
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection

from kgsite.models import AuditEntry
from kgsite.text import clean_display, normalize

from ..models import Alias, Entity
from ..names import normalize_type
from .normtext import NormalizedText, _Regexes, _regexes  # noqa: F401 (benchmarks read _regexes)
from .strict import (  # noqa: F401 (imported from here by callers)
    COMMON_ZIPF,
    is_common_word,
    strict_match_allows,
    word_zipf,
)

AMBIGUOUS = "ambiguous"

# spaCy labels worth reporting as unknown entities, mapped to our snake_case type tags.
SPACY_LABELS: dict[str, str] = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "place",
    "LOC": "place",
    "FAC": "facility",
    "PRODUCT": "product",
    "WORK_OF_ART": "work_of_art",
    "EVENT": "event",
    "NORP": "group",
    "LAW": "law",
    "LANGUAGE": "language",
}
# Pipes the NER component does not need; excluding them halves load time and memory.
_SPACY_EXCLUDE = ["parser", "tagger", "lemmatizer", "attribute_ruler", "senter", "morphologizer"]


@dataclass(frozen=True, slots=True)
class GazetteerEntry:
    """One entity a surface form can name."""

    entity_id: str
    canonical_name: str
    entity_type: str


@dataclass(frozen=True, slots=True)
class DetectedEntity:
    surface_form: str
    canonical_id: str | None
    canonical_name: str
    entity_type: str
    start: int
    end: int
    # Only for ambiguous mentions: the entities the surface form may name.
    candidates: tuple[GazetteerEntry, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "surface_form": self.surface_form,
            "canonical_id": self.canonical_id,
            "canonical_name": self.canonical_name,
            "entity_type": self.entity_type,
            "start": self.start,
            "end": self.end,
            "candidates": [
                {"id": c.entity_id, "canonical_name": c.canonical_name, "type": c.entity_type}
                for c in self.candidates
            ],
        }


# --- The gazetteer ----------------------------------------------------------------------

# Candidates listed for one ambiguous mention (a surface form shared by many entities).
MAX_CANDIDATES = 20
# On text without combining marks (all ASCII, and nearly all NFC text) this splits
# exactly like the mark-aware token regex, twice as fast.
_PLAIN_TOKEN = re.compile(r"\w+|[^\s\w]")

_Resolved = tuple["GazetteerEntry | None", tuple[GazetteerEntry, ...], str]


def _entry_of(value: Any) -> GazetteerEntry:
    """Accept a GazetteerEntry, an (id, name, type) tuple, an Entity or a mapping."""
    if isinstance(value, GazetteerEntry):
        return value
    if isinstance(value, tuple | list):
        entity_id, name, entity_type = value
        return GazetteerEntry(str(entity_id), name, entity_type or "")
    if hasattr(value, "canonical_name"):
        return GazetteerEntry(str(value.id), value.canonical_name, value.type or "")
    return GazetteerEntry(str(value["id"]), value["canonical_name"], value.get("type") or "")


class Gazetteer:
    """Known surface forms → entities, matched over text on word boundaries.

    Build once (``from_pairs`` or ``from_db``; or use the cached ``gazetteer_get()``)
    and reuse: ``find`` is safe to call from several threads.
    """

    def __init__(self) -> None:
        # norm → ((entry, is_canonical_name), ...)
        self._names: dict[str, tuple[tuple[GazetteerEntry, bool], ...]] = {}
        # First tokens of every name: the only tokens of a text that need any work.
        self._first: set[str] = set()
        # Proper token prefixes of multi-token names ("rust" for "rust lang").
        self._prefixes: set[str] = set()
        # Resolution without a type filter, memoised per name.
        self._resolved: dict[str, _Resolved] = {}
        # Candidate entities (proposed by extraction, unconfirmed) → their written forms:
        # they match only as ``strict_match_allows`` says.
        self._strict: dict[str, set[str]] = {}
        rx = _regexes()
        self._token = rx.token
        self._marks = rx.marks
        self._word_char = rx.word_char

    # Building.

    def _add(self, norm: str, entry: GazetteerEntry, canonical: bool) -> None:
        current = self._names.get(norm)
        if current is None:
            if norm.isalnum():  # one token: the common case, no prefixes
                self._first.add(norm)
            else:
                ends = [m.end() for m in self._token.finditer(norm)]
                if not ends:
                    return
                self._first.add(norm[: ends[0]])
                for end in ends[:-1]:
                    self._prefixes.add(norm[:end])
            self._names[norm] = ((entry, canonical),)
            return
        for i, (known, was_canonical) in enumerate(current):
            if known.entity_id == entry.entity_id:
                if canonical and not was_canonical:
                    self._names[norm] = (*current[:i], (known, True), *current[i + 1 :])
                return
        self._names[norm] = (*current, (entry, canonical))

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, Any]]) -> Gazetteer:
        """Build from (surface form, entity-ish) pairs without touching the database.

        Entity-ish: a ``GazetteerEntry``, an ``(id, canonical_name, type)`` tuple, an
        ``Entity`` or a mapping with those keys. A pair counts as a canonical-name match
        when the surface form normalises to the entity's canonical name, else an alias.
        """
        gaz = cls()
        canonical_norms: dict[str, str] = {}
        for surface, value in pairs:
            entry = _entry_of(value)
            name_norm = canonical_norms.get(entry.entity_id)
            if name_norm is None:
                name_norm = canonical_norms[entry.entity_id] = normalize(entry.canonical_name)
            norm = normalize(surface)
            if norm:
                gaz._add(norm, entry, norm == name_norm)
        return gaz

    def add(self, surface: str, entity: Any, *, strict: bool = False) -> None:
        """Add one name to a private gazetteer (e.g. an entity just created mid-book).

        ``strict``: a candidate entity, matched as ``strict_match_allows`` says.
        Not for the shared ``gazetteer_get()`` instance, which other threads read.
        """
        entry = _entry_of(entity)
        norm = normalize(surface)
        if norm:
            self._add(norm, entry, norm == normalize(entry.canonical_name))
            self._resolved.pop(norm, None)
            if strict:
                self._strict.setdefault(entry.entity_id, set()).add(clean_display(surface))

    def relax(self, entity_id: str) -> None:
        """Match this entity as curated ones are (a book that defines a candidate uses
        its name as that term, in any case)."""
        self._strict.pop(entity_id, None)

    @classmethod
    def from_db(cls, exclude: frozenset[str] = frozenset()) -> Gazetteer:
        """All entities and aliases (but the ``exclude`` ids), using the normalised forms
        stored with them."""

        gaz = cls()
        entries: dict[str, GazetteerEntry] = {}
        rows = (
            Entity.objects.exclude(pk__in=exclude)
            .order_by()
            .values_list("id", "canonical_name", "name_norm", "type", "candidate")
        )
        for entity_id, name, norm, entity_type, candidate in rows.iterator(chunk_size=10_000):
            entry = GazetteerEntry(entity_id, name, entity_type)
            entries[entity_id] = entry
            if norm:
                gaz._add(norm, entry, True)
            if candidate:
                gaz._strict[entity_id] = {name}
        aliases = Alias.objects.order_by().values_list("alias_norm", "entity_id", "alias")
        for norm, entity_id, alias in aliases.iterator(chunk_size=10_000):
            entry = entries.get(entity_id)
            if entry is not None and norm:  # None: an entity created after the first query
                gaz._add(norm, entry, False)
                if entity_id in gaz._strict:
                    gaz._strict[entity_id].add(alias)
        return gaz

    # Reading.

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, surface: str) -> bool:
        return normalize(surface) in self._names

    def get(self, surface: str) -> tuple[GazetteerEntry, ...]:
        """Every entity this exact name (any case or Unicode form) may refer to."""
        return tuple(entry for entry, _c in self._names.get(normalize(surface), ()))

    def _resolve(self, norm: str, types: frozenset[str] | None) -> _Resolved | None:
        """(entry, (), name) if resolved, (None, candidates, name) if ambiguous, None if
        no entity of the wanted types carries this name."""
        if types is None:
            done = self._resolved.get(norm)
            if done is not None:
                return done
        options = self._names[norm]
        if types is not None:
            options = tuple(o for o in options if o[0].entity_type in types)
            if not options:
                return None
        if len(options) == 1:
            result: _Resolved = (options[0][0], (), options[0][0].canonical_name)
        else:
            canonical = [entry for entry, is_canonical in options if is_canonical]
            if len(canonical) == 1:
                result = (canonical[0], (), canonical[0].canonical_name)
            else:
                pool = tuple(canonical or [entry for entry, _c in options])[:MAX_CANDIDATES]
                shared = {c.canonical_name for c in pool}
                result = (None, pool, shared.pop() if len(shared) == 1 else "")
        if types is None:
            self._resolved[norm] = result
        return result

    def _longest(
        self, norm: str, m: re.Match[str], allowed: frozenset[str] | None
    ) -> tuple[int, _Resolved | None]:
        """The longest known name starting at token ``m`` (end, resolution)."""
        names = self._names
        word_char = self._word_char.match
        size = len(norm)
        start, end, key = m.start(), m.end(), m.group()
        best_end = -1
        best: _Resolved | None = None
        while True:
            if key in names and not (
                # Names with punctuation at an edge ("c++", ".net") must still not
                # touch a word character outside them.
                (start > 0 and word_char(norm, start - 1)) or (end < size and word_char(norm, end))
            ):
                resolved = self._resolve(key, allowed)
                if resolved is not None:
                    best_end, best = end, resolved
            if key not in self._prefixes:
                break
            nxt = self._token.match(norm, end + 1 if norm.startswith(" ", end) else end)
            if nxt is None:
                break
            end = nxt.end()
            key = norm[start:end]
        return best_end, best

    def _strict_allows(self, entry: GazetteerEntry | None, text: str, start: int, end: int) -> bool:
        forms = self._strict.get(entry.entity_id) if entry is not None else None
        return forms is None or strict_match_allows(text, start, end, forms)

    def find(
        self,
        text: str,
        *,
        types: Iterable[str] | None = None,
        normalized: bool = False,
    ) -> list[DetectedEntity]:
        """Known entities mentioned in ``text``, leftmost-longest, in text order.

        ``types`` keeps only entities of those (already normalised) types; a longer name
        of another type then no longer hides a shorter one of the wanted type. With
        ``normalized=True`` the text is taken as already normalised (e.g.
        ``Fact.text_norm``) and offsets refer to it.
        """
        if not text or not self._names:
            return []
        allowed = frozenset(types) if types is not None else None
        if normalized:
            mapped, norm = None, text
        else:
            mapped = NormalizedText(text)
            norm = mapped.norm
        first = self._first
        plain = norm.isascii() or self._marks.isdisjoint(set(norm))
        tokens = _PLAIN_TOKEN if plain else self._token
        hits = [m for m in tokens.finditer(norm) if m.group() in first]
        if not hits:
            return []
        found: list[DetectedEntity] = []
        covered = 0
        for m in hits:
            start = m.start()
            if start < covered:
                continue
            best_end, best = self._longest(norm, m, allowed)
            if best is None:
                continue
            o_start, o_end = mapped.span(start, best_end) if mapped else (start, best_end)
            surface = text[o_start:o_end]
            entry, candidates, name = best
            if not normalized and not self._strict_allows(entry, text, o_start, o_end):
                continue
            covered = best_end
            if entry is not None:
                found.append(
                    DetectedEntity(
                        surface,
                        entry.entity_id,
                        entry.canonical_name,
                        entry.entity_type,
                        o_start,
                        o_end,
                    )
                )
            else:
                name = name or clean_display(surface)
                found.append(
                    DetectedEntity(surface, None, name, AMBIGUOUS, o_start, o_end, candidates)
                )
        return found


# --- The cached, database-backed gazetteer ----------------------------------------------

# Every this many staleness checks, also compare the latest ``updated_at`` (a full scan
# of both tables, ~80 ms at 400k rows, where the cheap check takes a few ms).
FULL_CHECK_EVERY = 12
# Rebuilds are spaced at least this many times the last build's duration apart: at
# most a sixth of one core goes to rebuilding however fast names change.
REBUILD_SPACING = 5.0


@dataclass
class _Cache:
    lock: threading.Lock = field(default_factory=threading.Lock)
    gazetteer: Gazetteer | None = None
    fingerprint: tuple = ()
    built_version: int = -1
    checked_at: float = 0.0
    built_at: float = 0.0
    build_seconds: float = 0.0
    checks: int = 0
    version: int = 0  # bumped by this process's entity saves


_cache = _Cache()


def _fingerprint(*, full: bool) -> tuple:
    """Changes whenever the names could have: cheap parts always, timestamps if ``full``.

    Cheap: row counts (creations, deletions, merges), the newest alias id, the newest
    audit row (every curator rename, retype and merge writes one). Only an unaudited
    in-place rename from another process needs the full check to be seen. One
    statement (scalar subqueries), not one per part: the check ran five round trips.
    """
    quote = connection.ops.quote_name
    entity = quote(Entity._meta.db_table)
    alias = quote(Alias._meta.db_table)
    audit = quote(AuditEntry._meta.db_table)
    parts = [
        f"SELECT COUNT(*) FROM {entity}",
        f"SELECT COUNT(*) FROM {alias}",
        f"SELECT MAX({quote(Alias._meta.pk.column)}) FROM {alias}",
        f"SELECT MAX({quote(AuditEntry._meta.pk.column)}) FROM {audit}",
    ]
    if full:
        stamp = quote(Entity._meta.get_field("updated_at").column)
        parts += [f"SELECT MAX({stamp}) FROM {entity}", f"SELECT MAX({stamp}) FROM {alias}"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"({part})" for part in parts))
        return tuple(cursor.fetchone())


def gazetteer_invalidate(entity_ids: list[str] | None = None) -> None:
    """Mark the cached gazetteer stale (an ``on_entity_saved`` hook)."""
    _cache.version += 1


def gazetteer_get() -> Gazetteer:
    """The process-wide gazetteer of every entity and alias, rebuilt when they change.

    Saves in this process are noticed at once (hook); saves in other processes within
    ``KGSITE_GAZETTEER_RECHECK_SECONDS`` (cheap fingerprint), or, for unaudited
    in-place renames only, within ``FULL_CHECK_EVERY`` times that. Rebuilds are spaced
    at least ``REBUILD_SPACING`` times the last build's duration apart, so a stream of
    writes (book ingestion) cannot keep a process rebuilding; at 400k names that
    delays new names by up to ~35 s. Callers needing their own additions at once can
    build a private gazetteer (``from_pairs``) or ``add`` to one.
    """
    recheck = float(settings.KGSITE_GAZETTEER_RECHECK_SECONDS)
    with _cache.lock:
        now = time.monotonic()
        current = _cache.gazetteer
        if current is not None:
            # 0 (the test settings) means: check everything on every call.
            if recheck > 0 and now - _cache.built_at < REBUILD_SPACING * _cache.build_seconds:
                return current
            if _cache.built_version == _cache.version:
                if now - _cache.checked_at < recheck:
                    return current
                full = recheck <= 0 or _cache.checks % FULL_CHECK_EVERY == 0
                fingerprint = _fingerprint(full=full)
                _cache.checked_at = now
                _cache.checks += 1
                if fingerprint == _cache.fingerprint[: len(fingerprint)]:
                    return current
        version = _cache.version
        fingerprint = _fingerprint(full=True)  # before reading: later writes stay visible
        started = time.monotonic()
        _cache.gazetteer = Gazetteer.from_db()
        _cache.built_at = _cache.checked_at = time.monotonic()
        _cache.build_seconds = _cache.built_at - started
        _cache.fingerprint = fingerprint
        _cache.built_version = version
        return _cache.gazetteer


# --- spaCy for names not yet known ------------------------------------------------------

_nlp_lock = threading.Lock()
_nlp_model: Any = None


def spacy_nlp() -> Any:
    """The NER pipeline named by ``KGSITE_SPACY_MODEL``, loaded once per process."""
    global _nlp_model
    if _nlp_model is None:
        with _nlp_lock:
            if _nlp_model is None:
                import spacy  # deferred: seconds to load, only for unknown names

                _nlp_model = spacy.load(settings.KGSITE_SPACY_MODEL, exclude=_SPACY_EXCLUDE)
    return _nlp_model


def _unknown_from_doc(
    doc: Any,
    text: str,
    known: list[DetectedEntity],
    gazetteer: Gazetteer,
    allowed: frozenset[str] | None,
) -> list[DetectedEntity]:
    spans = [(d.start, d.end) for d in known]
    starts = [s for s, _e in spans]
    found: list[DetectedEntity] = []
    for ent in doc.ents:
        entity_type = SPACY_LABELS.get(ent.label_)
        if entity_type is None or (allowed is not None and entity_type not in allowed):
            continue
        start, end = ent.start_char, ent.end_char
        i = bisect_right(starts, start) - 1  # known spans are sorted and disjoint
        if (i >= 0 and spans[i][1] > start) or (i + 1 < len(spans) and spans[i + 1][0] < end):
            continue
        surface = text[start:end]
        # Known under another type than the ones asked for: not "unknown".
        if surface in gazetteer:
            continue
        name = clean_display(surface)
        if name:
            found.append(DetectedEntity(surface, None, name, entity_type, start, end))
    return found


def _types_of(types: Iterable[str] | None) -> frozenset[str] | None:
    if types is None:
        return None

    return frozenset(normalize_type(t) for t in types)


def extract_entities(
    text: str, *, include_unknown: bool = False, types: Iterable[str] | None = None
) -> list[DetectedEntity]:
    """Entities mentioned in ``text``: known ones resolved, unknown ones from spaCy."""
    return extract_entities_batch([text], include_unknown=include_unknown, types=types)[0]


def extract_entities_batch(
    texts: Iterable[str],
    *,
    include_unknown: bool = False,
    types: Iterable[str] | None = None,
    batch_size: int = 64,
    n_process: int = 1,
) -> list[list[DetectedEntity]]:
    """``extract_entities`` over many texts, feeding spaCy through ``nlp.pipe``.

    One gazetteer snapshot serves the whole batch. spaCy dominates the cost when
    ``include_unknown`` is set (tens of kB/s per core); ``n_process`` forks workers.
    """
    texts = list(texts)
    allowed = _types_of(types)
    gazetteer = gazetteer_get()
    known = [gazetteer.find(text, types=allowed) for text in texts]
    if not include_unknown:
        return known
    nlp = spacy_nlp()
    longest = max((len(t) for t in texts), default=0)
    if longest >= nlp.max_length:
        nlp.max_length = longest + 1
    results: list[list[DetectedEntity]] = []
    # Token strings first seen in these texts are freed with the zone (spaCy would keep
    # them for the process's life: memory grew with every new word a worker read).
    with nlp.memory_zone():
        docs = nlp.pipe(texts, batch_size=batch_size, n_process=n_process)
        for text, hits, doc in zip(texts, known, docs, strict=True):
            unknown = _unknown_from_doc(doc, text, hits, gazetteer, allowed)
            results.append(
                sorted(hits + unknown, key=lambda d: (d.start, d.end)) if unknown else hits
            )
    return results


def group_by_type(found: list[DetectedEntity]) -> dict[str, list[DetectedEntity]]:
    """Mentions per entity type, types sorted, mentions kept in text order."""
    groups: dict[str, list[DetectedEntity]] = {}
    for item in found:
        groups.setdefault(item.entity_type, []).append(item)
    return {key: groups[key] for key in sorted(groups)}
