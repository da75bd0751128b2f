"""The offline extractor: gazetteer + book structure + spaCy for names not yet known.

* Known names (stored entities, their aliases, and everything the book's structure
  defines) are matched by the gazetteer in every chunk.
* A chunk *defines* an entity when the structure says so (its heading names it, a
  stat block or spell block follows, a catalogue table row, a definition entry, a
  defining first sentence); every other chunk naming it *references* it.
* spaCy NER proposes new names (people, places, organisations...) in chunks outside
  typed reference chapters, where the structure already names every item and NER
  only mistakes rules terms for organisations. A proposed name must occur in at
  least ``min_ner_occurrences`` chunks of the book to become an entity.
"""

from __future__ import annotations

import multiprocessing
import os
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.conf import settings

from books.extraction.base import (
    DEFINES,
    REFERENCES,
    BookLexicon,
    ExtractionReport,
    FoundMention,
    Progress,
)
from books.extraction.structure import chapter_type
from books.extraction.trace import type_traced
from books.extraction.types import NER_TYPES
from entities.extraction import Gazetteer, GazetteerEntry, is_common_word, spacy_nlp, word_zipf
from kgsite.text import clean_display, normalize

if TYPE_CHECKING:
    from books.chunking import ChunkDraft
    from entities.extraction import DetectedEntity, GazetteerEntry

BATCH = 64

# What a name proposed by NER may not contain: Markdown, digits, line breaks.
_NOT_A_NAME = re.compile(r"[\d*#|_\[\]{}<>=\n]")
_LEADING_ARTICLE = re.compile(r"^the\s+", re.I)
# A possessive NER keeps on a name ("Orla Brenn's island"): the name is without it.
_POSSESSIVE = re.compile(r"(?:['’]s|(?<=s)['’])$")


_NUMBERING = re.compile(r"^(?:(?:\d{1,2}|[A-Z])(?:\.\d{1,2})*\.?\s+)")
# Nouns that end an organisation's name: "Free Software Foundation", "Apache Group".
_ORG_HEADS = frozenset(
    {
        "foundation",
        "inc",
        "ltd",
        "corporation",
        "consortium",
        "institute",
        "university",
        "association",
        "society",
        "committee",
        "council",
        "group",
        "project",
        "llc",
        "gmbh",
    }
)


def _ner_name(text: str, start: int, end: int) -> tuple[str, int, int]:
    """NER's span as a name (display, start, end): without a possessive ("Orla Brenn's"
    is Orla Brenn) or a leading "the"."""
    if possessive := _POSSESSIVE.search(text):
        end -= len(text) - possessive.start()
        text = text[: possessive.start()]
    display = _LEADING_ARTICLE.sub("", clean_display(text))
    return display, (end - len(display) if text.endswith(display) else start), end


def plausible_name(name: str, entity_type: str, lower_words: frozenset[str] = frozenset()) -> bool:
    """Whether a name spaCy proposes can be a name at all.

    Never a common word the text also writes in lower case ("Document", "Returns"; but
    "London" or "Holmes", never written "london", are names), nor an English word in capitals (a
    placeholder such as NULL or LEN); a person's name of several words is not only
    common words ("Cover Texts"); an organisation of common words ends with a noun
    that names one ("Free Software Foundation").
    """

    words = name.split()
    if len(words) == 1:
        word = words[0]
        common = is_common_word(word) and (
            word.casefold() in lower_words or not word.isalpha() or word.isupper()
        )
        return not (common or (word.isupper() and word_zipf(word.casefold(), "en") >= 3.0))
    common = all(
        word_zipf(w.casefold(), "en") >= 3.0 and w.casefold() in lower_words for w in words
    )
    if entity_type == "person":
        return not common and all(w[:1].isupper() for w in words)
    if common:
        return entity_type == "organization" and words[-1].casefold().strip(".,") in _ORG_HEADS
    return True


def distinctive_name(name: str) -> bool:
    """A name of several capitalised words, one of them rare: one mention is enough."""

    words = name.split()
    return (
        len(words) >= 2
        and all(w[:1].isupper() for w in words)
        and any(word_zipf(w.casefold(), "en") < 3.0 for w in words)
    )


