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
    UNCERTAIN,
    Thresholds,
    Verdict,
    classify_pair,
    obvious_duplicate,
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
        # Issue 14: the year is added detail, stored beside the birthday (compatible).
        ("Il compleanno di Ugo è il 4 ottobre.", "Ugo è nato il 4 ottobre 1970.", COMPATIBLE),
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
    # Issue 14: added detail (an hour) is new information, stored beside the old fact.
    check("The book club meets on Fridays.", "The book club meets on Friday at 7pm.", COMPATIBLE)
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
        "Redis caches the sessions of the checkout service.",
        "The checkout service's sessions are cached in Redis.",
        DUPLICATE,
    )
    check("Bob bought a house in Lyon.", "In Lyon, Bob has bought a house.", DUPLICATE)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Bob bought a house in Lyon.", "Bob sold a house in Lyon."),
        ("Nina's dog is called Rex.", "Nina's cat is called Rex."),
        ("Ugo ha comprato una casa a Torino.", "Ugo ha venduto una casa a Torino."),
        ("O Rui alugou um carro em Faro.", "O Rui vendeu um carro em Faro."),
        ("Sara is afraid of spiders.", "Sara loves spiders."),
    ],
)
@pytest.mark.parametrize("similarity", [None, 0.97, 1.0])
def test_a_swapped_word_is_never_a_duplicate(existing, new, similarity) -> None:
    # The same names and values, embeddings almost alike: each still says something the
    # other does not, so it must be stored, not folded into the other.
    verdict = classify_pair(existing, new, similarity=similarity)
    assert verdict.label != DUPLICATE, verdict
    assert obvious_duplicate(existing, new, similarity=similarity) is None


def test_a_new_statement_with_words_of_its_own_is_not_a_duplicate() -> None:
    v = check("Bob bought a house in Lyon.", "Bob bought a big house in Lyon.", COMPATIBLE)
    assert "big" in v.explanation


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
    unsure = classify_pair("The fee is 40 CHF.", "The fee is 42 EUR.", judge=judge)
    assert calls and unsure.kind == "llm" and unsure.explanation == "the model says so"


def test_judge_returning_none_keeps_the_rule_verdict() -> None:
    # Issue 14: amounts in two currencies are "uncertain" (a curator checks), not a
    # low-confidence contradiction.
    verdict = classify_pair("The fee is 40 CHF.", "The fee is 42 EUR.", judge=lambda a, b: None)
    assert verdict.label == UNCERTAIN and verdict.confidence < 0.6


def test_embedding_similarity_is_used_when_given() -> None:
    # The new statement says less than the existing one: the embedding decides.
    pair = (
        "Kafka is the durable, replicated message bus of the ledger.",
        "Kafka is the bus of the ledger.",
    )
    assert classify_pair(*pair, similarity=0.95).label == DUPLICATE
    assert classify_pair(*pair, similarity=0.5).label != DUPLICATE
    stricter = Thresholds(duplicate_similarity=0.97)
    assert classify_pair(*pair, similarity=0.95, thresholds=stricter).label != DUPLICATE


def test_similarity_never_outweighs_different_words() -> None:
    pair = ("Kafka is the message bus of the ledger.", "The ledger publishes events on Kafka.")
    assert classify_pair(*pair, similarity=0.99).label != DUPLICATE


def test_judge_threshold_is_a_parameter() -> None:
    calls: list[str] = []

    def judge(existing: str, new: str) -> None:
        calls.append(new)

    classify_pair("Omar lives in Leeds.", "Omar lives in York.", judge=judge)
    assert calls == []
    classify_pair(
        "Omar lives in Leeds.",
        "Omar lives in York.",
        judge=judge,
        thresholds=Thresholds(judge_below=0.99),
    )
    assert calls == ["Omar lives in York."]


