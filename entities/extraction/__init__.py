"""Entity detection in text: the entity and alias table as a gazetteer, and spaCy NER for
names not yet known (``gazetteer``), with its API. Book extractors live in
``books.extraction`` and use this.
"""

from .gazetteer import (
    AMBIGUOUS,
    SPACY_LABELS,
    DetectedEntity,
    Gazetteer,
    GazetteerEntry,
    extract_entities,
    extract_entities_batch,
    gazetteer_get,
    gazetteer_invalidate,
    group_by_type,
    is_common_word,
    spacy_nlp,
    strict_match_allows,
    word_zipf,
)

__all__ = [
    "AMBIGUOUS",
    "SPACY_LABELS",
    "DetectedEntity",
    "Gazetteer",
    "GazetteerEntry",
    "extract_entities",
    "extract_entities_batch",
    "gazetteer_get",
    "gazetteer_invalidate",
    "group_by_type",
    "is_common_word",
    "spacy_nlp",
    "strict_match_allows",
    "word_zipf",
]
