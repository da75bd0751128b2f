"""Issue 14: the classifier decides by category, in English, Italian and Portuguese.

Every sentence here is new: none comes from an evaluation file. Each category is
tested in the three languages, so a rule that only fits one wording shows here.
"""

from __future__ import annotations

import pytest

from integrity.detection.aliases import align
from integrity.detection.classifier import (
    COMPATIBLE,
    CONTRADICTION,
    DUPLICATE,
    UNCERTAIN,
    classify_pair,
)
from integrity.detection.normalize import canonical
from integrity.detection.values import analyze


def label(existing: str, new: str, **kw) -> str:
    verdict = classify_pair(existing, new, **kw)
    assert 0.0 <= verdict.confidence <= 1.0 and verdict.explanation
    return verdict.label


def cases(*rows: tuple[str, str, str]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(("existing", "new", "expected"), rows)


# --- exclusive states and the acts that break them ------------------------------------


@cases(
    ("Kofi is an only child.", "Kofi's older sister lives in Accra.", CONTRADICTION),
    ("Bianca è figlia unica.", "Il fratello di Bianca fa il medico.", CONTRADICTION),
    ("O Caio é filho único.", "A irmã do Caio estuda direito.", CONTRADICTION),
    ("Kofi is an only child.", "Kofi has no brothers or sisters.", COMPATIBLE),
)
def test_only_child_against_a_sibling(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Ingrid is single.", "Ingrid's husband works at the port.", CONTRADICTION),
    ("Ottavio non si è mai sposato.", "Ottavio è divorziato.", CONTRADICTION),
    ("A Rita nunca se casou.", "A Rita é viúva.", CONTRADICTION),
    ("A Rita é solteira.", "O marido da Rita é engenheiro.", CONTRADICTION),
)
def test_marital_states_and_spouses(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Hamid has no allergies.", "Hamid is allergic to latex.", CONTRADICTION),
    ("Sveva non ha allergie.", "Sveva è allergica alle arachidi.", CONTRADICTION),
    ("O Davi não tem nenhuma alergia.", "O Davi tem alergia a camarão.", CONTRADICTION),
)
def test_no_allergies_against_a_named_allergy(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Uncle Henrik died in 2019.", "Uncle Henrik lives in a cottage near Bergen.", CONTRADICTION),
    ("Zio Franco è morto l'anno scorso.", "Zio Franco gioca a bocce ogni domenica.", CONTRADICTION),
    ("O tio Joaquim faleceu em 2018.", "O tio Joaquim mora em Braga.", CONTRADICTION),
    ("Uncle Henrik died in 2019.", "Uncle Henrik was a fisherman.", COMPATIBLE),
)
def test_death_against_the_acts_of_the_living(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    (
        "The Blue Door café closed for good last spring.",
        "The Blue Door café opens at 8.",
        CONTRADICTION,
    ),
    (
        "La libreria Fogli ha chiuso definitivamente.",
        "La libreria Fogli apre alle 10.",
        CONTRADICTION,
    ),
    ("A loja Sol fechou definitivamente.", "A loja Sol abre às 9h.", CONTRADICTION),
    ("The bakery is closed on Sundays.", "The bakery is open on Mondays.", COMPATIBLE),
)
def test_closed_for_good_against_opening(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Aiko has never flown.", "Aiko took a flight to Osaka in May.", CONTRADICTION),
    ("Nicola non ha mai preso un aereo.", "Nicola è volato a Parigi a marzo.", CONTRADICTION),
    ("O Tiago nunca andou de avião.", "O Tiago voou para Recife no Natal.", CONTRADICTION),
    ("Aiko can't swim.", "Aiko swam across the bay last summer.", CONTRADICTION),
    ("Elia non sa nuotare.", "Elia ha nuotato fino alla boa.", CONTRADICTION),
    ("A Bruna não sabe dirigir.", "A Bruna dirigiu até Santos ontem.", CONTRADICTION),
)
def test_never_and_cannot_against_an_act(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Lars only speaks Danish.", "Lars translated a French novel last year.", CONTRADICTION),
    ("Gemma parla solo italiano.", "Gemma traduce manuali dal tedesco.", CONTRADICTION),
    ("O Rui só fala português.", "O Rui fala inglês fluente.", CONTRADICTION),
    ("Lars only speaks Danish.", "Lars reads Danish newspapers.", COMPATIBLE),
)
def test_only_speaks_against_another_language(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Priya quit Zalando in 2021.", "Priya still works at Zalando.", CONTRADICTION),
    ("Marco si è licenziato da Ferrero.", "Marco lavora ancora in Ferrero.", CONTRADICTION),
    (
        "A Júlia pediu demissão da Natura.",
        "A Júlia trabalha na Natura há dois anos.",
        CONTRADICTION,
    ),
)
def test_left_an_employer_against_working_there(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Svetlana is vegan.", "Svetlana had a cheese omelette for breakfast.", CONTRADICTION),
    ("Aurora è vegetariana.", "Aurora ha mangiato una bistecca ieri.", CONTRADICTION),
    ("O Heitor é vegetariano.", "O Heitor comeu frango no almoço.", CONTRADICTION),
)
def test_diets_against_the_foods_that_break_them(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Issue OPS-77 has been closed.", "OPS-77 is still in progress.", CONTRADICTION),
    ("Il ticket WEB-9 è stato risolto.", "WEB-9 è ancora aperto.", CONTRADICTION),
    (
        "A versão 3 do app Lumo já foi lançada.",
        "A versão 3 do app Lumo ainda não foi lançada.",
        CONTRADICTION,
    ),
)
def test_statuses_and_open_tickets(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


# --- values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lang", "minutes"),
    [
        ("Dinner is at seven in the evening.", "en", 19 * 60),
        ("The call is at half past six in the evening.", "en", 18 * 60 + 30),
        ("Il treno parte alle nove meno un quarto di sera.", "it", 20 * 60 + 45),
        ("La lezione inizia alle sei e mezza di sera.", "it", 18 * 60 + 30),
        ("O jantar é às sete da noite.", "pt", 19 * 60),
        ("O jantar é às 19h.", "pt", 19 * 60),
        ("A aula começa às 7h30.", "pt", 7 * 60 + 30),
        ("Il volo atterra alle 20:45.", "it", 20 * 60 + 45),
    ],
)
def test_clock_times_in_each_language(text: str, lang: str, minutes: int) -> None:
    assert [v.payload for v in analyze(text, lang).of_kind("time")] == [minutes]


@pytest.mark.parametrize(
    "existing, new, lang",
    [
        # Issue 14's crash: "às 19h" and "às 7h30" raised IndexError in _extract_dates.
        ("O jantar do Rui é às 19h.", "O jantar do Rui é às 20h.", "pt"),
        ("A aula da Sofia começa às 7h30.", "A aula da Sofia começa às 8h.", "pt"),
        ("O voo do Hugo parte às 21h.", "O voo do Hugo parte às 21h15.", "pt"),
    ],
)
def test_portuguese_clock_times_no_longer_crash(existing: str, new: str, lang: str) -> None:
    assert label(existing, new, lang=lang) == CONTRADICTION


@cases(
    (
        "A aula da Sofia começa às 7h30.",
        "A aula da Sofia começa às sete e meia da manhã.",
        DUPLICATE,
    ),
    (
        "Il corso di Pia inizia alle 21:15.",
        "Il corso di Pia inizia alle nove e un quarto di sera.",
        DUPLICATE,
    ),
    ("Tariq's shift starts at 6pm.", "Tariq's shift starts at six in the evening.", DUPLICATE),
    ("Tariq's shift starts at 6pm.", "Tariq's shift starts at 6 in the morning.", CONTRADICTION),
)
def test_clock_times_compare_across_spellings(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


def test_numeric_dates_are_read_the_way_the_language_writes_them() -> None:
    (it,) = analyze("La visita di Marco è il 4/11.", "it").of_kind("date")
    (pt,) = analyze("A reunião do Paulo é em 3/10.", "pt").of_kind("date")
    assert (it.payload.day, it.payload.month) == (4, 11)
    assert (pt.payload.day, pt.payload.month) == (3, 10)
    assert label(
        "La visita di Marco è il 4/11.", "La visita di Marco è il 11 aprile.", lang="it"
    ) == (CONTRADICTION)


@cases(
    (
        "The dentist appointment is fixed for 4 November.",
        "The dentist appointment was moved to 9 November.",
        CONTRADICTION,
    ),
    ("La cena con Ugo è venerdì.", "La cena con Ugo è stata spostata a sabato.", CONTRADICTION),
    (
        "A entrega do Caio é dia 2 de maio.",
        "A entrega do Caio foi adiada para 9 de maio.",
        CONTRADICTION,
    ),
)
def test_a_changed_date_replaces_the_old_one(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Zeynep's suitcase weighs 20 kg.", "Zeynep's suitcase weighs 20 pounds.", CONTRADICTION),
    ("Il percorso di Dario è lungo 8 km.", "Il percorso di Dario è lungo 8 miglia.", CONTRADICTION),
    ("A corrida do Nuno tem 5 km.", "A corrida do Nuno tem 5000 metros.", DUPLICATE),
    ("The oven is set to 200 °C.", "The oven is set to 392 °F.", DUPLICATE),
    ("Il forno di Lia è a 180 gradi.", "Il forno di Lia è a 220 gradi.", CONTRADICTION),
    ("A piscina do clube está a 28 graus.", "A piscina do clube está a 28 °C.", DUPLICATE),
)
def test_units_and_temperatures_convert(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("The ticket costs 20 dollars.", "The ticket costs 20 euros.", CONTRADICTION),
    ("The ticket costs 20 dollars.", "The ticket costs 18 euros.", UNCERTAIN),
    ("Il biglietto costa 15 euro.", "Il biglietto costa 15 sterline.", CONTRADICTION),
    ("O ingresso custa R$ 50.", "O ingresso custa 50 dólares.", CONTRADICTION),
)
def test_currencies_are_kept_apart(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    (
        "The gym membership costs 35 € a month.",
        "The gym membership costs 300 € a year.",
        CONTRADICTION,
    ),
    ("The gym membership costs 25 € a month.", "The gym membership costs 300 € a year.", DUPLICATE),
    (
        "La palestra di Ada costa 40 euro al mese.",
        "La palestra di Ada costa 480 euro all'anno.",
        DUPLICATE,
    ),
    (
        "O ginásio do Léo custa 30 euros por mês.",
        "O ginásio do Léo custa 500 euros por ano.",
        CONTRADICTION,
    ),
)
def test_totals_implied_by_a_rate(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("The winter coat is half price.", "The winter coat is 30% off.", CONTRADICTION),
    (
        "Half of Oda's colleagues cycle to work.",
        "50% of Oda's colleagues cycle to work.",
        DUPLICATE,
    ),
    (
        "Un terzo dei soci del club Remo è under 30.",
        "Il 75% dei soci del club Remo è under 30.",
        CONTRADICTION,
    ),
    (
        "Metade dos vizinhos da Ana tem cachorro.",
        "50% dos vizinhos da Ana têm cachorro.",
        DUPLICATE,
    ),
)
def test_percentages_and_fractions(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    (
        "The ferry crossing takes 45 minutes.",
        "The ferry crossing takes three quarters of an hour.",
        DUPLICATE,
    ),
    ("The hike takes an hour and a half.", "The hike takes 90 minutes.", DUPLICATE),
    (
        "Il viaggio in treno dura due ore e mezza.",
        "Il viaggio in treno dura 150 minuti.",
        DUPLICATE,
    ),
    ("A travessia dura uma hora e vinte minutos.", "A travessia dura 80 minutos.", DUPLICATE),
    ("A travessia dura meia hora.", "A travessia dura 50 minutos.", CONTRADICTION),
)
def test_durations_written_in_words(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("The startup raised 1.2 million dollars.", "The startup raised $1,200,000.", DUPLICATE),
    ("La bici di Teo è costata duemila euro.", "La bici di Teo è costata 2.000 euro.", DUPLICATE),
    ("O carro do Beto custou trinta mil reais.", "O carro do Beto custou R$ 30.000.", DUPLICATE),
    (
        "O sofá da Lia custou trezentos e cinquenta reais.",
        "O sofá da Lia custou R$ 530.",
        CONTRADICTION,
    ),
)
def test_amounts_in_words_and_multipliers(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    ("Mirela is thirty-four.", "Mirela turned 36 last week.", CONTRADICTION),
    ("Mirela is thirty-four years old.", "Mirela's age is 34.", DUPLICATE),
    ("Ettore ha compiuto 50 anni.", "Ettore ha cinquanta anni.", DUPLICATE),
    ("A Lúcia fez 40 anos.", "A Lúcia tem quarenta e dois anos.", CONTRADICTION),
)
def test_ages_in_every_form(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


@cases(
    (
        "The design team has six members.",
        "There are eleven people on the design team.",
        CONTRADICTION,
    ),
    (
        "La squadra di Ivo conta 12 persone.",
        "Nella squadra di Ivo ci sono dodici dipendenti.",
        DUPLICATE,
    ),
    ("O Vasco tem dois filhos.", "O Vasco é pai de gêmeos.", DUPLICATE),
)
def test_counts_of_people(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


# --- subjects, synonyms and aliases ---------------------------------------------------------


@cases(
    (
        "Olga's workshop starts at 9:00.",
        "Olga's workshop begins at nine in the morning.",
        DUPLICATE,
    ),
    ("Il laboratorio di Olga comincia alle 9.", "Il laboratorio di Olga inizia alle 9.", DUPLICATE),
    ("A oficina da Olga começa às 9h.", "A oficina da Olga inicia às 9h.", DUPLICATE),
)
def test_synonyms_of_one_concept(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


def test_abbreviations_are_aligned_with_their_expansion() -> None:
    assert align("The API gateway runs on K8s.", "The API gateway runs on Kubernetes.")[0] == (
        "The API gateway runs on Kubernetes."
    )
    assert "Rio Grande" in align("Teo mora no RG.", "Teo mora no Rio Grande.")[0]
    assert "TypeScript" in align("The CLI is written in TS.", "The CLI uses TypeScript.")[0]


@cases(
    ("The billing job runs on Kubernetes.", "The billing job runs on k8s.", DUPLICATE),
    ("Il sito di Nadia è scritto in TypeScript.", "Il sito di Nadia è scritto in TS.", DUPLICATE),
    ("A Bia mora em São Paulo.", "SP é a cidade onde a Bia mora.", DUPLICATE),
)
def test_aliases_by_shape(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


def test_aliases_from_the_entity_table() -> None:
    """A curated alias the shape rules cannot guess ("Big Apple" = New York)."""
    table = {"big apple": "e1", "new york": "e1"}

    def mentions(text: str) -> list[tuple[int, int, str]]:
        found = []
        for name, key in table.items():
            start = text.casefold().find(name)
            if start >= 0:
                found.append((start, start + len(name), key))
        return found

    pair = ("Soraya lives in New York.", "Soraya lives in the Big Apple.")
    assert label(*pair) != DUPLICATE
    assert label(*pair, mentions=mentions) == DUPLICATE


@cases(
    ("Wim lives in Portugal.", "Wim lives in Coimbra.", COMPATIBLE),
    ("Greta vive in Toscana.", "Greta vive a Lucca.", COMPATIBLE),
    ("O Davi mora na Bahia.", "O Davi mora em Ilhéus.", COMPATIBLE),
    ("Wim lives in Coimbra.", "Wim lives in Braga.", CONTRADICTION),
)
def test_a_region_and_a_place_in_it_are_a_refinement(
    existing: str, new: str, expected: str
) -> None:
    assert label(existing, new) == expected


@cases(
    ("Pavel's younger son lives in Brno.", "Pavel's older son lives in Ostrava.", COMPATIBLE),
    (
        "Il volo di andata di Rita parte alle 7.",
        "Il volo di ritorno di Rita parte alle 19.",
        COMPATIBLE,
    ),
)
def test_a_modifier_makes_another_subject(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


# --- never swallow a different fact; uncertain is a real answer --------------------------------


@cases(
    ("Jonas bought a kayak in 2022.", "Jonas sold a kayak in 2022.", COMPATIBLE),
    (
        "Piera ha affittato una casa a Bari nel 2020.",
        "Piera ha comprato una casa a Bari nel 2020.",
        COMPATIBLE,
    ),
    ("The standup is on Tuesday.", "The standup is on Tuesday at 9:15.", COMPATIBLE),
    ("A feira da Rosa é em maio.", "A feira da Rosa é em 12 de maio.", COMPATIBLE),
)
def test_a_duplicate_stays_conservative(existing: str, new: str, expected: str) -> None:
    assert label(existing, new) == expected


def test_same_values_other_words_are_uncertain_when_the_frames_agree() -> None:
    pair = ("Jonas bought a kayak in 2022.", "Jonas sold a kayak in 2022.")
    masked: list[tuple[str, str]] = []

    def frames(a: str, b: str) -> float:
        masked.append((a, b))
        return 0.97

    verdict = classify_pair(*pair, frames=frames)
    assert verdict.label == UNCERTAIN and "please check" in verdict.explanation
    assert masked == [("Jonas bought a kayak [V].", "Jonas sold a kayak [V].")]
    assert classify_pair(*pair, frames=lambda a, b: 0.4).label == COMPATIBLE


def test_canonical_rewrites_only_values() -> None:
    assert canonical("Ada paid two thousand euros for a piano.", "en") == (
        "Ada paid 2000 euros for a piano."
    )
    assert (
        canonical("Ugo è arrivato alle sei e mezza di sera.", "it") == "Ugo è arrivato alle 18:30."
    )