# --- the synchronous duplicate test ---------------------------------------------------


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Alice lives in Paris", "alice lives in Paris."),
        ("Alice is 172 cm tall.", "Alice is 1.72 m tall."),
        ("Nina was born on 21 June 2001.", "Nina's birthday is June 21."),
        ("Bob bought a house in Lyon.", "In Lyon, Bob bought a house."),
    ],
)
def test_obvious_duplicates_are_confirmed(existing: str, new: str) -> None:
    assert obvious_duplicate(existing, new, similarity=0.95) is not None


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        # The new fact is more precise: confirming would lose the year.
        ("Nina's birthday is June 21.", "Nina was born on 21 June 2001."),
        # The existing fact says more; the new one is a duplicate only in the background.
        ("Kafka is the durable message bus of the ledger.", "Kafka is the bus of the ledger."),
        # A date whose day and month may be swapped is confirmed only as written.
        ("Mark was born on 12 July 1990.", "Mark was born on 07/12/1990."),
        ("Alice lives in Paris.", "Alice lives in Lyon."),
        # A name with a word more.
        ("Alice lives in Paris.", "Alice lives in Paris, France."),
    ],
)
def test_doubtful_duplicates_are_left_to_the_background(existing: str, new: str) -> None:
    assert obvious_duplicate(existing, new, similarity=0.95) is None


def test_obvious_duplicate_needs_the_similarity_setting() -> None:
    pair = ("Alice is 172 cm tall.", "Alice is 1.72 m tall.")
    assert obvious_duplicate(*pair, similarity=0.95) is not None
    assert obvious_duplicate(*pair, similarity=0.95, thresholds=Thresholds(0.6, 0.97)) is None


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


# --- numbers in letters with units, feet and inches -----------------------------------


@pytest.mark.parametrize(
    ("text", "key", "amount"),
    [
        ("The parcel weighs two kilograms.", "mass", 2.0),
        ("The trip takes three hours.", "duration", 3 * 3600.0),
        ("Leo is thirty-five years old.", "duration", 35 * 31557600.0),
        ("Il pacco pesa due chili.", "mass", 2.0),
        ("Leo ha quarant'anni.", "duration", 40 * 31557600.0),
        ("Leo ha trentotto anni.", "duration", 38 * 31557600.0),
        ("O Leo tem trinta e cinco anos.", "duration", 35 * 31557600.0),
        ("A viagem dura três horas.", "duration", 3 * 3600.0),
        ("Ivo has twenty-one cousins.", "count:cousin", 21.0),
    ],
)
def test_numbers_written_in_letters_take_their_unit(text: str, key: str, amount: float) -> None:
    (quantity,) = analyze(text).of_kind("quantity")
    assert quantity.key == key
    assert quantity.payload.amount == pytest.approx(amount)


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        ("The parcel weighs two kilograms.", "The parcel weighs 5 kg.", CONTRADICTION),
        ("The parcel weighs two kilograms.", "The parcel weighs 2000 g.", DUPLICATE),
        ("Leo is thirty years old.", "Leo is 30 years old.", DUPLICATE),
        ("Leo is thirty years old.", "Leo is 31 years old.", CONTRADICTION),
        ("The trip takes three hours.", "The trip takes 5 hours.", CONTRADICTION),
        ("Leo ha quarant'anni.", "Leo ha 40 anni.", DUPLICATE),
        ("Leo ha quarant'anni.", "Leo ha 45 anni.", CONTRADICTION),
        ("O Leo tem trinta anos.", "O Leo tem 30 anos.", DUPLICATE),
        ("O Leo tem trinta anos.", "O Leo tem 33 anos.", CONTRADICTION),
    ],
)
def test_numbers_in_letters_compare_with_digits(existing: str, new: str, label: str) -> None:
    check(existing, new, label)


@pytest.mark.parametrize("height", ["5 ft 8 in", "5 feet 8 inches", "5'8\"", "5′8″", "5 ft 8"])
def test_feet_and_inches_are_one_length(height: str) -> None:
    (quantity,) = analyze(f"Mark is {height} tall.").of_kind("quantity")
    assert quantity.payload.amount == pytest.approx(1.7272)
    check(f"Mark is {height} tall.", "Mark is 173 cm tall.", DUPLICATE)
    check(f"Mark is {height} tall.", "Mark is 180 cm tall.", CONTRADICTION, "number")