def _heading_chunks(chunks: Sequence[ChunkDraft]) -> dict[str, int]:
    """Normalised heading (numbering aside) → the chunk that opens its section."""
    found: dict[str, int] = {}
    for index, chunk in enumerate(chunks):
        if chunk.heading_path and chunk.part == 0:
            found.setdefault(normalize(_NUMBERING.sub("", chunk.heading_path[-1])), index)
    return found


# A sentence (or line) with a capitalised word that does not open it: the only kind
# spaCy's NER is shown ("said Holmes", "the Free Software Foundation"). Names at the
# start of a sentence are found there anyway once NER has seen them elsewhere.
# Sentences end at their punctuation or a blank line; a single line break (hard-wrapped
# prose) does not end one.
# A run of marks is taken whole, from its first mark only (possessive, after no other
# mark): a run of 10,000 full stops not followed by a space is one failed attempt, not
# one per position, each re-reading the rest of the run (quadratic, issue 27).
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]++(?=\s)|\n[ \t]*\n")
_INNER_CAPITAL = re.compile(r"[\w,;:)\]'’\"”]\s+[\"“‘(\[]?(?!I\b|I['’])[A-Z]")
# Texts from which NER work is spread over two processes (below, forking costs more).
PARALLEL_FROM = 2000


def name_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of the runs of sentences that may hold a name, merged when adjacent."""
    spans: list[tuple[int, int]] = []
    cuts = [m.end() for m in _SENTENCE_END.finditer(text)]
    lo = 0
    for hi in [*cuts, len(text)]:
        if hi > lo and _INNER_CAPITAL.search(text, lo, hi):
            if spans and spans[-1][1] >= lo - 2:
                spans[-1] = (spans[-1][0], hi)
            else:
                spans.append((lo, hi))
        lo = hi
    return spans


_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")
# Chunks a capitalised word must have been read in (by NER) before sentences holding only
# such words are skipped: a name needs two chunks to be kept, and its other occurrences
# are found by the kept names' gazetteer.
SEEN_ENOUGH = 3


def _unseen_name_pieces(chunks, pieces, fed: list[tuple[int, int, int]]):
    """The texts NER still needs to read, lazily: a sentence whose capitalised words have
    all been read in ``SEEN_ENOUGH`` chunks already ("said Elizabeth" for the hundredth
    time) tells NER nothing new. Long books repeat their names, so most of their text is
    skipped; every piece yielded is appended to ``fed``."""
    seen: dict[str, set[int]] = {}
    for i, lo, hi in pieces:
        text = chunks[i].text[lo:hi]
        words = set(_CAPITALISED.findall(text))
        if words and all(len(seen.get(w, ())) >= SEEN_ENOUGH for w in words):
            continue
        for word in words:
            where = seen.setdefault(word, set())
            if len(where) < SEEN_ENOUGH:
                where.add(i)
        fed.append((i, lo, hi))
        yield text


_LOWER_WORD = re.compile(r"\b[a-z][a-z'’-]*\b")


def _lower_words(chunks: Sequence[ChunkDraft]) -> frozenset[str]:
    """Every word the book writes in lower case."""
    words: set[str] = set()
    for chunk in chunks:
        words.update(_LOWER_WORD.findall(chunk.text))
    return frozenset(words)


def _reporting(docs, fed: list[tuple[int, int, int]], progress: Progress | None, total: int):
    """NER's documents, reporting the second half of the phase's count as NER reads
    on through the book (every ``BATCH`` chunks)."""
    half, batch = total // 2, -1
    for k, doc in enumerate(docs):
        i = fed[k][0]
        if progress is not None and i // BATCH != batch:
            batch = i // BATCH
            progress(half + i * (total - half) // total)
        yield doc


def ner_processes(pieces: int) -> int:
    """Two spaCy processes for a big book on a machine with two cores or more; one in a
    daemonic worker (it may not fork) or for a small text."""

    wanted = int(getattr(settings, "KGSITE_SPACY_PROCESSES", 2))
    if pieces < PARALLEL_FROM or wanted < 2 or multiprocessing.current_process().daemon:
        return 1
    return max(1, min(wanted, os.cpu_count() or 1))


def _kept_mentions(
    chunks: Sequence[ChunkDraft],
    targets: list[int],
    hits_per_chunk: list[list[DetectedEntity]],
    kept: set[str],
    shown: dict[str, str],
) -> dict[tuple[int, str], list[tuple[int, int]]]:
    """Every occurrence of the names NER kept, in every chunk it read (NER saw only
    sentences with an inner capital; the name may also open a sentence)."""

    if not kept:
        return {}
    names = Gazetteer.from_pairs((shown[n], GazetteerEntry(n, shown[n], "")) for n in kept)
    per_chunk: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
    for i in targets:
        known = [(h.start, h.end) for h in hits_per_chunk[i]]
        for hit in names.find(chunks[i].text):
            if hit.canonical_id and not any(s < hit.end and hit.start < e for s, e in known):
                surface = chunks[i].text[hit.start : hit.end]
                if surface[:1].isupper():  # the name, not a common word it shares
                    per_chunk[(i, hit.canonical_id)].append((hit.start, hit.end))
    return per_chunk


def _pick(
    hit: DetectedEntity, defined_here: set[str], heading_type: str | None
) -> GazetteerEntry | None:
    """Resolve an ambiguous name: the entity this chunk defines, else the one of the
    chapter's type; otherwise the mention is left out rather than guessed."""
    candidates = hit.candidates
    for candidate in candidates:
        if candidate.entity_id in defined_here:
            return candidate
    if heading_type:
        typed = [c for c in candidates if c.entity_type == heading_type]
        if len(typed) == 1:
            return typed[0]
    return None


