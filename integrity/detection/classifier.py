"""Classify a pair of facts as contradiction, duplicate or compatible, offline.

A learned pair model (``model``, trained by ``train``) reads features of both
statements (``features``: aligned values after unit conversion, negation, names,
wording, and the embedding cosine of a multilingual encoder when one is passed) and
answers probabilities; two cut-offs learned inside the training folds turn them into a
verdict, and a pair that may conflict but is not clearly a contradiction is
``uncertain``: a person looks at it. The duplicate guard (``guard``) stands in front of
every duplicate verdict: a new statement with an identifier, number, date, time or name
the stored one lacks is never folded into it. Only in the uncertain band (and for weak
contradictions) is the optional ``judge`` (an LLM) asked.

Nothing here resolves a conflict: it only describes it for a curator.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from . import model as pair_model
from .aliases import Mentions
from .features import FEATURE_NAMES, KINDS, MAX_CHARS, pair_features, readings
from .guard import covered_flags, duplicate_blockers, opposed
from .structure import plain

CONTRADICTION = "contradiction"
DUPLICATE = "duplicate"
COMPATIBLE = "compatible"
# Likely the same subject and attribute, but no clear verdict: a curator is asked
# ("possibly conflicting, please check"). Never a label of an evaluation file.
UNCERTAIN = "uncertain"
LABELS = (CONTRADICTION, DUPLICATE, COMPATIBLE)
VERDICT_LABELS = (*LABELS, UNCERTAIN)
KINDS_OF_CONFLICT = ("date", "number", "name", "preference", "status", "negation", "llm")

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Thresholds:
    """The cut-offs a deployment tunes. ``integrity.services`` fills them from the
    KGSITE_* settings; these defaults are the settings' own, so the classifier also runs
    without Django (tests, notebooks).

    ``judge_below``: the optional judge is asked about contradictions below this
    probability (and about every uncertain pair).
    ``duplicate_similarity``: the index cosine ``fact_store`` needs before it asks the
    model whether a neighbour says the same.
    ``unrelated_similarity``: kept for the settings' sake; the model reads the cosine.
    ``frame_uncertain``: kept for the settings' sake.
    """

    judge_below: float = 0.6
    duplicate_similarity: float = 0.9
    unrelated_similarity: float = 0.3
    frame_uncertain: float = 0.9


DEFAULT_THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class Verdict:
    """How a new fact relates to an existing one, with a curator-readable reason."""

    label: str
    kind: str | None
    confidence: float
    explanation: str


Judge = Callable[[str, str], "Verdict | None"]


class PairEncoder:
    """What the model needs of a sentence encoder: unit vectors and a signature, and
    optionally ``tokens`` (texts to their token vectors: the word-alignment columns).

    ``integrity.signals`` wraps the configured encoder; tests may pass their own."""

    signature: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - protocol
        raise NotImplementedError


ANALYSIS_FAILED = "The statements could not be analysed; possibly conflicting, please check."


def classify_pair(
    existing: str,
    new: str,
    *,
    lang: str | None = None,
    similarity: float | None = None,
    judge: Judge | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    mentions: Mentions | None = None,
    encoder: PairEncoder | None = None,
) -> Verdict:
    """Classify ``new`` against ``existing``; ask ``judge`` only where the model is unsure.

    ``encoder`` gives the model its cosine feature (the model head trained with that
    encoder is used; without one, the head trained without it). ``mentions`` finds the
    names of the entity table in a text (aliases included), so that "k8s" and
    "Kubernetes" are one subject once a curator said so. ``lang`` and ``similarity``
    are accepted for the callers' sake; the model reads the texts themselves.

    Never raises: any text answers a verdict. An analysis that fails is logged and
    answers ``uncertain``, so a curator looks at the pair instead of a check failing.
    """
    del lang, similarity
    mentions = mentions_remembered(mentions)  # the model and the guard ask for the same two texts
    try:
        verdict = _model_verdict(existing, new, mentions=mentions, encoder=encoder)
    except Exception:  # noqa: BLE001 - one odd sentence must not stop a check
        logger.exception("pair analysis failed: %.80r / %.80r", existing, new)
        verdict = Verdict(UNCERTAIN, None, 0.0, ANALYSIS_FAILED)
    if judge is not None and _ask_judge(verdict, thresholds):
        judged = judge(existing, new)
        if judged is not None:
            if judged.label != COMPATIBLE and judged.kind is None:
                judged = replace(judged, kind="llm")
            verdict = judged
    return guarded(existing, new, verdict, mentions=mentions)


@dataclass(frozen=True)
class PairReading:
    """The model's probabilities for one pair, and what stands against a duplicate."""

    contradiction: float
    duplicate: float
    compatible: float
    blockers: tuple[str, ...]
    row: np.ndarray
    head: pair_model.Head
    # (values of the new statement the stored one lacks, and the other way round)
    changed: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def pair_reading(
    existing: str,
    new: str,
    *,
    mentions: Mentions | None = None,
    encoder: PairEncoder | None = None,
) -> PairReading:
    """Features, probabilities and duplicate blockers of one pair."""
    signature = None
    if encoder is not None:
        try:
            signature = encoder.signature
        except Exception:  # noqa: BLE001 - the model has a head without the encoder
            logger.warning("pair encoder failed; judging without it", exc_info=True)
    head = pair_model.load().head_for(signature)
    mentions = mentions_remembered(mentions)
    a, b = readings(existing, new)
    flags, lost = covered_flags(a, b, mentions), covered_flags(b, a, mentions)
    row = None
    if encoder is not None and head.encoder == signature:
        try:
            if head.reads_more_than_the_cosine:
                row = pair_features(
                    a,
                    b,
                    encode=encoder.encode,
                    mentions=mentions,
                    flags=flags,
                    lost=lost,
                    tokens=getattr(encoder, "tokens", None),
                )
            else:
                vectors = encoder.encode([existing, new])
                cosine = float(vectors[0] @ vectors[1])
                row = pair_features(a, b, cosine=cosine, mentions=mentions, flags=flags, lost=lost)
        except Exception:  # noqa: BLE001 - the model has a head without the encoder
            logger.warning("pair encoder failed; judging without it", exc_info=True)
            head = pair_model.load().heads["none"]
    if row is None:
        row = pair_features(a, b, mentions=mentions, flags=flags, lost=lost)
    p = head.probabilities(row)[0]
    too_long = max(len(existing), len(new)) > MAX_CHARS
    blockers = ("too long to compare value by value",) if too_long else ()
    blockers = blockers or tuple(duplicate_blockers(a, b, mentions=mentions, flags=flags))
    changed = (_surfaces(b, flags), _surfaces(a, lost))
    return PairReading(float(p[0]), float(p[1]), float(p[2]), blockers, row, head, changed)