# --- ambiguous and partial numeric dates ------------------------------------------------


def test_an_ambiguous_english_date_matches_either_reading() -> None:
    check("Mark was born on 07/12/1990.", "Mark was born on 12 July 1990.", DUPLICATE)
    check("Mark was born on 07/12/1990.", "Mark was born on 7 December 1990.", DUPLICATE)
    v = check("Mark was born on 07/12/1990.", "Mark was born on 3 March 1990.", CONTRADICTION)
    assert "07/12/1990" in v.explanation
    # Where a part exceeds 12 there is one reading only.
    check("Mark was born on 07/13/1990.", "Mark was born on 7 July 1990.", CONTRADICTION)
    # Italian and Portuguese write the day first: no second reading.
    check("Marco è nato il 07/12/1990.", "Marco è nato il 12 luglio 1990.", CONTRADICTION)


def test_day_and_month_without_a_year() -> None:
    assert [v.payload for v in analyze("Mark's birthday is 05/05.").of_kind("date")] == [
        DateValue(None, 5, 5)
    ]
    # Issue 14: the year is added detail (compatible); the other way round says less.
    check("Mark's birthday is 05/05.", "Mark was born on 5 May 1990.", COMPATIBLE)
    check("Mark was born on 5 May 1990.", "Mark's birthday is 05/05.", DUPLICATE)
    check("Mark's birthday is 05/05.", "Mark's birthday is 9 June.", CONTRADICTION, "date")
    check("O prazo vence em 20/06.", "O prazo vence em 20 de junho.", DUPLICATE)
    # Without a cue it is no date: a rating, a ratio, "24/7".
    assert analyze("The hotel's rating is 4/5.").of_kind("date") == []
    assert analyze("Support is available 24/7.").of_kind("date") == []


# --- explanations quote the sentence --------------------------------------------------


def test_explanations_use_the_words_as_written() -> None:
    v = classify_pair("Bob bought a house in Lyon.", "Bob bought a big house in Lyon.")
    assert "big" in v.explanation
    v = classify_pair("A reunião semanal é na terça-feira.", "A reunião semanal é na quarta-feira.")
    assert "reunião semanal" in v.explanation
    v = classify_pair("The user adds storage.", "The user adds storage weekly.")
    assert "weekly" in v.explanation and "weekl " not in v.explanation + " "
    v = classify_pair("La riunione è il lunedì.", "La riunione è il martedì.", lang="it")
    assert "riunione" in v.explanation
    v = classify_pair(
        "Il colore preferito di Ada è il blu.", "Il colore preferito di Ada è il rosso."
    )
    assert v.explanation.startswith("favourite colore:"), v


# --- more kinds of conflict -----------------------------------------------------------


