"""The book's lexicon: the names it defines and the gazetteer its extraction reads."""

from __future__ import annotations

from collections.abc import Sequence

from entities.extraction import Gazetteer, GazetteerEntry
from entities.models import Alias, Entity
from entities.names import normalize_type, validate_name
from entities.services import entities_machine_only
from kgsite.errors import InvalidInput
from kgsite.text import normalize

from ..chunking import ChunkDraft
from ..extraction.base import (
    NEW_PREFIX,
    BookLexicon,
)
from ..extraction.candidates import candidates_merge
from ..extraction.structure import KnownName, defined_entities, resolve_definitions
from ..extraction.trace import type_traced
from ..models import Mention

# --- lexicon ---------------------------------------------------------------------------


def _new_id(norm: str, entity_type: str) -> str:
    return f"{NEW_PREFIX}{entity_type}:{norm}"


def _lexicon(chunks: Sequence[ChunkDraft], document_text: str, title_norm: str) -> BookLexicon:
    """Stored names plus what the book's structure defines, in one private gazetteer.

    The structure sees the whole document (a table split across chunks keeps its
    header and group rows) and the stored names (a heading naming a known entity
    defines it). The entities only the book's previous version made are not read: a new
    version finds what a first ingest of it would find, not what an old one left.
    """
    own = _previous_version_only(title_norm)
    gazetteer = Gazetteer.from_db(exclude=own)
    # Entities another book defines: one query, then a set lookup per name.
    defined_elsewhere = set(
        Mention.objects.filter(mention_type=Mention.Type.DEFINES)
        .exclude(book__title_norm=title_norm)
        .order_by()
        .values_list("entity_id", flat=True)
        .distinct()
    )
    memo: dict[str, list[KnownName]] = {}

    def known(name: str) -> list[KnownName]:
        if name not in memo:
            memo[name] = [
                KnownName(e.entity_type, e.entity_id in defined_elsewhere)
                for e in gazetteer.get(name)
            ]
        return memo[name]

    definitions = resolve_definitions(
        [defined_entities(c, document_text=document_text, known=known) for c in chunks]
    )
    rejected: set[str] = set()
    found = candidates_merge(chunks, definitions, rejected, known)
    for candidate in found:
        type_traced(candidate.name, candidate.type, candidate.typed_by)
    wanted: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    for entities in definitions:
        for entity in entities:
            try:
                display = validate_name(entity.name)
                entity_type = normalize_type(entity.type)
            except InvalidInput:
                continue
            if entity.via != "candidate":
                type_traced(display, entity_type, f"structure: {entity.via}")
            key = (normalize(display), entity_type)
            seen = wanted.get(key)
            aliases = tuple(entity.aliases) + (seen[1] if seen else ())
            wanted[key] = (seen[0] if seen else display, aliases)
    norms = {norm for norm, _type in wanted}
    # The candidates' names are looked up in the same queries (one pair per 500 names).
    candidate_norms = {normalize(c.name) for c in found}
    stored, existing = _stored_names(sorted(norms | candidate_norms), norms, own)
    defined_ids: dict[tuple[str, str], str] = {}
    defined_names: dict[str, tuple[str, str]] = {}
    for (norm, entity_type), (display, aliases) in wanted.items():
        if (norm, entity_type) in existing:
            entity_id, name = existing[(norm, entity_type)]
        else:
            entity_id, name = _new_id(norm, entity_type), display
            entry = GazetteerEntry(entity_id, name, entity_type)
            gazetteer.add(name, entry)
            for alias in aliases:
                gazetteer.add(alias, entry)
        defined_ids[(norm, entity_type)] = entity_id
        defined_names[entity_id] = (name, entity_type)
    _definitions_relax(gazetteer, definitions, defined_ids)
    return BookLexicon(
        gazetteer=gazetteer,
        defined_ids=defined_ids,
        defined_names=defined_names,
        definitions=definitions,
        candidates=_candidates_lexicon(found, gazetteer, defined_ids, stored),
        rejected=frozenset(rejected - {norm for norm, _t in defined_ids}),
        renew=own,
    )


