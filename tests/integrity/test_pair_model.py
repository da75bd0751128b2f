"""The learned pair model: its file, its decision, its training by file.

Examples are invented here; the development sets are only read by the training
command, never by a test.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from integrity.detection import model as pair_model
from integrity.detection.alignment import ALIGN_NAMES, NEUTRAL, alignment_columns
from integrity.detection.classifier import (
    CONTRADICTION,
    DUPLICATE,
    UNCERTAIN,
    Thresholds,
    Verdict,
    classify_pair,
    obvious_duplicate,
)
from integrity.detection.evaluation import Outcome, Pair, evaluate, format_report
from integrity.detection.features import EMBEDDING_NAMES, FEATURE_NAMES, pair_features
from integrity.detection.model import decide
from integrity.detection.scores import score
from integrity.detection.synthetic import synthetic_pairs
from integrity.detection.train import DUPLICATE_GRID, train


def test_the_model_file_matches_the_features_and_names_its_encoders() -> None:
    model = pair_model.load()
    assert model.feature_names == FEATURE_NAMES
    assert "none" in model.heads
    data = json.loads(pair_model.MODEL_PATH.read_text())
    assert data["trained_on"] and set(data["classes"]) == {
        "contradiction",
        "duplicate",
        "compatible",
    }
    for head in model.heads.values():
        # one block of three rows (contradiction, duplicate, compatible) a member
        assert head.coef.shape[0] % 3 == 0 and head.coef.shape[1] == len(FEATURE_NAMES)
    # A head for an encoder the deployment does not have: the one without encoder.
    assert model.head_for("some-other-encoder:768") is model.heads["none"]


def test_a_model_file_without_the_newer_columns_still_loads(tmp_path: Path) -> None:
    data = json.loads(pair_model.MODEL_PATH.read_text())
    names = data["features"]
    newer = EMBEDDING_NAMES[3:]  # the columns beyond the statements' cosine
    at = [i for i, name in enumerate(names) if name not in newer]
    data["features"] = [names[i] for i in at]
    for entry in data["heads"].values():
        for key in ("mean", "scale"):
            entry[key] = [entry[key][i] for i in at]
        entry["coef"] = [[line[i] for i in at] for line in entry["coef"]]
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data))
    head = pair_model.load(str(older)).heads["none"]
    # Widened to every column, one block of three rows a member as in the file.
    assert head.coef.shape == (len(data["heads"]["none"]["coef"]), len(FEATURE_NAMES))
    row = pair_features("The pier closes at 18:00.", "The pier closes at 20:00.")
    changed = row.copy()
    changed[[FEATURE_NAMES.index(name) for name in newer]] += 0.7
    # The columns it lacks weigh nothing.
    assert np.allclose(head.probabilities(row), head.probabilities(changed))
    data["features"][0] = "a feature nobody computes"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    with pytest.raises(pair_model.ModelFileError):
        pair_model.load(str(other))


def test_probabilities_are_calibrated_shapes() -> None:
    head = pair_model.load().heads["none"]
    row = pair_features("The pier closes at 18:00.", "The pier closes at 20:00.")
    p = head.probabilities(row)[0]
    assert p.shape == (3,) and np.isclose(p.sum(), 1.0) and (p >= 0).all()


def test_a_head_of_several_regressions_answers_their_mean_probabilities() -> None:
    base = pair_model.load().heads["none"]
    one = replace(base, coef=base.coef[:3], intercept=base.intercept[:3])
    opposite = replace(base, coef=-base.coef[:3], intercept=-base.intercept[:3])
    both = replace(
        base,
        coef=np.vstack([one.coef, opposite.coef]),
        intercept=np.concatenate([one.intercept, opposite.intercept]),
    )
    row = pair_features("The pier closes at 18:00.", "The pier closes at 20:00.")
    mean = (one.probabilities(row) + opposite.probabilities(row)) / 2
    assert np.allclose(both.probabilities(row), mean)
    assert not np.allclose(one.probabilities(row), mean)


@pytest.mark.parametrize(
    ("p", "blocked", "expected"),
    [
        ((0.05, 0.9, 0.05), False, DUPLICATE),
        ((0.05, 0.9, 0.05), True, "compatible"),  # the guard forbids: new information
        ((0.30, 0.6, 0.10), True, UNCERTAIN),  # ... that may conflict: a person looks
        ((0.10, 0.7, 0.20), False, "compatible"),  # not sure enough to fold a fact
        ((0.60, 0.1, 0.30), False, CONTRADICTION),
        ((0.30, 0.1, 0.60), False, UNCERTAIN),  # a real chance of conflict: a person looks
        ((0.10, 0.1, 0.80), False, "compatible"),
    ],
)
def test_the_decision(p, blocked, expected) -> None:
    got = decide(np.array(p), blocked=blocked, duplicate_min=0.8, uncertain_min=0.25)
    assert got == expected


def test_doubtful_duplicates_can_go_to_a_person() -> None:
    p = np.array([0.1, 0.7, 0.2])
    assert (
        decide(p, blocked=False, duplicate_min=0.8, uncertain_min=0.9, doubt_min=0.6) == UNCERTAIN
    )


@pytest.mark.parametrize(
    ("p", "blocked", "expected"),
    [
        ((0.45, 0.10, 0.45), False, CONTRADICTION),  # at the cut-off, though not likeliest
        ((0.30, 0.05, 0.65), False, UNCERTAIN),
        ((0.10, 0.10, 0.80), False, "compatible"),
        ((0.05, 0.90, 0.05), False, DUPLICATE),
        ((0.50, 0.45, 0.05), True, CONTRADICTION),  # the guard forbids the duplicate
        ((0.05, 0.90, 0.05), True, "compatible"),
    ],
)
def test_the_decision_with_a_contradiction_cut_off(p, blocked, expected) -> None:
    head = pair_model.load().heads["none"]
    head = pair_model.Head(
        "none", head.mean, head.scale, head.coef, head.intercept, 0.8, 0.25, 1.01, 0.4
    )
    assert head.verdict(np.array(p), blocked=blocked) == expected


class _WordEncoder:
    """A fake encoder: texts sharing words come out close (no meaning)."""

    signature = "fake-words:8"

    def encode(self, texts):
        rows = []
        for text in texts:
            v = np.zeros(8)
            for word in text.lower().split():
                v[sum(map(ord, word)) % 8] += 1.0
            rows.append(v / (np.linalg.norm(v) or 1.0))
        return np.array(rows)


def test_embedding_columns_come_from_the_encoder_or_stay_neutral() -> None:
    at = [FEATURE_NAMES.index(n) for n in EMBEDDING_NAMES]
    pairs = [
        ("Ilse keeps bees in the garden.", "Ilse keeps goats in the garden."),
        ("The valve opens at 40 bar.", "The valve opens at 45 bar."),
    ]
    plain = [pair_features(a, b)[at[3:]] for a, b in pairs]
    assert np.array_equal(plain[0], plain[1])  # nothing without an encoder
    encoded = [pair_features(a, b, encode=_WordEncoder().encode)[at] for a, b in pairs]
    assert not np.array_equal(encoded[0], encoded[1])
    masked = FEATURE_NAMES.index("cosine_masked")
    # With the values masked the second pair says the same thing.
    assert pair_features(*pairs[1], encode=_WordEncoder().encode)[masked] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        ("The pier closes at 18:00.", "The pier closes at 20:00.", CONTRADICTION),
        ("Ilse was born in 1971.", "Ilse was born in 1974.", CONTRADICTION),
        ("The valve is closed.", "The valve is not closed.", CONTRADICTION),
        ("Ilse grows tomatoes.", "Ilse grows tomatoes.", DUPLICATE),
    ],
)
def test_plain_cases(existing: str, new: str, label: str) -> None:
    verdict = classify_pair(existing, new)
    assert verdict.label == label, verdict
    assert 0.0 <= verdict.confidence <= 1.0 and verdict.explanation


def test_the_judge_is_asked_only_about_doubtful_pairs() -> None:
    asked: list[str] = []

    def judge(existing: str, new: str) -> Verdict:
        asked.append(new)
        return Verdict("contradiction", None, 0.9, "the judge says so")

    sure = classify_pair("Ilse was born in 1971.", "Ilse was born in 1974.", judge=judge)
    assert asked == [] and sure.kind == "date"
    weak = classify_pair(
        "Ilse was born in 1971.",
        "Ilse was born in 1974.",
        judge=judge,
        thresholds=Thresholds(judge_below=0.99),
    )
    assert asked == ["Ilse was born in 1974."] and (weak.kind, weak.explanation) == (
        "llm",
        "the judge says so",
    )


def test_a_judge_saying_duplicate_still_meets_the_guard() -> None:
    def judge(existing: str, new: str) -> Verdict:
        return Verdict(DUPLICATE, None, 0.99, "same")

    verdict = classify_pair("Order 5512 shipped.", "Order 5521 shipped.", judge=judge)
    assert verdict.label != DUPLICATE


def test_obvious_duplicate_needs_the_similarity_setting() -> None:
    pair = ("Ilse grows tomatoes on her balcony in Graz.", "Ilse grows tomatoes on her balcony.")
    assert obvious_duplicate(*pair, similarity=0.5) is None
    assert obvious_duplicate("Ilse grows tomatoes.", "ilse grows tomatoes") is not None


def test_curator_measures() -> None:
    expected = ["contradiction", "contradiction", "compatible", "compatible", "duplicate"]
    got = ["uncertain", "compatible", "contradiction", "duplicate", "duplicate"]
    s = score(expected, got)
    assert (s.reach, s.false_alarms, s.uncertain_rate) == (0.5, 0.5, 0.2)
    assert s.wrong_duplicates == pytest.approx(1 / 4)
    report = evaluate(
        [Outcome(str(i), e, g, "") for i, (e, g) in enumerate(zip(expected, got, strict=True))]
    )
    text = format_report(report)
    assert "reach" in text and "wrong dup." in text and "false alarms" in text


def test_synthetic_pairs_are_labelled_by_what_changed() -> None:
    from integrity.detection.evaluation import Pair

    made = synthetic_pairs(
        [Pair("x", "en", "The crate weighs 3 kg and left on 12 March 2030.", "-", "compatible")]
    )
    labels = {p.new: p.label for p in made}
    assert labels["The crate weighs 3000 g and left on 12 March 2030."] == "duplicate"
    assert labels["The crate weighs 3 kg and left on 2030-03-12."] == "duplicate"
    assert any(label == "contradiction" for label in labels.values())


def _pairs(rows: list[tuple[str, str, str]]) -> list[dict]:
    return [
        {"id": f"r{i}", "lang": "en", "existing": a, "new": b, "label": label}
        for i, (a, b, label) in enumerate(rows)
    ]


def _invented(seed: int) -> list[tuple[str, str, str]]:
    rng = np.random.default_rng(seed)
    names = ["Ilse", "Marek", "Sunita", "Teodor", "Aiko", "Bram", "Lotte", "Nuno"]
    rows = []
    for _ in range(24):
        name = names[int(rng.integers(len(names)))]
        year = int(rng.integers(1950, 2010))
        rows.append(
            (f"{name} was born in {year}.", f"{name} was born in {year + 3}.", "contradiction")
        )
        rows.append((f"{name} keeps bees.", f"{name} keeps bees.", "duplicate"))
        rows.append((f"{name} keeps bees.", f"{name} plays the oboe in a band.", "compatible"))
    return rows


def test_training_is_deterministic_and_cross_validated_by_file(tmp_path: Path) -> None:
    paths = []
    for seed in range(3):
        path = tmp_path / f"set{seed}.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in _pairs(_invented(seed))) + "\n")
        paths.append(path)
    out_a, out_b = tmp_path / "a.json", tmp_path / "b.json"
    lines: list[str] = []
    reports = train(paths, {"none": None}, out=out_a, log=lines.append)
    train(paths, {"none": None}, out=out_b, log=lambda line: None)
    pair_model.load.cache_clear()
    assert out_a.read_text() == out_b.read_text()
    report = reports["none"]
    assert set(report.held_out) == {p.name for p in paths} == set(report.in_sample)
    assert all(s.macro_f1 > 0.8 for s in report.held_out.values())
    assert any("held-out file" in line for line in lines)


def test_both_orders_trains_each_pair_the_other_way_round_too(tmp_path: Path) -> None:
    from integrity.detection.train import make_fold, synthetic_folds

    rows = [
        ("The gate is open.", "The gate is not open.", "contradiction"),
        ("Ilse keeps bees.", "Ilse keeps bees in her garden.", "compatible"),
    ]
    fold = make_fold(
        "set.jsonl", [Pair(f"r{i}", "en", a, b, c) for i, (a, b, c) in enumerate(rows)]
    )
    plain = synthetic_folds([fold])["set.jsonl"]
    both = synthetic_folds([fold], both_orders=True)["set.jsonl"]
    read = {(p.existing, p.new): p.label for p in both.pairs}
    # The negation put in, not only taken out; the added detail dropped: same labels.
    assert read[("The gate is not open.", "The gate is open.")] == "contradiction"
    assert read[("Ilse keeps bees in her garden.", "Ilse keeps bees.")] == "compatible"
    assert len(both.pairs) == len(plain.pairs) + len(rows)
    assert both.source == "set.jsonl" and both.synthetic


def test_a_kept_head_keeps_its_weights_and_gets_its_cut_offs_again(tmp_path: Path) -> None:
    out = tmp_path / "model.json"
    paths = []
    for seed in range(3):
        p = tmp_path / f"s{seed}.jsonl"
        p.write_text("\n".join(json.dumps(r) for r in _pairs(_invented(seed))) + "\n")
        paths.append(p)
    train(paths, {"none": None}, out=out, log=lambda line: None)
    data = json.loads(out.read_text())
    members = len(data["heads"]["none"]["coef"]) // 3
    data["heads"]["none"]["intercept"] = [0.25, -0.5, 0.25] * members
    data["heads"]["none"]["duplicate_min"] = 0.123  # a cut-off no search would choose
    out.write_text(json.dumps(data))
    lines: list[str] = []
    reports = train(paths, {"none": None}, out=out, log=lines.append, keep=["none"])
    pair_model.load.cache_clear()
    head = json.loads(out.read_text())["heads"]["none"]
    assert head["intercept"] == [0.25, -0.5, 0.25] * members
    assert head["duplicate_min"] in DUPLICATE_GRID
    assert set(reports["none"].held_out) == {p.name for p in paths}
    assert any("kept" in line for line in lines)


class _CountingEncoder(_WordEncoder):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen += list(texts)
        return super().encode(texts)


def test_the_encoder_reads_what_the_head_weighs(monkeypatch) -> None:
    base = pair_model.load().heads["none"]
    coef = np.zeros_like(base.coef)
    plain = pair_model.Head(
        _WordEncoder.signature, base.mean, base.scale, coef, base.intercept, 0.9, 0.3
    )
    richer = np.zeros_like(coef)
    richer[0, FEATURE_NAMES.index("cosine_masked")] = 1.0
    reader = pair_model.Head(
        _WordEncoder.signature, base.mean, base.scale, richer, base.intercept, 0.9, 0.3
    )
    pair = ("The gate opens at 7:00.", "The gate opens at 8:00.")
    for head, texts in ((plain, 2), (reader, 3)):
        model = pair_model.PairModel({"none": base, head.encoder: head}, FEATURE_NAMES)
        monkeypatch.setattr(pair_model, "load", lambda model=model: model)
        encoder = _CountingEncoder()
        classify_pair(*pair, encoder=encoder)
        # Both statements, or also their masked form (one: only the values differ).
        assert len(encoder.seen) == texts, encoder.seen


class _TokenEncoder(_WordEncoder):
    """The fake encoder with token vectors: one row per word (split at spaces), words
    alike when equal (no meaning)."""

    signature = "fake-tokens:8"

    def tokens(self, texts):
        return [super(_TokenEncoder, self).encode(text.split()) for text in texts]

    token_vectors = tokens  # as ``MultilingualEmbedder`` names it


def test_word_alignment_tells_a_substitution_from_an_added_detail() -> None:
    at = [FEATURE_NAMES.index(name) for name in ALIGN_NAMES]
    tokens = _TokenEncoder().tokens
    same = pair_features("Ilse keeps bees", "Ilse keeps bees", tokens=tokens)[at]
    swapped = pair_features("Ilse keeps bees", "Ilse keeps goats", tokens=tokens)[at]
    added = pair_features("Ilse keeps bees", "Ilse keeps bees in Graz", tokens=tokens)[at]
    alone_b, both = ALIGN_NAMES.index("tok_ba_alone"), ALIGN_NAMES.index("tok_alone_both")
    assert same[alone_b] == 0.0 and same[both] == 0.0
    assert swapped[both] == 1.0  # each side has a word the other lacks
    assert added[alone_b] > 0.0 and added[both] == 0.0  # only the new side does
    # Without token vectors the columns stay neutral.
    assert np.array_equal(pair_features("Ilse keeps bees.", "Ilse keeps goats.")[at], NEUTRAL)


def test_the_multilingual_encoder_aligns_a_translation_word_by_word() -> None:
    from kgsite.vectors.embedder import MultilingualEmbedder

    english, italian, other = MultilingualEmbedder().token_vectors(
        [
            "The kitchen window is open.",
            "La finestra della cucina è aperta.",
            "The train leaves from platform nine.",
        ]
    )
    mean = ALIGN_NAMES.index("tok_ba_mean")
    assert alignment_columns(english, italian)[mean] > alignment_columns(english, other)[mean] + 0.1


def test_the_pair_encoder_reads_no_tokens_from_an_embedder_without_them() -> None:
    from integrity.signals import PairEncoder as Wrapped

    wrapped = Wrapped("use")
    wrapped._embedder = _WordEncoder()
    assert wrapped.tokens(["a b", "c"]) == [None, None]
    wrapped._embedder = _TokenEncoder()
    first = wrapped.tokens(["a b", "c"])
    assert [len(rows) for rows in first] == [2, 1]


def test_rewrites_are_labelled_by_what_the_reader_finds_again() -> None:
    from integrity.detection.rewrites import rewrites
    from integrity.detection.structure import read

    made = rewrites("The crate weighs 3 kg and left on 12 March 2030.", "en")
    duplicates = [text for label, text in made if label == "duplicate"]
    contradictions = [text for label, text in made if label == "contradiction"]
    assert duplicates and contradictions
    for text in duplicates:  # the same mass and date, written another way
        masses = [v.lo for v in read(text).of("number")]
        assert masses == [pytest.approx(3.0)] and read(text).of("date")[0].key[:3] == (2030, 3, 12)
    assert ("duplicate", "Il magazzino ha quattro porte.") in rewrites(
        "Il magazzino ha 4 porte.", "it"
    )
    assert ("contradiction", "The server is reachable.") in rewrites(
        "The server isn't reachable.", "en"
    )
    assert rewrites("", "") == [] and rewrites("Route 66 runs west.", "en") == []


def test_the_cut_offs_pay_for_any_folded_fact() -> None:
    """Round 12: one non-duplicate in 200 answered duplicate (under the 1 % goal) costs the
    cut-offs more than a contradiction missed: a folded fact is lost for good."""
    from integrity.detection.scores import Scores
    from integrity.detection.train import utility

    clean = Scores(0.6, 0.6, 0.7, 0.0, 0.2, 0.1, 220)
    folding = replace(clean, wrong_duplicates=1 / 200)
    missing = replace(clean, reach=0.7 - 1 / 85)
    assert utility(folding) < utility(missing)
