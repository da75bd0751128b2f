"""Issue 14: any text, in any language, of any length, answers a verdict.

Property-based (Hypothesis): random Unicode, and sentences of the project's own
corpora in English, Italian and Portuguese, cut, joined and mixed with random text.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity.detection import classifier
from integrity.detection.classifier import (
    UNCERTAIN,
    VERDICT_LABELS,
    classify_pair,
    obvious_duplicate,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def _corpus() -> list[str]:
    """Sentences of the project's corpora: the integrity pairs (en/it/pt) and a book."""
    sentences: list[str] = []
    pairs = Path(__file__).parent / "data" / "contradictions_extra.jsonl"
    for line in pairs.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            sentences += [row["existing"], row["new"]]
    book = DATA / "books" / "holmes-excerpt.txt"
    if book.exists():
        text = book.read_text(encoding="utf-8")
        sentences += [s.strip() for s in text.split(".") if 10 < len(s.strip()) < 400][:200]
    return sentences


CORPUS = _corpus()
LANGS = st.sampled_from([None, "en", "it", "pt"])
sentence = st.sampled_from(CORPUS)
# A corpus sentence cut, doubled or mixed with arbitrary text and digits.
mixed = st.one_of(
    sentence,
    st.builds(lambda s, t: s + " " + t, sentence, st.text(max_size=40)),
    st.builds(lambda s, i: s[:i], sentence, st.integers(0, 200)),
    st.builds(lambda s, n: s.replace("a", str(n)), sentence, st.integers(-(10**6), 10**6)),
    st.builds(lambda s, t: f"{s} {t} {s}", sentence, sentence),
)
anything = st.one_of(st.text(max_size=300), mixed)


def _valid(verdict) -> None:
    assert verdict.label in VERDICT_LABELS
    assert 0.0 <= verdict.confidence <= 1.0
    assert isinstance(verdict.explanation, str) and verdict.explanation


def test_the_corpus_has_the_three_languages() -> None:
    pairs = (Path(__file__).parent / "data" / "contradictions_extra.jsonl").read_text()
    langs = {json.loads(line)["lang"] for line in pairs.splitlines() if line.strip()}
    assert {"en", "it", "pt"} <= langs and len(CORPUS) > 150


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(existing=anything, new=anything, lang=LANGS)
def test_any_text_answers_a_verdict(existing: str, new: str, lang: str | None) -> None:
    _valid(classify_pair(existing, new, lang=lang))
    confirmed = obvious_duplicate(existing, new, lang=lang)
    assert confirmed is None or confirmed.label == "duplicate"


@settings(max_examples=80, deadline=None)
@given(existing=st.text(min_size=0, max_size=5000), new=mixed, lang=LANGS)
def test_long_and_odd_text_answers_a_verdict(existing: str, new: str, lang: str | None) -> None:
    _valid(classify_pair(existing, new, lang=lang, similarity=0.5))


def test_a_failing_analysis_answers_uncertain_and_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args, **kwargs):
        raise IndexError("no such group")

    monkeypatch.setattr(classifier, "pair_features", broken)
    with caplog.at_level(logging.ERROR, logger="integrity.detection.classifier"):
        verdict = classify_pair("Bo is 30.", "Bo is 31.")
        confirmed = obvious_duplicate("Bo is 30.", "Bo is thirty.")
    assert verdict.label == UNCERTAIN and "please check" in verdict.explanation
    assert confirmed is None  # doubt means "store it"
    assert any("pair analysis failed" in r.getMessage() for r in caplog.records)


def test_a_failing_analysis_goes_to_the_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def judge(existing: str, new: str):
        calls.append(new)
        return None

    def broken(*args, **kwargs):
        raise ZeroDivisionError

    monkeypatch.setattr(classifier, "pair_features", broken)
    verdict = classify_pair("A.", "B.", judge=judge)
    assert verdict.label == UNCERTAIN and calls == ["B."]


class _BrokenEncoder:
    signature = "broken"

    def encode(self, texts):
        raise RuntimeError("no model here")


def test_a_failing_encoder_falls_back_to_the_head_without_it() -> None:
    _valid(classify_pair("Bo is 30.", "Bo is 31.", encoder=_BrokenEncoder()))