def _previous_version_only(title_norm: str) -> frozenset[str]:
    """The entities the stored book of this title names that no other book names and
    nothing but extraction holds (a re-ingest would otherwise find them by name)."""
    named = set(
        Mention.objects.filter(book__title_norm=title_norm)
        .order_by()
        .values_list("entity_id", flat=True)
        .distinct()
    )
    if not named:
        return frozenset()
    elsewhere: set[str] = set()
    ids = sorted(named)
    for start in range(0, len(ids), 500):
        elsewhere.update(
            Mention.objects.filter(entity_id__in=ids[start : start + 500])
            .exclude(book__title_norm=title_norm)
            .order_by()
            .values_list("entity_id", flat=True)
            .distinct()
        )
    return frozenset(entities_machine_only(named - elsewhere))


def _stored_names(lookup: list[str], norms: set[str], ignored: frozenset[str]) -> tuple[dict, dict]:
    """Stored entities named by ``lookup`` (by name), and those named by ``norms`` by name
    or alias, but the ``ignored`` ids: (norm, type) -> (entity id, canonical name); two
    queries per 500 names."""
    stored: dict[tuple[str, str], tuple[str, str]] = {}
    existing: dict[tuple[str, str], tuple[str, str]] = {}
    for start in range(0, len(lookup), 500):
        batch = lookup[start : start + 500]
        rows = Entity.objects.filter(name_norm__in=batch).exclude(pk__in=ignored)
        for pk, name, norm, entity_type in rows.values_list(
            "pk", "canonical_name", "name_norm", "type"
        ):
            stored[(norm, entity_type)] = (pk, name)
            if norm in norms:
                existing[(norm, entity_type)] = (pk, name)
        aliases = Alias.objects.filter(alias_norm__in=batch).exclude(entity_id__in=ignored)
        for pk, name, norm, entity_type in aliases.values_list(
            "entity_id", "entity__canonical_name", "alias_norm", "type"
        ):
            if norm in norms:
                existing.setdefault((norm, entity_type), (pk, name))
    return stored, existing


def _definitions_relax(gazetteer, definitions, defined_ids) -> None:
    """The book's own structure defines these names: match them as its terms (stored
    candidates would otherwise be matched strictly)."""
    for entities in definitions:
        for entity in entities:
            if entity.via != "candidate":
                key = (normalize(entity.name), normalize_type(entity.type))
                if key in defined_ids:
                    gazetteer.relax(defined_ids[key])


def _candidates_lexicon(found, gazetteer, defined_ids, stored) -> dict:
    """Put the names the text introduces into the book's gazetteer (a stored entity of
    the same name and type is reused; a new one is matched strictly, as a candidate)."""

    info: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = {}
    wanted: dict[tuple[str, str], object] = {}
    for candidate in found:
        try:
            key = (normalize(validate_name(candidate.name)), normalize_type(candidate.type))
        except InvalidInput:
            continue
        if key not in info:
            info[key] = (candidate.evidence, candidate.aliases)
            wanted[key] = candidate
    stored_norms = {norm for norm, _type in stored}
    for key, candidate in wanted.items():
        entity_id = defined_ids.get(key) or (stored[key][0] if key in stored else None)
        if entity_id is not None and not entity_id.startswith(NEW_PREFIX):
            continue  # a stored entity: the gazetteer has it, with its own matching
        if entity_id is None and key[0] in stored_norms:
            # A name the store already holds under another type, which this book only
            # mentions (it does not define it): its mentions are the stored entity's.
            continue
        entity_id = entity_id or _new_id(*key)
        entry = GazetteerEntry(entity_id, candidate.name, key[1])
        for form in (candidate.name, *candidate.aliases):
            gazetteer.add(form, entry, strict=True)
    return info
