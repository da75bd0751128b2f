"""Likely duplicate entities, found by blocking (never by comparing all pairs).

Candidate pairs come from blocks that stay small however large the graph grows:

- the same normalised name under several types (one block per name);
- an alias equal to another entity's name (one dictionary lookup per alias);
- names of the same type sharing a word or the first letters of a word, compared with
  rapidfuzz inside each block ("Mr. Holmes" / "Sherlock Holmes" share "holmes";
  "Moriarty" / "Moriarti" share "mori"): ``WRatio`` of the whole names, and the token
  set ratio of their content words (abbreviations such as titles and initials, words
  ending in a full stop or of one or two letters, left out) at 0.9 weight; a key held
  by more than ``MAX_BLOCK`` entities (a common word) is too unselective to block on
  and is skipped;
- nearest neighbours in the vectors room's "entities" kind (names, aliases, type and
  description embedded together), for the entities a scan focuses on;
- entities that share a neighbour (another entity on their facts), one block per
  neighbour of at most ``MAX_BLOCK`` entities: "Ada Lovelace" and "Augusta Ada King"
  both linked to "Charles Babbage" and the "Analytical Engine" are compared though their
  names differ.

Each pair found is then scored by the learned model of ``duplicate_model``: names,
types, shared facts, shared neighbours and the similarity of what their facts say,
weighed as ``manage.py train_duplicates`` fitted them. Every piece of evidence is kept
with the pair, so a curator sees why it was suggested.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from django.conf import settings
from rapidfuzz import fuzz, process

from kgsite.vectors.index import KINDS
from kgsite.vectors.service import embed_texts, similar_items

from .duplicate_model import QUEUE_FLOOR, Profile, mean_vector, model, pair_features
from .duplicate_model import content_words as content_words
from .models import Alias, Entity, EntityFact, Fact
from .name_index import fold as name_fold
from .search.kinds import entity_text

MAX_BLOCK = 50
NAME_MIN = 80  # WRatio (0-100) for name evidence
EMBED_MIN = 0.9
EMBED_K = 6
# A scan of every entity embeds each one's text for its neighbours only up to this size.
EMBED_FULL_LIMIT = 5000
# Pairs the learned model gives less are not kept (see ``duplicate_model.QUEUE_FLOOR``).
MIN_SCORE = QUEUE_FLOOR
CONTENT_WEIGHT = 0.9
# Fact texts per entity averaged into its profile's vector.
PROFILE_FACTS = 20
_WORD = re.compile(r"\w+")

Pair = tuple[str, str]


def pair_of(a: str, b: str) -> Pair:
    return (a, b) if a < b else (b, a)


def pair_key(pair: Pair) -> str:
    return "|".join(pair)


@dataclass
class Candidates:
    evidence: dict[Pair, list[dict]] = field(default_factory=lambda: defaultdict(list))
    embedding_checked: int = 0
    # The learned model's probability per pair, once ``_score`` ran.
    scores: dict[Pair, float] = field(default_factory=dict)

    def add(self, a: str, b: str, item: dict, focus: set[str] | None) -> None:
        if a == b or (focus is not None and a not in focus and b not in focus):
            return
        found = self.evidence[pair_of(a, b)]
        if all(e["kind"] != item["kind"] for e in found):
            found.append(item)

    def score(self, pair: Pair) -> float:
        """The learned model's probability that the two are one entity; before the
        pair is scored, the strongest evidence raised a little by each other kind."""
        if pair in self.scores:
            return self.scores[pair]
        items = self.evidence[pair]
        primary = [e["score"] for e in items if e["kind"] != "shared_facts"]
        if not primary:
            return 0.0
        shared = sum(e.get("count", 0) for e in items if e["kind"] == "shared_facts")
        bonus = 0.05 * (len(primary) - 1) + min(0.1, 0.02 * shared)
        return round(min(1.0, max(primary) + bonus), 4)


@dataclass
class _Names:
    """Every entity's (name, type) and alias, read once (about 40 MB at 100,000)."""

    entities: dict[str, tuple[str, str]]
    by_name: dict[str, list[str]]
    aliases: list[tuple[str, str, str, str]]  # entity id, alias, alias_norm, type

    @classmethod
    def load(cls) -> _Names:
        entities: dict[str, tuple[str, str]] = {}
        by_name: dict[str, list[str]] = defaultdict(list)
        for pk, norm, entity_type in Entity.objects.values_list("pk", "name_norm", "type").iterator(
            chunk_size=10_000
        ):
            entities[pk] = (norm, entity_type)
            by_name[norm].append(pk)
        aliases = list(
            Alias.objects.values_list("entity_id", "alias", "alias_norm", "type").iterator(
                chunk_size=10_000
            )
        )
        return cls(entities=entities, by_name=by_name, aliases=aliases)