def structural_mentions(
    chunk: ChunkDraft, index: int, lexicon: BookLexicon
) -> tuple[list[FoundMention], list[DetectedEntity]]:
    """The chunk's gazetteer mentions, marked ``defines`` where the structure says so.

    Returns the mentions and the raw gazetteer hits (NER skips their spans).
    """
    definitions = lexicon.definitions[index]
    defined: dict[str, tuple[int, int]] = {}
    for entity in definitions:
        entity_id = lexicon.defined_ids.get((normalize(entity.name), entity.type))
        if entity_id is not None and entity_id not in defined:
            defined[entity_id] = (entity.start, entity.end)
    heading_type = chapter_type(chunk.heading_path) if chunk.heading_path else None
    hits = lexicon.gazetteer.find(chunk.text)
    first: dict[str, tuple[GazetteerEntry | DetectedEntity, int, int]] = {}
    counts: Counter[str] = Counter()
    for hit in hits:
        if hit.canonical_id is None:
            entry = _pick(hit, set(defined), heading_type)
            if entry is None:
                continue
            key, info = entry.entity_id, entry
        else:
            key, info = hit.canonical_id, hit
        counts[key] += 1
        if key not in first:
            first[key] = (info, hit.start, hit.end)
    found: list[FoundMention] = []
    for entity_id, (start, end) in defined.items():
        name, entity_type = lexicon.defined_names[entity_id]
        found.append(
            FoundMention(
                name=name,
                entity_type=entity_type,
                mention_type=DEFINES,
                start=start,
                end=end,
                entity_id=entity_id,
                count=max(1, counts.get(entity_id, 0)),
            )
        )
    for key, (info, start, end) in first.items():
        if key in defined:
            continue
        name = info.canonical_name
        entity_type = getattr(info, "entity_type", "")
        found.append(
            FoundMention(
                name=name,
                entity_type=entity_type,
                mention_type=REFERENCES,
                start=start,
                end=end,
                entity_id=key,
                count=counts[key],
            )
        )
    return found, hits