@pytest.mark.parametrize(
    ("existing", "new", "kind"),
    [
        ("Paolo has no children.", "Paolo has two daughters.", "number"),
        ("Paolo has no children.", "Paolo has a child.", "negation"),
        ("Karl has no siblings.", "Karl has a brother named Hans.", "negation"),
        ("Paolo non ha figli.", "Paolo ha due figlie.", "number"),
        ("O Paulo não tem filhos.", "O Paulo tem duas filhas.", "number"),
        ("Marta is married.", "Marta is single.", "status"),
        ("Marta è sposata.", "Marta è single.", "status"),
        ("A Marta é casada.", "A Marta é divorciada.", "status"),
        ("Marta is married.", "Marta is not married.", "status"),
        ("Il server è a Milano.", "Il server si trova a Francoforte.", "name"),
        ("O servidor está em Lisboa.", "O servidor fica em Madrid.", "name"),
        ("Tom loves sushi.", "Tom hates sushi.", "preference"),
        ("Tom ama il sushi.", "Tom odia il sushi.", "preference"),
        ("O Tom adora sushi.", "O Tom detesta sushi.", "preference"),
        ("Sara is afraid of spiders.", "Sara loves spiders.", "preference"),
        ("The shop opens on Mondays.", "The shop is closed on Mondays.", "status"),
        ("Il negozio è aperto il lunedì.", "Il negozio è chiuso il lunedì.", "status"),
    ],
)
def test_more_conflicts(existing: str, new: str, kind: str) -> None:
    check(existing, new, CONTRADICTION, kind)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Paolo has no children.", "Paolo has two cats."),
        ("Paolo has two daughters.", "Paolo has three children."),
        ("Marta is single.", "Marta is divorced."),
        ("Marta is married.", "Marta lives in Rome."),
        ("Tom loves sushi.", "Tom hates pizza."),
        ("Tom hates spiders.", "Tom is afraid of spiders."),
        ("The shop opens on Mondays.", "The shop is closed on Sundays."),
        ("The shop opens at 9am.", "The shop is closed."),
    ],
)
def test_near_misses_stay_compatible(existing: str, new: str) -> None:
    assert classify_pair(existing, new).label != CONTRADICTION


def test_open_and_closed_only_of_the_subject() -> None:
    v = check("Il negozio non è aperto il lunedì.", "Il negozio è aperto il lunedì.", CONTRADICTION)
    assert "non è aperto" in v.explanation
    # Adjectives on a noun are not opening hours.
    for existing, new in [
        ("The user likes open source.", "The user dislikes closed source."),
        ("The team works in an open office.", "The team works in a closed office."),
    ]:
        assert classify_pair(existing, new).kind != "status"


@pytest.mark.parametrize(
    ("existing", "new", "label"),
    [
        # One letter apart as strings, but two different people: no HIGH notification.
        ("Ada B. Bauer lives in Milan.", "Ada C. Bauer lives in Rome.", "compatible"),
        ("Ada B. Bauer is 34 years old.", "Ada C. Bauer is 40 years old.", "compatible"),
        # An initial still stands for the name it begins, and a surname for the person.
        ("Mario Rossi lives in Milan.", "M. Rossi lives in Rome.", "contradiction"),
        ("Mario Rossi lives in Milan.", "Rossi lives in Rome.", "contradiction"),
    ],
)
def test_middle_initials_tell_people_apart(existing, new, label):
    assert classify_pair(existing, new).label == label


def test_command_breaks_down_by_phenomenon_and_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 14: a per-phenomenon and per-language breakdown, and the uncertain count."""
    path = _write(
        tmp_path / "pairs.jsonl",
        [
            {
                "id": "p1",
                "lang": "en",
                "existing": "The fee is 40 CHF.",
                "new": "The fee is 42 EUR.",
                "label": "contradiction",
                "phenomenon": "money",
            },
            {
                "id": "p2",
                "lang": "pt",
                "existing": "O jantar do Rui é às 19h.",
                "new": "O jantar do Rui é às 20h.",
                "label": "contradiction",
                "phenomenon": "time",
            },
        ],
    )
    call_command("eval_contradictions", str(path))
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert lines["uncertain"][-1] == "1"
    assert lines["money"][1:] == ["0.000", "0", "1", "1"]
    assert lines["time"][1:] == ["1.000", "1", "0", "1"]
    assert lines["pt"][1:] == ["1.000", "1", "0", "1"]
    assert "p1: expected contradiction, got uncertain" in out


def test_uncertain_counts_as_wrong_in_the_scores() -> None:
    outcomes = [
        Outcome("a", CONTRADICTION, "uncertain", "?"),
        Outcome("b", CONTRADICTION, CONTRADICTION, "x"),
    ]
    report = evaluate(outcomes)
    assert report.uncertain == 1 and report.accuracy == 0.5
    assert report.confusion[CONTRADICTION]["uncertain"] == 1
    assert "uncertain" in format_report(report)