def _same_name(names: _Names, found: Candidates, focus: set[str] | None) -> None:
    for norm, ids in names.by_name.items():
        if len(ids) < 2 or len(ids) > MAX_BLOCK:
            continue
        for a, b in combinations(ids, 2):
            item = {"kind": "same_name_other_type", "score": 0.9, "name": norm}
            found.add(a, b, item, focus)


def _alias_is_name(names: _Names, found: Candidates, focus: set[str] | None) -> None:
    for entity_id, alias, norm, alias_type in names.aliases:
        for other in names.by_name.get(norm, ()):
            if other == entity_id:
                continue
            same_type = names.entities[other][1] == alias_type
            item = {"kind": "alias_is_name", "score": 0.95 if same_type else 0.85, "alias": alias}
            found.add(entity_id, other, item, focus)


def _block_keys(norm: str, entity_type: str) -> set[tuple[str, str]]:
    keys = set()
    for word in _WORD.findall(name_fold(norm)):
        if len(word) >= 3:
            keys.add((entity_type, word))
        if len(word) >= 5:
            keys.add((entity_type, word[:4] + "…"))
    return keys


def _similar_names(names: _Names, found: Candidates, focus: set[str] | None) -> None:
    blocks: dict[tuple[str, str], list[str]] = defaultdict(list)
    for pk, (norm, entity_type) in names.entities.items():
        for key in _block_keys(norm, entity_type):
            blocks[key].append(pk)
    compared: set[Pair] = set()
    for ids in blocks.values():
        if len(ids) < 2 or len(ids) > MAX_BLOCK:
            continue
        if focus is not None and not any(pk in focus for pk in ids):
            continue
        texts = [name_fold(names.entities[pk][0]) for pk in ids]
        matrix = process.cdist(texts, texts, scorer=fuzz.WRatio, score_cutoff=NAME_MIN)
        content = [content_words(text) for text in texts]
        if content != texts:
            words = process.cdist(content, content, scorer=fuzz.token_set_ratio) * CONTENT_WEIGHT
            words[words < NAME_MIN] = 0
            matrix = np.maximum(matrix, words)
        for i, j in zip(*matrix.nonzero(), strict=True):
            if i >= j:
                continue
            pair = pair_of(ids[i], ids[j])
            if pair in compared:
                continue
            compared.add(pair)
            item = {"kind": "name_similarity", "score": round(float(matrix[i, j]) / 100, 4)}
            found.add(ids[i], ids[j], item, focus)


