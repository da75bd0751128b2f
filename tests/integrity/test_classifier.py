"""The offline pair classifier: what a curator would see for pairs of facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from integrity.detection.classifier import (
    COMPATIBLE,
    CONTRADICTION,
    DUPLICATE,
    Verdict,
    classify_pair,
)
from integrity.detection.evaluation import (
    Outcome,
    PairFileError,
    evaluate,
    format_report,
    load_pairs,
    run_pairs,
)
from integrity.detection.values import DateValue, analyze, detect_language, parse_number

EXTRA = Path(__file__).parent / "data" / "contradictions_extra.jsonl"


def check(existing: str, new: str, label: str, kind: str | None = None, **kw) -> Verdict:
    verdict = classify_pair(existing, new, **kw)
    assert verdict.label == label, verdict
    if kind is not None:
        assert verdict.kind == kind, verdict
    assert 0.0 <= verdict.confidence <= 1.0
    assert verdict.explanation
    return verdict


# --- values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Nina was born on 21 June 2001.", DateValue(2001, 6, 21)),
        ("Nina was born on June 21st, 2001.", DateValue(2001, 6, 21)),
        ("Nina's birthday is June 21.", DateValue(None, 6, 21)),
        ("Nina è nata il 21 giugno 2001.", DateValue(2001, 6, 21)),
        ("A Nina nasceu em 21 de junho de 2001.", DateValue(2001, 6, 21)),
        ("Nina's date of birth is 2001-06-21.", DateValue(2001, 6, 21)),
        ("The audit ended in October 2019.", DateValue(2019, 10, None)),
    ],
)
def test_dates_absolute_partial_and_iso(text: str, expected: DateValue) -> None:
    dates = [v.payload for v in analyze(text).of_kind("date")]
    assert dates == [expected]


def test_may_the_verb_is_not_a_month() -> None:
    assert analyze("The user may travel next week.").of_kind("date") == []


@pytest.mark.parametrize(
    ("raw", "lang", "expected"),
    [("1.72", "en", 1.72), ("1,72", "it", 1.72), ("1,500", "en", 1500), ("1.500", "pt", 1500)],
)
def test_numbers_are_read_per_language(raw: str, lang: str, expected: float) -> None:
    assert parse_number(raw, lang) == expected


def test_counts_written_as_words_in_three_languages() -> None:
    for text in ("Lia owns four bikes.", "Lia ha quattro bici.", "A Lia tem quatro bicicletas."):
        (quantity,) = analyze(text).of_kind("quantity")
        assert quantity.payload.amount == 4


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("The printer is in the hallway.", "en"),
        ("La stampante è nel corridoio.", "it"),
        ("A impressora fica no corredor.", "pt"),
        ("Dario abita a Genova.", "it"),
        ("O Rui trabalha no banco.", "pt"),
    ],
)
def test_language_detection(text: str, lang: str) -> None:
    assert detect_language(text) == lang


def test_subject_and_attribute() -> None:
    s = analyze("Il fratello di Elena abita a Verona.")
    assert s.subject is not None and s.subject.head == "elena"
    assert s.subject.relations == {"brother"}
    assert s.attribute == "residence"
    assert analyze("L'altezza dell'utente è 170 cm.").subject.head == "user"


# --- dates ------------------------------------------------------------------------------


def test_partial_birthday_agrees_with_full_birth_date() -> None:
    check("Nina was born on 21 June 2001.", "Nina's birthday is June 21.", DUPLICATE)


def test_different_birthday_contradicts() -> None:
    v = check("Nina was born on 21 June 2001.", "Nina's birthday is 2 June.", CONTRADICTION, "date")
    assert "21 June 2001" in v.explanation and "2 June" in v.explanation


def test_birth_and_anniversary_are_different_attributes() -> None:
    check("Nina was born on 21 June 2001.", "Nina's wedding anniversary is 9 May.", COMPATIBLE)


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        ("Il compleanno di Ugo è il 4 ottobre.", "Ugo è nato il 4 ottobre 1970.", DUPLICATE),
        ("Il compleanno di Ugo è il 4 ottobre.", "Ugo è nato il 14 ottobre 1970.", CONTRADICTION),
        ("A Bia nasceu em 30 de maio de 1999.", "O aniversário da Bia é 30 de maio.", DUPLICATE),
        (
            "A Bia nasceu em 30 de maio de 1999.",
            "A Bia nasceu em 1 de maio de 1999.",
            CONTRADICTION,
        ),
    ],
)
def test_dates_in_italian_and_portuguese(existing: str, new: str, label: str) -> None:
    check(existing, new, label)


def test_weekdays_and_times() -> None:
    check("The book club meets on Fridays.", "The book club meets on Friday at 7pm.", DUPLICATE)
    check(
        "The book club meets on Fridays.", "The book club meets on Sundays.", CONTRADICTION, "date"
    )
    check("La lezione è alle 8:30.", "La lezione è alle 10:00.", CONTRADICTION, "date")
    check("O treino é às quintas.", "O treino acontece na quinta-feira.", DUPLICATE)


# --- numbers, units, currencies -------------------------------------------------------


def test_units_are_converted() -> None:
    check("The rope is 250 cm long.", "The rope is 2.5 m long.", DUPLICATE)
    check("The rope is 250 cm long.", "The rope is 3 m long.", CONTRADICTION, "number")
    check("Il gatto pesa 4,5 kg.", "Il gatto pesa 4500 g.", DUPLICATE)
    check("O trajeto tem 3 km.", "O trajeto tem 3000 metros.", DUPLICATE)


def test_currencies_are_never_equated() -> None:
    v = classify_pair("The ticket costs 25 EUR.", "The ticket costs 25 USD.")
    assert v.label != DUPLICATE
    assert "EUR" in v.explanation and "USD" in v.explanation
    check("The ticket costs €25.", "The ticket costs 25 euros.", DUPLICATE)
    check("The ticket costs €25.", "The ticket costs €30.", CONTRADICTION, "number")


def test_counts_conflict_in_every_language() -> None:
    check("Ivo has one brother.", "Ivo has two brothers.", CONTRADICTION, "number")
    check("Ivo ha cinque nipoti.", "Ivo ha 5 nipoti.", DUPLICATE)
    check("O Ivo tem dois carros.", "O Ivo tem três carros.", CONTRADICTION, "number")


def test_rates_are_compared_per_unit_of_time() -> None:
    check(
        "The queue handles 60 jobs per minute.", "The queue handles 3600 jobs per hour.", DUPLICATE
    )
    check(
        "The queue handles 60 jobs per minute.",
        "The queue handles 90 jobs per minute.",
        CONTRADICTION,
    )


# --- names, subjects, attributes ------------------------------------------------------


def test_names_conflict_for_single_valued_attributes() -> None:
    v = check("Omar lives in Leeds.", "Omar lives in York.", CONTRADICTION, "name")
    assert "Leeds" in v.explanation and "York" in v.explanation
    check(
        "Il server di backup si trova a Torino.",
        "Il server di backup si trova a Bari.",
        CONTRADICTION,
    )


def test_different_subjects_stay_compatible() -> None:
    check("Omar lives in Leeds.", "Omar's father lives in York.", COMPATIBLE)
    check("Service Alpha runs on port 8080.", "Service Beta runs on port 9090.", COMPATIBLE)
    check("A Rita trabalha na Embraer.", "A irmã da Rita trabalha na Natura.", COMPATIBLE)


def test_different_attributes_stay_compatible() -> None:
    check("Omar lives in Leeds.", "Omar works in York.", COMPATIBLE)
    check("Omar lives in Leeds.", "Omar's office is in York.", COMPATIBLE)
    check("Omar is 181 cm tall.", "Omar weighs 80 kg.", COMPATIBLE)


def test_multi_valued_and_additive_facts_are_compatible() -> None:
    check("Yuki speaks Japanese.", "Yuki also speaks Korean.", COMPATIBLE)
    check("Yuki parla giapponese.", "Yuki parla anche coreano.", COMPATIBLE)


def test_past_facts_do_not_compete_with_present_ones() -> None:
    check("The user used to work at IBM.", "The user works at Oracle.", COMPATIBLE)


def test_reworded_fact_with_same_entities_is_duplicate() -> None:
    check(
        "Redis is the cache layer of the checkout service.",
        "The checkout service caches its data in Redis.",
        DUPLICATE,
    )


def test_colour_of_the_same_object_conflicts() -> None:
    check("The user's bike is a green Bianchi.", "The user rides a yellow Bianchi.", CONTRADICTION)


# --- negation, diet, statuses, preferences --------------------------------------------


def test_negation() -> None:
    check("The user smokes.", "The user does not smoke.", CONTRADICTION, "negation")
    check("L'utente non guida.", "L'utente guida.", CONTRADICTION, "negation")
    check("O usuário não bebe álcool.", "O usuário bebe álcool.", CONTRADICTION, "negation")


def test_diet_against_food_eaten() -> None:
    check(
        "The user is vegetarian.", "The user ordered a chicken burger.", CONTRADICTION, "negation"
    )
    check("L'utente è vegana.", "L'utente ha bevuto latte.", CONTRADICTION, "negation")
    check("A usuária é vegetariana.", "A usuária comeu salada.", COMPATIBLE)
    check("The user is vegetarian.", "The user is not vegetarian.", CONTRADICTION, "negation")


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("The migration is done.", "The migration has not started yet."),
        ("The migration is underway.", "The migration was cancelled."),
        ("La migrazione è terminata.", "La migrazione è in corso."),
        ("A migração foi finalizada.", "A migração não foi iniciada."),
    ],
)
def test_statuses_conflict(existing: str, new: str) -> None:
    check(existing, new, CONTRADICTION, "status")


def test_started_and_finished_do_not_conflict() -> None:
    check("The migration started in January.", "The migration is completed.", COMPATIBLE)


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        ("The user prefers window seats.", "The user prefers aisle seats.", CONTRADICTION),
        ("L'utente preferisce il vino rosso.", "L'utente preferisce la birra.", CONTRADICTION),
        ("O usuário prefere praia.", "O usuário prefere campo.", CONTRADICTION),
        (
            "The user's favourite film is Alien.",
            "The user's favourite film is Heat.",
            CONTRADICTION,
        ),
        ("The user prefers tea at breakfast.", "The user prefers wine at dinner.", COMPATIBLE),
        ("The user prefers trains.", "The user enjoys hiking.", COMPATIBLE),
    ],
)
def test_preferences(existing: str, new: str, label: str) -> None:
    verdict = check(existing, new, label)
    if label == CONTRADICTION:
        assert verdict.kind in {"preference", "name"}


# --- similarity and judge -------------------------------------------------------------


def test_judge_is_only_asked_when_in_doubt() -> None:
    calls: list[tuple[str, str]] = []

    def judge(existing: str, new: str) -> Verdict:
        calls.append((existing, new))
        return Verdict(CONTRADICTION, None, 0.9, "the model says so")

    sure = classify_pair("Omar lives in Leeds.", "Omar lives in York.", judge=judge)
    assert sure.kind == "name" and calls == []
    unsure = classify_pair("The fee is 40 CHF.", "The fee is 40 EUR.", judge=judge)
    assert calls and unsure.kind == "llm" and unsure.explanation == "the model says so"


def test_judge_returning_none_keeps_the_rule_verdict() -> None:
    verdict = classify_pair("The fee is 40 CHF.", "The fee is 40 EUR.", judge=lambda a, b: None)
    assert verdict.label == CONTRADICTION and verdict.confidence < 0.6


def test_embedding_similarity_is_used_when_given() -> None:
    pair = ("Kafka is the message bus of the ledger.", "The ledger publishes events on Kafka.")
    assert classify_pair(*pair, similarity=0.95).label == DUPLICATE
    assert classify_pair(*pair, similarity=0.5).label != DUPLICATE


# --- evaluation and command -----------------------------------------------------------


def test_metrics_on_a_tiny_synthetic_set() -> None:
    outcomes = [
        Outcome("a", CONTRADICTION, CONTRADICTION, ""),
        Outcome("b", CONTRADICTION, COMPATIBLE, "missed"),
        Outcome("c", DUPLICATE, DUPLICATE, ""),
        Outcome("d", COMPATIBLE, COMPATIBLE, ""),
    ]
    report = evaluate(outcomes)
    scores = {s.label: s for s in report.scores}
    assert scores[CONTRADICTION].precision == 1.0 and scores[CONTRADICTION].recall == 0.5
    assert scores[COMPATIBLE].precision == 0.5 and scores[COMPATIBLE].recall == 1.0
    assert scores[DUPLICATE].f1 == 1.0
    assert report.macro_f1 == pytest.approx((2 / 3 + 1 + 2 / 3) / 3)
    assert report.confusion[CONTRADICTION][COMPATIBLE] == 1
    assert [m.id for m in report.misses] == ["b"]
    assert "macro-F1" in format_report(report) and "b: expected contradiction" in format_report(
        report
    )


def test_extra_pairs_stay_above_target() -> None:
    report = evaluate(run_pairs(load_pairs(EXTRA)))
    assert report.total >= 30
    assert report.macro_f1 >= 0.9, format_report(report)


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    return path


def test_command_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(
        tmp_path / "pairs.jsonl",
        [
            {
                "id": "t1",
                "lang": "en",
                "existing": "Zoe lives in Oslo.",
                "new": "Zoe lives in Bergen.",
                "label": "contradiction",
            },
            {
                "id": "t2",
                "lang": "it",
                "existing": "Zoe è alta 170 cm.",
                "new": "Zoe è alta 1,70 m.",
                "label": "duplicate",
            },
            {
                "id": "t3",
                "lang": "pt",
                "existing": "A Zoe mora em Lisboa.",
                "new": "A Zoe fala francês.",
                "label": "duplicate",
            },
        ],
    )
    call_command("eval_contradictions", str(path))
    out = capsys.readouterr().out
    assert "macro-F1" in out and "expected \\ got" in out
    assert "t3: expected duplicate, got compatible" in out


def test_command_rejects_missing_file_and_bad_json(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        call_command("eval_contradictions", str(tmp_path / "absent.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"existing": "a", "new": "b", "label": "duplicate"}\n{not json\n')
    with pytest.raises(CommandError, match=r"bad.jsonl:2: invalid JSON"):
        call_command("eval_contradictions", str(bad))
    wrong = _write(tmp_path / "wrong.jsonl", [{"existing": "a", "new": "b", "label": "same"}])
    with pytest.raises(PairFileError, match="label 'same'"):
        load_pairs(wrong)
