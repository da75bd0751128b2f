"""Nearest-neighbour search at its edges: k of nothing, everything or more, empty and
odd filters, texts in another Unicode form, ties, deletions, and any set of items
(Hypothesis): at most k distinct items, best first, each with its true cosine, fewer
than k only when the others are unrelated."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgsite.vectors import pgvector, service
from kgsite.vectors.index import KINDS, register_kind
from tests.conftest import pgvector_backend, restart

NOTES: dict[int, str] = {}


def _register() -> None:
    register_kind(
        "notes", lambda ids: [(k, NOTES[k]) for k in (ids or sorted(NOTES)) if k in NOTES]
    )


@pytest.fixture
def notes(vector_dir):
    NOTES.clear()
    NOTES.update({i: f"note {i} on topic {i % 7} with word{i}" for i in range(1, 41)})
    _register()
    yield NOTES
    KINDS.pop("notes", None)


def keys(hits) -> list:
    return [key for key, _score in hits]


@pytest.mark.parametrize("k", [0, -1, -(10**9)])
def test_k_of_nothing_finds_nothing(notes, k):
    assert service.similar_items("notes", "note on topic 3", k) == []


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_query_finds_nothing(notes, text):
    assert service.similar_items("notes", text, 5) == []


@pytest.mark.parametrize("k", [40, 41, 10**6, 10**12])
def test_k_beyond_the_index_returns_each_item_once_best_first(notes, k):
    hits = service.similar_items("notes", "note on topic 3", k)
    assert sorted(keys(hits)) == sorted(NOTES)
    scores = [score for _key, score in hits]
    assert scores == sorted(scores, reverse=True)


def test_an_empty_index_answers_empty(vector_dir):
    NOTES.clear()
    _register()
    try:
        assert service.similar_items("notes", "anything at all", 10) == []
        assert service.similar_items("notes", "anything", 10, filter_ids=[1, 2]) == []
    finally:
        KINDS.pop("notes", None)


@pytest.mark.parametrize(
    ("filter_ids", "expected"),
    [
        ([], []),
        ([999, 1000], []),
        (["3", "5"], [3, 5]),  # ids as a query string gives them
        ([3, 3, 3], [3]),
        ([5, 999], [5]),
    ],
)
def test_a_filter_keeps_only_the_known_ids_it_names(notes, filter_ids, expected):
    hits = service.similar_items("notes", "note", 10, filter_ids=filter_ids)
    assert sorted(keys(hits)) == expected


def test_a_filter_over_many_ids_and_a_small_k(notes):
    hits = service.similar_items("notes", "word7", 1, filter_ids=list(range(1, 10_000)))
    assert keys(hits) == [7]


def test_a_text_in_decomposed_form_scores_as_the_composed_one(notes):
    NOTES[41] = "Café Lumière opens at nine"
    service.vector_upsert("notes", [41])
    composed = service.similar_items("notes", "café lumière", 3)
    decomposed = service.similar_items("notes", unicodedata.normalize("NFD", "CAFÉ LUMIÈRE"), 3)
    assert keys(composed)[0] == 41 and keys(decomposed) == keys(composed)
    assert [s for _k, s in decomposed] == pytest.approx([s for _k, s in composed])


def test_items_saying_the_same_rank_by_id(notes):
    for key in (2, 10, 30):
        NOTES[key] = "The kettle in the kitchen is broken"
    service.vector_upsert("notes", [2, 10, 30])
    hits = service.similar_items("notes", "kettle kitchen broken", 3)
    assert keys(hits) == [2, 10, 30]


def test_deleting_half_leaves_exactly_the_rest_before_and_after_a_restart(notes):
    gone = [k for k in NOTES if k % 2]
    for key in gone:
        del NOTES[key]
    service.vector_delete("notes", gone)
    for _ in range(2):
        hits = service.similar_items("notes", "note on topic", 10**6)
        assert sorted(keys(hits)) == sorted(NOTES)
        restart()


def test_min_score_above_every_cosine_finds_nothing(notes):
    assert service.similar_items("notes", "note on topic 3", 10, min_score=1.01) == []
    best = service.similar_items("notes", "note on topic 3", 1)[0][1]
    kept = service.similar_items("notes", "note on topic 3", 40, min_score=best)
    assert all(score >= best for _key, score in kept) and kept


WORDS = st.sampled_from(
    ["redis", "cache", "kettle", "bread", "straße", "café", "İzmir", "node", "pod", "ß"]
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    texts=st.lists(st.lists(WORDS, min_size=1, max_size=5).map(" ".join), max_size=30),
    query=st.lists(WORDS, min_size=1, max_size=3).map(" ".join),
    k=st.integers(min_value=-2, max_value=50),
)
def test_any_index_answers_at_most_k_distinct_items_best_first_with_their_cosine(
    vector_dir, texts, query, k
):
    NOTES.clear()
    NOTES.update(enumerate(texts, start=1))
    _register()
    try:
        service.vector_rebuild("notes")
        hits = service.similar_items("notes", query, k)
    finally:
        KINDS.pop("notes", None)
    assert len(hits) <= (min(k, len(texts)) if k > 0 else 0)
    assert len(set(keys(hits))) == len(hits)
    scores = [score for _key, score in hits]
    assert scores == sorted(scores, reverse=True)
    vectors = service.embed_texts([query, *NOTES.values()])
    cosines = dict(zip(NOTES, vectors[1:] @ vectors[0], strict=True))
    assert np.allclose(scores, [cosines[key] for key in keys(hits)], atol=1e-4)
    if k > 0 and len(hits) < min(k, len(texts)):
        # Fewer than k only when the rest fall under min_score (0): unrelated texts.
        assert all(cosines[key] < 1e-4 for key in NOTES if key not in keys(hits))


@pytest.mark.skipif(not pgvector_backend(), reason="pgvector's HNSW scan (CI's third run)")
def test_a_graph_walk_cut_short_by_deleted_rows_still_answers_k_items(notes, monkeypatch):
    """Rows deleted since the last vacuum keep their entries in the HNSW graph; a walk
    that meets them returns fewer rows than asked while more are stored."""
    monkeypatch.setattr(pgvector, "EXACT_ROWS", 5)  # as on a large kind: walk the graph
    assert len(service.similar_items("notes", "note on topic 3", 10)) == 10  # all 40 stored
    gone = [key for key in NOTES if key <= 30]
    for key in gone:
        del NOTES[key]
    service.vector_delete("notes", gone)
    service.vector_index("notes").ef_search = 1
    # As on a large table: the planner walks the graph (a small one it would scan).
    settings = {"hnsw.iterative_scan": ("off", "strict_order"), "enable_seqscan": ("off", "on")}
    with connection.cursor() as cursor:
        for name, (value, _default) in settings.items():
            cursor.execute("SELECT set_config(%s, %s, false)", [name, value])
    try:
        hits = service.similar_items("notes", "note on topic 3", 10)
    finally:
        with connection.cursor() as cursor:
            for name, (_value, default) in settings.items():
                cursor.execute("SELECT set_config(%s, %s, false)", [name, default])
    assert sorted(keys(hits)) == sorted(NOTES)


def _counts(hits_of) -> int:
    with CaptureQueriesContext(connection) as queries:
        hits_of()
    return sum("count(*) FROM (SELECT 1" in q["sql"] for q in queries.captured_queries)


@pytest.mark.skipif(not pgvector_backend(), reason="pgvector's row count (CI's third run)")
def test_a_large_kind_is_counted_once_and_again_after_a_deletion(notes, monkeypatch):
    """A kind of more than EXACT_ROWS rows is walked, not scanned; knowing it is large
    costs one bounded count, not one before every search."""
    monkeypatch.setattr(pgvector, "EXACT_ROWS", 5)
    search = lambda: service.similar_items("notes", "note on topic 3", 3)  # noqa: E731
    assert _counts(search) == 1
    assert _counts(search) == 0
    gone = [key for key in NOTES if key > 3]
    for key in gone:
        del NOTES[key]
    service.vector_delete("notes", gone)
    assert _counts(search) == 1  # three rows left: scanned exactly
    assert sorted(keys(service.similar_items("notes", "note", 10))) == [1, 2, 3]