def _embedding_neighbours(
    names: _Names, found: Candidates, focus: set[str] | None, progress: Callable[[int], None]
) -> None:
    if "entities" not in KINDS or not getattr(settings, "KGSITE_EMBEDDER", ""):
        return
    targets = sorted(focus) if focus is not None else sorted(names.entities)
    targets = [pk for pk in targets if pk in names.entities]
    if len(targets) > EMBED_FULL_LIMIT:
        return
    own_aliases: dict[str, list[str]] = defaultdict(list)
    wanted = set(targets)
    for entity_id, alias, _norm, _type in names.aliases:
        if entity_id in wanted:
            own_aliases[entity_id].append(alias)
    rows = Entity.objects.in_bulk(targets)
    for done, pk in enumerate(targets, 1):
        entity = rows.get(pk)
        if entity is None:
            continue
        text = entity_text(entity.canonical_name, entity.type, own_aliases[pk], entity.description)
        for other, cosine in similar_items("entities", text, EMBED_K, min_score=EMBED_MIN):
            if other != pk and other in names.entities:
                item = {"kind": "embedding_similarity", "score": round(float(cosine), 4)}
                found.add(pk, str(other), item, focus)
        found.embedding_checked += 1
        if done % 100 == 0:
            progress(done)


def _links(entity_ids: Iterable[str] | None) -> dict[int, set[str]]:
    """Entities per active fact: of the given entities' facts, or of every fact."""
    rows = EntityFact.objects.filter(fact__status=Fact.Status.ACTIVE)
    by_fact: dict[int, set[str]] = defaultdict(set)
    if entity_ids is None:
        for fact_id, entity_id in rows.values_list("fact_id", "entity_id").iterator(10_000):
            by_fact[fact_id].add(entity_id)
        return by_fact
    ids = sorted(set(entity_ids))
    for start in range(0, len(ids), 500):
        facts = rows.filter(entity_id__in=ids[start : start + 500]).values("fact_id")
        for fact_id, entity_id in rows.filter(fact_id__in=facts).values_list(
            "fact_id", "entity_id"
        ):
            by_fact[fact_id].add(entity_id)
    return by_fact


