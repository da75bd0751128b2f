"""The ONNX Runtime embedders give the bundled model's vectors (float32) or close ones
(int8, under a signature of its own), exported once on first use."""

from __future__ import annotations

import numpy as np
import pytest

from kgsite.vectors.embedder import SentenceTransformerEmbedder
from kgsite.vectors.onnx import OnnxEmbedder, OnnxInt8Embedder, _model_key

pytestmark = pytest.mark.slow

TEXTS = [
    "The ferry to the island leaves every morning at seven.",
    "Invoices are exported as CSV files at the end of each quarter.",
    "short",
    "A much longer passage about how the storage engine compacts its files in the "
    "background, writes a checkpoint every few minutes and keeps old versions until "
    "no reader needs them any more, so that a crash never loses a committed write.",
]


@pytest.fixture
def onnx_dir(settings, tmp_path):
    settings.KGSITE_ONNX_DIR = tmp_path / "onnx"
    settings.KGSITE_EMBED_BF16 = False
    return settings.KGSITE_ONNX_DIR


def test_the_float32_export_gives_the_same_vectors_under_the_same_signature(onnx_dir):
    reference = SentenceTransformerEmbedder()
    onnx = OnnxEmbedder()
    expected, got = reference.encode(TEXTS), onnx.encode(TEXTS)
    assert got.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert (expected * got).sum(axis=1).min() > 0.999
    assert onnx.signature == reference.signature
    # One text alone (the query path) gives the same vector as inside a batch.
    (alone,) = onnx.encode([TEXTS[1]])
    assert float(alone @ got[1]) > 0.9999
    assert len(list(onnx_dir.glob("*.onnx"))) == 1


def test_int8_is_close_but_signed_apart_so_the_index_re_embeds(onnx_dir):
    reference = SentenceTransformerEmbedder().encode(TEXTS)
    small = OnnxInt8Embedder()
    got = small.encode(TEXTS)
    cosines = (reference * got).sum(axis=1)
    # Per-channel weights in 7 bits: the default recipe (one scale per matrix) gave 0.86.
    assert cosines.min() > 0.95 and cosines.mean() > 0.98, cosines
    assert small.signature != SentenceTransformerEmbedder().signature
    assert small.signature.endswith(":onnx-int8pc")


def test_the_export_name_follows_the_weights_so_a_stale_export_is_never_reused(tmp_path):
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"0" * 10)
    first = _model_key(tmp_path)
    assert _model_key(tmp_path) == first
    weights.write_bytes(b"0" * 11)
    assert _model_key(tmp_path) != first
