"""Hybrid retrieval for the recall triggers: the candidate memories of a text, from
four sources fused by reciprocal rank fusion, each with the general features the
trained relevance scorer (``recall.scorer``) reads.

Sources, each bounded (it stops at its ``PER_SOURCE`` best, never scans every fact):
the vector index (nearest by meaning), the full-text index (words and identifiers as
written, ``entities.search.fulltext``), entity links (facts linked to an entity the
text names, by name or alias) and the graph (facts of the entities one edge away).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from django.db.models import Count, Q, QuerySet
from wordfreq import zipf_frequency

from kgsite.vectors import service as vectors
from kgsite.vectors.embedder import get_embedder

from ..extraction import extract_entities
from ..graph.models import Edge
from ..models import EntityFact, Fact
from ..search import fulltext
from .kinds import CROSSLINGUAL_KIND, crosslingual_enabled, crosslingual_encoder

# Items a nearest search considers from the index per wanted item, before filters.
OVERFETCH = 20
MIN_FETCH = 100
# A filtered search lists the matching ids up to this many and searches among them.
FILTER_IDS = 50_000
TEXT_FIELDS = {"facts": "text", "episodes": "narrative", CROSSLINGUAL_KIND: "text"}
FETCH_ROUNDS = (MIN_FETCH, 1000)
# A filtered search with at most this many rows to choose from compares them all (the
# first time, reading a vector from hnswlib costs ~30 µs: 1,500 rows ~45 ms).
EXACT_MAX = 1500

# "hint": ids a trigger adds itself (domain: the patterns of the keyword list's domains).
SOURCES = ("vector", "crosslingual", "fulltext", "entity", "graph", "hint")
PER_SOURCE = 20
MAX_CANDIDATES = 30
RRF_K = 60
# Words rarer than this (Zipf) are identifier-like: codes, versions, product names.
RARE_ZIPF = 2.5


@dataclass
class Seen:
    """What the searches of one question over one ``qs`` already read from the database,
    so the next index (the multilingual one after the main one) reads only what is new:
    the texts of the rows of ``qs`` checked by id (only the text: a search reads a few
    hundred hits to keep a few), the ids checked (a checked id missing from ``texts`` is
    not in ``qs``), and the ids of a small ``qs`` listed for an exact search."""

    texts: dict[int, str] = field(default_factory=dict)
    checked: set[int] = field(default_factory=set)
    listed: list[int] | None = None


def nearest(
    kind: str,
    vector: np.ndarray,
    qs: QuerySet,
    *,
    k: int,
    min_score: float,
    seen: Seen | None = None,
) -> list[tuple[int, float]]:
    """The ``k`` rows of ``qs`` closest to ``vector`` in the ``kind`` index, at or above
    ``min_score`` (``nearest_many`` of one vector)."""
    return nearest_many(kind, [vector], qs, k=k, min_score=min_score, seen=seen)[0]


def nearest_many(
    kind: str,
    matrix: Sequence[np.ndarray],
    qs: QuerySet,
    *,
    k: int,
    min_score: float,
    seen: Seen | None = None,
) -> list[list[tuple[int, float]]]:
    """For each vector of ``matrix``, the ``k`` rows of ``qs`` closest to it in the
    ``kind`` index, at or above ``min_score``. Over-fetches from the whole index first
    (hnswlib answers 100 neighbours in a millisecond); when too few pass the filters, a
    selective ``qs`` (at most ``EXACT_MAX`` rows: a trigger's few kinds in one project)
    is searched exactly among its own rows, a broad one by a deeper over-fetch, and last
    among its ids (up to ``FILTER_IDS``). Several vectors over the same ``qs`` (session
    start: one per goal) share each round: the scope is counted and listed once, and
    their hits are checked against the database in one query. ``seen`` (the same ``qs``
    only) carries what an earlier search of the same question read."""
    seen = Seen() if seen is None else seen
    out: list[list[tuple[int, float]]] = [[] for _v in matrix]
    if k <= 0 or not len(matrix):
        return out
    # A scope already counted small (recently, by this process) is searched exactly.
    known = fulltext.scope_size(qs, fulltext.SCOPED_MAX, known_only=True)
    small = known is not None and known <= EXACT_MAX
    pending = [] if small else list(range(len(matrix)))
    exact = list(range(len(matrix))) if small else []
    for round_no, fetch in enumerate(FETCH_ROUNDS):
        if not pending:
            break
        fetch = max(k * OVERFETCH, fetch)
        hits = [vectors.search_vector(kind, matrix[i], fetch) for i in pending]
        kept = _kept_many(kind, [matrix[i] for i in pending], qs, hits, min_score, seen)
        short = []
        for i, got, found in zip(pending, hits, kept, strict=True):
            out[i] = found[:k]
            if len(found) < k and not _exhausted(got, fetch, min_score):
                short.append((i, len(found)))
        pending = [i for i, _n in short]
        if round_no == 0 and short:
            # Few of the first neighbours passed: a selective ``qs``, searched exactly if
            # small (counted in the database, not listed: a broad one has 10,000s of rows).
            selective = any(n * FETCH_ROUNDS[1] < k * fetch for _i, n in short)
            if selective and (fulltext.scope_size(qs, fulltext.SCOPED_MAX) or 0) <= EXACT_MAX:
                exact, pending = pending, []
    exact += pending  # (a size remembered may be a minute old: still bounded)
    if exact:
        if seen.listed is None:
            seen.listed = list(qs.order_by().values_list("pk", flat=True)[: FILTER_IDS + 1])
        ids = seen.listed
        if len(ids) <= FILTER_IDS:
            hits = [
                vectors.search_vector(kind, matrix[i], k * 2, filter_ids=ids) if ids else []
                for i in exact
            ]
            kept = _kept_many(kind, [matrix[i] for i in exact], qs, hits, min_score, seen)
            for i, found in zip(exact, kept, strict=True):
                out[i] = found[:k]
    return out


def _exhausted(hits: list, fetch: int, min_score: float) -> bool:
    """The index has nothing more to give: fewer than asked, or already below the floor."""
    return len(hits) < fetch or bool(hits and hits[-1][1] < min_score)


def _kept_many(kind, matrix, qs, hits_of, min_score, seen: Seen) -> list[list[tuple[int, float]]]:
    """The hits of each vector that pass the filters of ``qs``, re-checked against their
    rows' texts: one query for every vector's hits not ``seen`` yet, only rows that pass
    are verified."""
    candidates = {int(key) for hits in hits_of for key, score in hits if score >= min_score - 0.05}
    if not candidates:
        return [[] for _hits in hits_of]
    new = sorted(candidates - seen.checked)
    if new:
        rows = fulltext.among(qs.order_by(), new).values_list("pk", TEXT_FIELDS[kind])
        seen.texts.update(rows)
        seen.checked.update(new)
    texts = {pk: seen.texts[pk] for pk in candidates if pk in seen.texts}
    out = []
    for vector, hits in zip(matrix, hits_of, strict=True):
        scored = {int(key): score for key, score in hits if int(key) in texts}
        scored = vectors.verify_hits(kind, vector, scored, texts) if scored else {}
        ranked = [(pk, s) for pk, s in scored.items() if s >= min_score]
        out.append(sorted(ranked, key=lambda kv: (-kv[1], kv[0])))
    return out


# --- Language and words ------------------------------------------------------------------


@lru_cache(maxsize=20_000)
def language_of(text: str) -> str:
    """The most likely language of ``text`` among ``fulltext.LANGUAGES`` (by how common
    its words are in each, wordfreq), or "" when it has no common word."""
    tokens = [w for w in fulltext.words(text) if w.isalpha()][:60]
    if not tokens:
        return ""
    totals = np.sum([_frequencies(w) for w in tokens], axis=0)
    best = int(np.argmax(totals))
    return fulltext.LANGUAGES[best] if totals[best] > 0 else ""


@lru_cache(maxsize=100_000)
def _frequencies(word: str) -> tuple[float, ...]:
    """How common ``word`` is in each of ``fulltext.LANGUAGES`` (Zipf)."""
    return tuple(zipf_frequency(word, lang, wordlist="small") for lang in fulltext.LANGUAGES)


def _weight(word: str) -> float:
    """How much a shared word says: rare words (identifiers, codes) most."""
    return max(0.0, 8.0 - fulltext.zipf(word)) / 8.0


def _present(term: str, doc_words: set[str], doc_prefixes: set[str]) -> bool:
    if term in doc_words:
        return True
    return len(term) >= fulltext.PREFIX_MIN and term[: fulltext.PREFIX_MIN] in doc_prefixes


def lexical(terms: Sequence[str], text: str) -> tuple[float, float]:
    """(weighted share of the query's terms found in ``text``, share of its rare terms
    found): 0 when nothing is shared."""
    if not terms:
        return 0.0, 0.0
    doc = set(fulltext.words(text))
    prefixes = {w[: fulltext.PREFIX_MIN] for w in doc if len(w) >= fulltext.PREFIX_MIN}
    total = sum(_weight(t) for t in terms) or 1.0
    shared = sum(_weight(t) for t in terms if _present(t, doc, prefixes))
    rare = [t for t in terms if fulltext.zipf(t) < RARE_ZIPF]
    rare_found = sum(1 for t in rare if t in doc)
    return shared / total, (rare_found / len(rare)) if rare else 0.0


# --- Candidates ----------------------------------------------------------------------------


@dataclass
class Candidate:
    fact: Fact
    cosine: float = 0.0
    cosine_xl: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)
    entities: int = 0
    rrf: float = 0.0
    features: dict[str, float] = field(default_factory=dict)

    def why(self) -> str:
        """The sources that found it, in plain words."""
        words = {
            "vector": f"close in meaning (similarity {self.cosine:.2f})",
            "crosslingual": f"close in meaning across languages ({self.cosine_xl:.2f})",
            "fulltext": "shares its words",
            "entity": "about an entity it names",
            "graph": "linked to them in the graph",
            "hint": "of a domain the call's words name",
        }
        return ", ".join(words[s] for s in SOURCES if s in self.ranks)


@dataclass
class Query:
    """What a trigger asks with: its text, vector, terms and the entities it names."""

    text: str
    vector: np.ndarray
    scope: str = ""
    terms: list[str] = field(default_factory=list)
    entity_ids: list[str] = field(default_factory=list)
    language: str = ""
    # The text in the multilingual encoder's space; None when that source is off.
    xl_vector: np.ndarray | None = None

    @classmethod
    def of(cls, text: str, *, scope: str = "", vector: np.ndarray | None = None) -> Query:
        found = {d.canonical_id for d in extract_entities(text) if d.canonical_id is not None}
        xl = crosslingual_query_vector(text) if crosslingual_enabled() else None
        return cls(
            xl_vector=xl,
            text=text,
            vector=vectors.embed_query(text) if vector is None else vector,
            scope=scope,
            terms=fulltext.query_terms(text),
            entity_ids=sorted(found),
            language=language_of(text),
        )


def crosslingual_query_vector(text: str) -> np.ndarray:
    """``text`` in the multilingual space, as a question where the encoder tells a
    question from a passage (e5's prefixes)."""
    encoder = crosslingual_encoder()
    encode = getattr(encoder, "encode_query", encoder.encode)
    return encode([text])[0]


def _entity_hits(query: Query, qs: QuerySet, k: int) -> list[tuple[int, int]]:
    """Facts of ``qs`` linked to the entities the query names, most entities first."""
    if not query.entity_ids:
        return []
    rows = (
        EntityFact.objects.filter(entity_id__in=query.entity_ids, fact__in=qs)
        .values("fact_id")
        .annotate(n=Count("entity_id", distinct=True))
        .order_by("-n", "-fact_id")[:k]
    )
    return [(r["fact_id"], r["n"]) for r in rows]


def _graph_hits(query: Query, qs: QuerySet, k: int) -> list[int]:
    """Facts of ``qs`` about the entities one edge away from those the query names."""
    if not query.entity_ids:
        return []
    edges = Edge.objects.filter(
        Q(head_id__in=query.entity_ids) | Q(tail_id__in=query.entity_ids)
    ).order_by("-weight")[:50]
    around = {e.head_id for e in edges} | {e.tail_id for e in edges}
    around -= set(query.entity_ids)
    if not around:
        return []
    rows = (
        EntityFact.objects.filter(entity_id__in=around, fact__in=qs)
        .values_list("fact_id", flat=True)
        .distinct()
        .order_by("-fact_id")[:k]
    )
    return list(rows)


def candidates(
    query: Query,
    qs: QuerySet,
    *,
    hinted: Sequence[int] = (),
    per_source: int = PER_SOURCE,
    limit: int = MAX_CANDIDATES,
) -> list[Candidate]:
    """The best ``limit`` facts of ``qs`` by reciprocal rank fusion of the sources (and
    the trigger's own ``hinted`` ids), each with its features."""
    lists: dict[str, list[int]] = {}
    seen = Seen()
    near = nearest("facts", query.vector, qs, k=per_source, min_score=-1.0, seen=seen)
    lists["vector"] = [pk for pk, _s in near]
    cosines = dict(near)
    xl_cosines: dict[int, float] = {}
    if query.xl_vector is not None:
        near_xl = nearest(
            CROSSLINGUAL_KIND, query.xl_vector, qs, k=per_source, min_score=-1.0, seen=seen
        )
        lists["crosslingual"] = [pk for pk, _s in near_xl]
        xl_cosines = dict(near_xl)
    try:
        lexical_hits = fulltext.fulltext_search(query.text, qs, limit=per_source)
        lists["fulltext"] = [pk for pk, _s in lexical_hits]
    except Exception:  # noqa: BLE001 - no index (another database): vectors still answer
        lists["fulltext"] = []
    linked = _entity_hits(query, qs, per_source)
    lists["entity"] = [pk for pk, _n in linked]
    lists["graph"] = _graph_hits(query, qs, per_source)
    lists["hint"] = list(hinted)[:per_source]
    fused: dict[int, Candidate] = {}
    for source, ids in lists.items():
        for rank, pk in enumerate(ids):
            c = fused.setdefault(pk, Candidate(fact=None))  # type: ignore[arg-type]
            c.ranks[source] = rank
            c.rrf += 1.0 / (RRF_K + rank + 1)
    for pk, n in linked:
        fused[pk].entities = n
    best = sorted(fused.items(), key=lambda kv: (-kv[1].rrf, kv[0]))[:limit]
    facts = Fact.objects.in_bulk([pk for pk, _c in best])
    missing = [pk for pk, _c in best if pk not in cosines and pk in facts]
    if missing:
        cosines.update(vectors.vector_index("facts").scores(query.vector, missing))
    missing = [pk for pk, _c in best if pk not in xl_cosines and pk in facts]
    if missing and query.xl_vector is not None:
        xl_index = vectors.vector_index(CROSSLINGUAL_KIND)
        xl_cosines.update(xl_index.scores(query.xl_vector, missing))
    out = []
    for pk, c in best:
        if pk not in facts:
            continue
        c.fact = facts[pk]
        c.cosine = float(cosines.get(pk, 0.0))
        c.cosine_xl = float(xl_cosines.get(pk, 0.0))
        out.append(c)
    features_fill(query, out)
    return out


def features_fill(query: Query, found: list[Candidate]) -> None:
    """The general features of each candidate (names in ``FEATURES``)."""
    top = max((c.cosine for c in found), default=0.0)
    top_xl = max((c.cosine_xl for c in found), default=0.0)
    for c in found:
        text = c.fact.text + (" " + c.fact.resolved_by if c.fact.resolved_by else "")
        share, rare = lexical(query.terms, text)
        lang = language_of(c.fact.text)
        f = {
            "cosine": c.cosine,
            "cosine_gap": c.cosine - top,
            "cosine_xl": c.cosine_xl,
            "cosine_xl_gap": c.cosine_xl - top_xl,
            "rrf": c.rrf * RRF_K,
            "lexical": share,
            "rare_terms": rare,
            "entities": min(c.entities, 3) / 3.0,
            "confidence": c.fact.confidence,
            "project": 1.0 if c.fact.scope and c.fact.scope == query.scope else 0.0,
            "same_language": 1.0 if lang and lang == query.language else 0.0,
            "memory_main": 1.0 if reads_language(lang) else 0.0,
            "query_main": 1.0 if reads_query(query) else 0.0,
            "length": math.log1p(len(fulltext.words(text))) / 5.0,
        }
        for source in SOURCES:
            rank = c.ranks.get(source)
            f[f"rr_{source}"] = 0.0 if rank is None else 1.0 / (rank + 1)
        for kind in Fact.Kind.values:
            f[f"kind_{kind}"] = 1.0 if c.fact.kind == kind else 0.0
        c.features = f
    pair_features(query, [c.features for c in found])


def _ranks(values: Sequence[float]) -> list[float]:
    """Reciprocal rank of each value among ``values`` (best first; ties share a rank)."""
    first: dict[float, int] = {}
    for place, value in enumerate(sorted(values, reverse=True), start=1):
        first.setdefault(value, place)
    return [1.0 / first[v] for v in values]


def reads_language(language: str) -> bool:
    """Whether the main embedder reads ``language`` ("": no common word, taken as read)."""
    languages = getattr(get_embedder(), "languages", None)
    return not language or languages is None or language in languages


def reads_query(query: Query) -> bool:
    """Whether the main embedder reads the query's language (``languages`` of the
    embedder; None: any). A query in another language is judged by the multilingual
    encoder, where there is one."""
    if query.xl_vector is None or not query.language:
        return True
    return reads_language(query.language)


def pair_features(query: Query, rows: list[dict[str, float]]) -> None:
    """Each candidate's evidence from the encoder that reads *both* texts: the main
    embedder when it reads the query's and the memory's language, else the multilingual
    one (an English question and an Italian memory: the English embedder's cosine says
    nothing). Its cosine, its distance from the best and its rank among the query's
    candidates, its source's reciprocal rank, and for the first its lead over the
    second. On a memory in one language these are the main embedder's own, so a scorer
    trained there judges a cross-language pair by the encoder that can read it. (Not a
    z-score in the query's spread: its range grows with the number of candidates, and a
    small memory has few.)"""
    if not rows:
        return
    query_main = reads_query(query)  # True too where there is no multilingual vector
    values = []
    for f in rows:
        main = query_main and (query.xl_vector is None or f["memory_main"] == 1.0)
        values.append(f["cosine"] if main else f["cosine_xl"])
        f["pair_rr"] = f["rr_vector"] if main else f["rr_crosslingual"]
    best, ranks = max(values), _ranks(values)
    ahead = sorted(values, reverse=True)
    second = ahead[1] if len(ahead) > 1 else ahead[0]
    for i, f in enumerate(rows):
        f["pair_cosine"] = values[i]
        f["pair_gap"] = values[i] - best
        f["pair_rank"] = ranks[i]
        # How far the first stands above the next: one clear answer, in any space.
        f["pair_margin"] = values[i] - second if values[i] == best else 0.0


FEATURES = (
    "pair_cosine",
    "pair_gap",
    "cosine_xl",
    "cosine_xl_gap",
    "rrf",
    "lexical",
    "rare_terms",
    "entities",
    "confidence",
    "project",
    "same_language",
    "length",
    *(f"rr_{s}" for s in SOURCES),
    *(f"kind_{k}" for k in Fact.Kind.values),
    "pair_rank",
    "pair_rr",
    "pair_margin",
)