def _neighbours(by_fact: dict[int, set[str]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for members in by_fact.values():
        if len(members) > MAX_BLOCK:
            continue  # a fact naming everything says nothing about any pair
        for entity_id in members:
            found[entity_id] |= members - {entity_id}
    return found


def _shared_neighbours(found: Candidates, focus: set[str] | None) -> None:
    """Pairs of entities linked to the same other entity (one block per neighbour)."""
    if focus is None:
        by_fact = _links(None)
    else:  # the focus, its neighbours, and the entities around those
        near = _neighbours(_links(focus))
        by_fact = _links(set(focus) | {n for ids in near.values() for n in ids})
    around = _neighbours(by_fact)
    blocks: dict[str, set[str]] = defaultdict(set)
    for entity_id, neighbours in around.items():
        for neighbour in neighbours:
            blocks[neighbour].add(entity_id)
    for members in blocks.values():
        if not 2 <= len(members) <= MAX_BLOCK:
            continue
        if focus is not None and not members & focus:
            continue
        for a, b in combinations(sorted(members), 2):
            found.add(a, b, {"kind": "shared_neighbours", "score": 0.0}, focus)


def _profiles(names: _Names, ids: list[str]) -> dict[str, Profile]:
    """What the model needs of each entity: names, type, facts, neighbours, and the mean
    embedding of its facts' texts and its description (when an embedder is set)."""
    aliases: dict[str, list[str]] = defaultdict(list)
    wanted = set(ids)
    for entity_id, _alias, norm, _type in names.aliases:
        if entity_id in wanted:
            aliases[entity_id].append(name_fold(norm))
    by_fact = _links(ids)
    around = _neighbours(by_fact)
    facts: dict[str, set[int]] = defaultdict(set)
    for fact_id, members in by_fact.items():
        for entity_id in members & wanted:
            facts[entity_id].add(fact_id)
    vectors = _profile_vectors(ids, facts)
    return {
        pk: Profile(
            names=[name_fold(names.entities[pk][0]), *aliases[pk]],
            type=names.entities[pk][1],
            facts=facts[pk],
            neighbours=around.get(pk, set()),
            vector=vectors.get(pk),
        )
        for pk in ids
        if pk in names.entities
    }


def _profile_vectors(ids: list[str], facts: dict[str, set[int]]) -> dict[str, np.ndarray]:
    if not getattr(settings, "KGSITE_EMBEDDER", ""):
        return {}
    texts: dict[str, list[str]] = defaultdict(list)
    for pk, description in (
        Entity.objects.filter(pk__in=ids).exclude(description="").values_list("pk", "description")
    ):
        texts[pk].append(description)
    fact_ids = sorted({f for pk in ids for f in sorted(facts[pk])[-PROFILE_FACTS:]})
    fact_text = dict(Fact.objects.filter(pk__in=fact_ids).values_list("pk", "text"))
    for pk in ids:
        texts[pk] += [fact_text[f] for f in sorted(facts[pk])[-PROFILE_FACTS:] if f in fact_text]
    flat = [(pk, t) for pk in ids for t in texts[pk]]
    if not flat:
        return {}
    matrix = embed_texts([t for _pk, t in flat])
    rows: dict[str, list[np.ndarray]] = defaultdict(list)
    for (pk, _t), row in zip(flat, matrix, strict=True):
        rows[pk].append(row)
    return {pk: v for pk, r in rows.items() if (v := mean_vector(np.array(r))) is not None}


def _score(names: _Names, found: Candidates) -> None:
    """Score every pair with the learned model; add the evidence it rests on."""
    ids = sorted({pk for pair in found.evidence for pk in pair if pk in names.entities})
    profiles: dict[str, Profile] = {}
    for start in range(0, len(ids), 2000):
        profiles.update(_profiles(names, ids[start : start + 2000]))
    scorer = model()
    for (a, b), items in found.evidence.items():
        if a not in profiles or b not in profiles:
            continue
        features = pair_features(profiles[a], profiles[b])
        found.scores[(a, b)] = round(scorer.probability(features), 4)
        items[:] = [e for e in items if e["kind"] not in _DERIVED]
        shared = profiles[a].facts & profiles[b].facts
        if shared:
            items.append({"kind": "shared_facts", "score": 0.0, "count": len(shared)})
        common = profiles[a].neighbours & profiles[b].neighbours - {a, b}
        if common:
            shown = sorted(common, key=lambda n: names.entities.get(n, ("", ""))[0])[:3]
            items.append(
                {"kind": "shared_neighbours", "score": 0.0, "count": len(common), "names": shown}
            )
        if features["both_described"]:
            items.append(
                {"kind": "fact_similarity", "score": round(features["fact_similarity"], 4)}
            )
        if features["numbered_names"]:
            items.append({"kind": "numbered_names", "score": 0.0})
    _neighbour_names(found)


def _neighbour_names(found: Candidates) -> None:
    """Shared neighbours are shown by their display names (one query for the scan)."""
    items = [e for found_items in found.evidence.values() for e in found_items]
    ids = {n for e in items if e["kind"] == "shared_neighbours" for n in e.get("names", [])}
    shown = dict(Entity.objects.filter(pk__in=ids).values_list("pk", "canonical_name"))
    for e in items:
        if e["kind"] == "shared_neighbours":
            e["names"] = [shown.get(n, n) for n in e.get("names", [])]


_DERIVED = {"shared_facts", "shared_neighbours", "fact_similarity", "numbered_names"}


def duplicate_candidates(
    *,
    entity_ids: Iterable[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Candidates:
    """Pairs worth a curator's look with their evidence; with ``entity_ids``, only pairs
    involving one of them (the scan after an ingestion)."""
    focus = set(entity_ids) if entity_ids is not None else None
    names = _Names.load()
    found = Candidates()
    _same_name(names, found, focus)
    _alias_is_name(names, found, focus)
    _similar_names(names, found, focus)
    _embedding_neighbours(names, found, focus, progress or (lambda _done: None))
    _shared_neighbours(found, focus)
    _score(names, found)
    return found
