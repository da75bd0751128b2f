"""How often something happens is one value however it is written: "three times an
hour" and "every 20 minutes", "once a day" and "every 24 hours" (in English, Italian,
Portuguese, Spanish and French). A restatement in the other form is not held back from a
duplicate verdict, a changed frequency still is; "once" is eleven only in Spanish.
Negation in French has two parts and Italian "ne" is a pronoun, not a negation; a span of
hours "dalle 9 alle 17" is two clock times.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.guard import duplicate_blockers
from integrity.detection.structure import read

PER_YEAR = 365.25


def frequencies(text: str) -> list[float]:
    return [v.lo for v in read(text).of("number") if v.dim == "times/year"]


@pytest.mark.parametrize(
    ("text", "per_day"),
    [
        ("The sensor reports three times an hour.", 3 * 24),
        ("The sensor reports every 20 minutes.", 3 * 24),
        ("Backups run once a day.", 1),
        ("Backups run every 24 hours.", 1),
        ("We deploy twice a week.", 2 / 7),
        ("Il backup gira ogni 12 ore.", 2),
        ("Il backup gira due volte al giorno.", 2),
        ("O backup roda uma vez por dia.", 1),
        ("O sensor envia a posição a cada 30 segundos.", 2 * 1440),
        ("El backup corre tres veces por semana.", 3 / 7),
        ("La sauvegarde tourne toutes les 6 heures.", 4),
    ],
)
def test_a_frequency_is_read_per_year_in_any_form(text: str, per_day: float) -> None:
    assert frequencies(text) == [pytest.approx(per_day * PER_YEAR)]


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        (
            "Each tram sends its position every 20 minutes.",
            "Each tram sends its position three times an hour.",
        ),
        ("Backups run every 24 hours.", "Backups run once a day."),
        ("Il backup gira due volte al giorno.", "Il backup gira ogni 12 ore."),
    ],
)
def test_the_same_frequency_written_otherwise_does_not_block_a_duplicate(existing, new) -> None:
    assert duplicate_blockers(existing, new) == []


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        (
            "Each tram sends its position every 20 minutes.",
            "Each tram sends its position twice an hour.",
        ),
        ("Backups run once a day.", "Backups run every 12 hours."),
    ],
)
def test_a_changed_frequency_still_blocks_a_duplicate(existing, new) -> None:
    assert duplicate_blockers(existing, new)


def test_once_is_eleven_in_spanish_only() -> None:
    assert [v.lo for v in read("El equipo tiene once jugadores.").of("number")] == [11.0]
    assert read("Once the server starts, it writes a log.").of("number") == []
    assert frequencies("Tomo la pastilla once veces al día.") == [pytest.approx(11 * PER_YEAR)]


def test_a_count_not_followed_by_a_period_stays_a_plain_number() -> None:
    assert frequencies("We tried three times before it worked.") == []


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("Le service ne démarre pas.", True),
        ("Le serveur n'est plus disponible.", True),
        ("Personne ne gère le serveur.", True),
        ("Une personne gère le serveur.", False),
        ("Il y a plus de serveurs.", False),
        ("Le infermiere ne staccano 36.", False),  # Italian "ne": "of them"
        ("Il servizio non parte.", True),
    ],
)
def test_negation_in_french_has_two_parts_and_italian_ne_is_a_pronoun(text, negated) -> None:
    assert read(text).negations % 2 == int(negated)


def test_a_span_of_hours_in_italian_is_two_clock_times() -> None:
    assert sorted(v.key[0] for v in read("Il negozio apre dalle 9 alle 17.").of("time")) == [
        9 * 60,
        17 * 60,
    ]