def _surfaces(r, flags: list) -> tuple[str, ...]:
    """The values as written that the other statement lacks."""
    return tuple(
        dict.fromkeys(
            r.text[r.tokens[v.first].start : r.tokens[v.last].end] for v, ok in flags if not ok
        )
    )[:4]


def mentions_remembered(mentions: Mentions | None) -> Mentions | None:
    """``mentions`` asking the entity table once per text, however often the guard and
    the features look: for one pair, or for one check of a statement against its
    candidates (the table may change later, so never for longer)."""
    if mentions is None or getattr(mentions, "remembers", False):
        return mentions  # nothing to ask, or already remembering
    seen: dict[str, list] = {}

    def lookup(text: str) -> list:
        if text not in seen:
            seen[text] = mentions(text)
        return seen[text]

    lookup.remembers = True  # type: ignore[attr-defined]
    return lookup


def _model_verdict(
    existing: str, new: str, *, mentions: Mentions | None, encoder: PairEncoder | None
) -> Verdict:
    if plain(existing).strip(" .!") == plain(new).strip(" .!"):
        return Verdict(DUPLICATE, None, 0.99, "The two statements are identical.")
    r = pair_reading(existing, new, mentions=mentions, encoder=encoder)
    p = np.array([r.contradiction, r.duplicate, r.compatible])
    against = opposed(r.blockers)
    label = r.head.verdict(p, blocked=bool(r.blockers), opposed=against)
    if against and label == CONTRADICTION and r.duplicate > r.contradiction:
        # The same statement but for a negation or an opposite word (``model.decide``).
        confidence = round(r.duplicate, 3)
        return Verdict(label, "negation", confidence, _explain(label, "negation", r))
    kind = _kind(r) if label in (CONTRADICTION, UNCERTAIN) else None
    return Verdict(label, kind, _confidence(label, r), _explain(label, kind, r))


