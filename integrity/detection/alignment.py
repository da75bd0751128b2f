"""Word alignment between two statements through the multilingual encoder's own token
vectors (``MultilingualEmbedder.token_vectors``: each sentencepiece token's embedding,
before the encoder reads it in context). Translations share that space, so a word and
its translation align without a dictionary.

From the similarity matrix of the two statements' tokens: how well each side's tokens
find a partner on the other side (mean, weakest, share left alone), and whether the
tokens left alone on both sides resemble each other (a like-for-like substitution:
a changed value or an opposite) or not (an added detail).

Measured by leave-one-file-out cross-validation (docs/curators/pair-model.md): the
first ten columns lifted the held-out macro-F1 of the encoder head from 0.386 to 0.435
(from the encoder's contextual token vectors, read after its n-gram layers: 0.425), the
last six (closest lone pair, lone counts, weakest partners, token-count gap) to 0.478.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

TokenVectors = Callable[[Sequence[str]], list[np.ndarray]]
# A token whose best partner scores below this is "left alone".
ALONE = 0.5
# Tokens compared a side: the columns stay cheap on any input.
MAX_TOKENS = 96
ALIGN_NAMES = (
    "tok_ab_mean",
    "tok_ba_mean",
    "tok_ab_min",
    "tok_ba_min",
    "tok_ab_alone",
    "tok_ba_alone",
    "tok_alone_both",
    "tok_alone_sim",
    "tok_alone_fit_a",
    "tok_alone_fit_b",
    "tok_alone_pair_max",
    "tok_alone_count_a",
    "tok_alone_count_b",
    "tok_ab_low3",
    "tok_ba_low3",
    "tok_length_gap",
)
# Without token vectors: as if every token found its partner.
NEUTRAL = (1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0)


def _unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)[:MAX_TOKENS]
    n = np.linalg.norm(m, axis=1, keepdims=True)
    n[~np.isfinite(n) | (n < 1e-9)] = 1.0
    return np.nan_to_num(m / n)


def alignment_columns(ta: np.ndarray | None, tb: np.ndarray | None) -> list[float]:
    """The ``ALIGN_NAMES`` columns from the token vectors of both statements (rows:
    tokens, without the sentence marks); neutral when either side has none."""
    if ta is None or tb is None or len(ta) == 0 or len(tb) == 0:
        return list(NEUTRAL)
    a, b = _unit(ta), _unit(tb)
    s = a @ b.T
    ab, ba = s.max(axis=1), s.max(axis=0)
    alone_a, alone_b = ab < ALONE, ba < ALONE
    sim = 0.0
    if alone_a.any() and alone_b.any():
        va, vb = a[alone_a].mean(axis=0), b[alone_b].mean(axis=0)
        na, nb = np.linalg.norm(va), np.linalg.norm(vb)
        sim = float(va @ vb / (na * nb)) if na > 1e-9 and nb > 1e-9 else 0.0
    return [
        float(ab.mean()),
        float(ba.mean()),
        float(ab.min()),
        float(ba.min()),
        float(alone_a.mean()),
        float(alone_b.mean()),
        float(alone_a.any() and alone_b.any()),
        sim,
        float(ab[alone_a].mean()) if alone_a.any() else 1.0,
        float(ba[alone_b].mean()) if alone_b.any() else 1.0,
        # the closest pair of lone tokens (one from each side): a substitution
        float(s[np.ix_(alone_a, alone_b)].max()) if alone_a.any() and alone_b.any() else 0.0,
        min(int(alone_a.sum()), 6) / 6,
        min(int(alone_b.sum()), 6) / 6,
        # the three weakest partners of each side
        float(np.sort(ab)[:3].mean()),
        float(np.sort(ba)[:3].mean()),
        abs(len(a) - len(b)) / max(len(a), len(b)),
    ]
