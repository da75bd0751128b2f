"""What the classifier learns from the rest of the house: embedding similarity (the
vectors room) and known names (the entity table). ``integrity.detection`` stays pure
Python and receives these as callables."""

from __future__ import annotations

from entities.extraction import extract_entities
from kgsite.vectors.service import embed_texts


def pair_similarity(a: str, b: str) -> float | None:
    """Embedding cosine of two texts, as the index would see them; None without one."""
    try:
        vectors = embed_texts([a, b])
        return float(vectors[0] @ vectors[1])
    except Exception:  # the classifier works without a similarity
        return None


def frame_similarity(a: str, b: str) -> float | None:
    """Cosine of two value-masked frames (the classifier asks only for same-valued
    pairs worded differently); None without an embedder."""
    return pair_similarity(a, b)


def entity_mentions(text: str) -> list[tuple[int, int, str]]:
    """Known names in ``text`` as (start, end, entity id), aliases included, so the
    classifier reads "k8s" and "Kubernetes" as one subject once a curator said so."""
    try:
        found = extract_entities(text)
    except Exception:  # the classifier works without the entity table
        return []
    return [(m.start, m.end, m.canonical_id) for m in found if m.canonical_id]