def _confidence(label: str, r: PairReading) -> float:
    if label == UNCERTAIN:
        return round(r.contradiction, 3)
    value = {CONTRADICTION: r.contradiction, DUPLICATE: r.duplicate}.get(label, r.compatible)
    return round(value if math.isfinite(value) else 0.0, 3)


_KIND_OF_VALUE = {"date": "date", "time": "date", "weekday": "date", "number": "number"}


def _kind(r: PairReading) -> str | None:
    """The kind of value the two statements disagree on, as the curator's filter knows
    it (date, number, name, negation), or None."""
    row = dict(zip(FEATURE_NAMES, r.row, strict=True))
    for kind in KINDS:
        if row[f"{kind}_swap"] or (row[f"{kind}_new"] and row[f"{kind}_a"]):
            if kind == "number" and all(_year(w) for w in r.changed[0] + r.changed[1]):
                return "date"  # "born in 1990" / "born in 1985"
            return _KIND_OF_VALUE.get(kind, "name")
    if row["amount_differs"]:
        return "number"
    if row["negation_mismatch"]:
        return "negation"
    return None


def _year(word: str) -> bool:
    return word.isdigit() and len(word) == 4 and 1000 <= int(word) <= 2999


def _explain(label: str, kind: str | None, r: PairReading) -> str:
    odds = (
        f"(model: contradiction {r.contradiction:.2f}, duplicate {r.duplicate:.2f}, "
        f"compatible {r.compatible:.2f})"
    )
    new, old = r.changed
    values = ""
    if new and old:
        values = f" The stored statement says {_quoted(old)}; the new one says {_quoted(new)}."
    elif new:
        values = f" Only the new statement says {_quoted(new)}."
    if label == CONTRADICTION:
        if kind == "negation":
            return f"One statement denies what the other says {odds}.{values}"
        what = f" on a {kind}" if kind else ""
        return f"The statements disagree{what} {odds}.{values}"
    if label == UNCERTAIN:
        return f"Possibly conflicting, please check {odds}.{values}"
    if label == DUPLICATE:
        return f"The new statement says the same as the stored one {odds}."
    return f"No conflict found {odds}.{values}"


def _quoted(words: tuple[str, ...]) -> str:
    return ", ".join(f"“{w}”" for w in words)


def _ask_judge(verdict: Verdict, thresholds: Thresholds) -> bool:
    """The judge sees what the model leaves open: uncertain pairs, and contradictions
    below ``judge_below``."""
    if verdict.label == UNCERTAIN:
        return True
    return verdict.label == CONTRADICTION and verdict.confidence < thresholds.judge_below


def guarded(
    existing: str, new: str, verdict: Verdict, *, mentions: Mentions | None = None
) -> Verdict:
    """The verdict, unless it is a duplicate the two statements' values forbid (the
    duplicate guard): then new information, for a curator to look at."""
    if verdict.label != DUPLICATE or verdict.explanation == "The two statements are identical.":
        return verdict
    blockers = duplicate_blockers(existing, new, mentions=mentions)
    if not blockers:
        return verdict
    return Verdict(
        UNCERTAIN,
        verdict.kind,
        verdict.confidence,
        "Worded alike, but the new statement says what the stored one does not ("
        + "; ".join(blockers[:5])
        + "); kept as a fact of its own. Possibly conflicting, please check.",
    )


def obvious_duplicate(
    existing: str,
    new: str,
    *,
    lang: str | None = None,
    similarity: float | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    mentions: Mentions | None = None,
    encoder: PairEncoder | None = None,
) -> Verdict | None:
    """A verdict when ``new`` is plainly ``existing`` again, so confirming it loses nothing.

    The same text; or, with the index cosine at ``duplicate_similarity`` or above, the
    model's duplicate verdict with the duplicate guard's consent. Anything doubtful
    returns None: the fact is stored and the background check may flag it for a curator.
    """
    del lang
    if plain(existing).strip(" .!") == plain(new).strip(" .!"):
        return Verdict(DUPLICATE, None, 0.99, "The two statements are identical.")
    if similarity is not None and similarity < thresholds.duplicate_similarity:
        return None
    try:
        verdict = _model_verdict(existing, new, mentions=mentions, encoder=encoder)
    except Exception:  # noqa: BLE001 - doubt means "store it", never an error
        logger.exception("duplicate analysis failed: %.80r / %.80r", existing, new)
        return None
    return verdict if verdict.label == DUPLICATE else None