class OfflineExtractor:
    """Gazetteer, structure and spaCy; no network, deterministic."""

    name = "offline"

    def __init__(self, *, use_ner: bool = True, min_ner_occurrences: int = 2) -> None:
        self.use_ner = use_ner
        self.min_ner_occurrences = min_ner_occurrences

    def extract(
        self,
        chunks: Sequence[ChunkDraft],
        *,
        lexicon: BookLexicon,
        progress: Progress | None = None,
    ) -> ExtractionReport:
        mentions: list[list[FoundMention]] = []
        hits_per_chunk: list[list[DetectedEntity]] = []
        # With NER, the structural pass is the first half of the phase's count and NER's
        # reading the second: the bar stood at "1000 / 1000" while NER read for minutes.
        share = 2 if self.use_ner else 1
        for index, chunk in enumerate(chunks):
            found, hits = structural_mentions(chunk, index, lexicon)
            mentions.append(found)
            hits_per_chunk.append(hits)
            if progress is not None and (index + 1) % BATCH == 0:
                progress((index + 1) // share)
        if self.use_ner:
            # spaCy keeps every new token string for the life of the process (a worker
            # grew 294 -> 897 MB over two long single-line documents): in a memory zone
            # the strings this book added are freed at its end. No Doc outlives it.
            with spacy_nlp().memory_zone():
                self._add_new_names(chunks, lexicon, mentions, hits_per_chunk, progress)
        if progress is not None:
            progress(len(chunks))
        return ExtractionReport(mentions=mentions)

    def _add_new_names(
        self,
        chunks: Sequence[ChunkDraft],
        lexicon: BookLexicon,
        mentions: list[list[FoundMention]],
        hits_per_chunk: list[list[DetectedEntity]],
        progress: Progress | None = None,
    ) -> None:
        """Names spaCy finds outside typed chapters, kept when the book repeats them."""
        targets = [
            i
            for i, chunk in enumerate(chunks)
            if not (chunk.heading_path and chapter_type(chunk.heading_path))
        ]
        if not targets:
            return
        nlp = spacy_nlp()
        pieces = [(i, lo, hi) for i in targets for lo, hi in name_sentences(chunks[i].text)]
        if not pieces:
            return
        longest = max(hi - lo for _i, lo, hi in pieces)
        if longest >= nlp.max_length:
            nlp.max_length = longest + 1
        gazetteer = lexicon.gazetteer
        lower_words = _lower_words(chunks)
        # (chunk index, norm, display, type, start, end)
        proposals: list[tuple[int, str, str, str, int, int]] = []
        fed: list[tuple[int, int, int]] = []
        texts = _unseen_name_pieces(chunks, pieces, fed)
        docs = nlp.pipe(texts, batch_size=64, n_process=ner_processes(len(pieces)))
        docs = _reporting(docs, fed, progress, len(chunks))
        for k, doc in enumerate(docs):
            i, offset, _hi = fed[k]
            spans = [(h.start, h.end) for h in hits_per_chunk[i]]
            for ent in doc.ents:
                entity_type = NER_TYPES.get(ent.label_)
                if entity_type is None:
                    continue
                start, end = ent.start_char + offset, ent.end_char + offset
                if any(s < end and start < e for s, e in spans):
                    continue
                display, start, end = _ner_name(ent.text, start, end)
                if (
                    len(display) < 2
                    or _NOT_A_NAME.search(display)
                    or not display[0].isupper()
                    or display in gazetteer
                    or normalize(display) in lexicon.rejected
                    or not plausible_name(display, entity_type, lower_words)
                ):
                    continue
                proposals.append((i, normalize(display), display, entity_type, start, end))
        chunk_sets: dict[str, set[int]] = defaultdict(set)
        type_votes: dict[str, Counter[str]] = defaultdict(Counter)
        shown: dict[str, str] = {}
        for i, norm, display, entity_type, _s, _e in proposals:
            chunk_sets[norm].add(i)
            type_votes[norm][entity_type] += 1
            shown.setdefault(norm, display)
        kept = {
            norm
            for norm, where in chunk_sets.items()
            if len(where) >= self.min_ner_occurrences or distinctive_name(shown[norm])
        }
        headings = _heading_chunks(chunks)
        per_chunk = _kept_mentions(chunks, targets, hits_per_chunk, kept, shown)
        for norm in kept:
            type_traced(shown[norm], type_votes[norm].most_common(1)[0][0], "ner")
        for (i, norm), spans in sorted(per_chunk.items()):
            start, end = spans[0]
            mentions[i].append(
                FoundMention(
                    name=shown[norm],
                    entity_type=type_votes[norm].most_common(1)[0][0],
                    mention_type=DEFINES if headings.get(norm) == i else REFERENCES,
                    start=start,
                    end=end,
                    count=len(spans),
                )
            )
