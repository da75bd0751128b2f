"""Issue 25: what a background check costs the workers, with the same verdicts.

A new fact is compared with up to a few dozen stored ones: its own text is read, and its
names looked up in the entity table, once per check instead of once per pair; the
negative-prefix feature compares only the words that carry a prefix.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from entities.services import entity_store, fact_store
from integrity import services, signals
from integrity.detection import tables as tb
from integrity.detection.guard import _same_stem
from integrity.detection.guard import affix_opposite as _affix_opposite
from integrity.detection.structure import read
from integrity.services import fact_check

pytestmark = pytest.mark.django_db


def _affix_opposite_pairwise(only_a: set[str], only_b: set[str]) -> float:
    """The feature as defined: any pair of words, the longer one (of two as long, the
    second side's) a negative prefix plus a stem of four letters or more that is the
    shorter one but for an inflected ending."""
    small_a, small_b = sorted(only_a)[:30], sorted(only_b)[:30]
    for x in small_a:
        for y in small_b:
            longer, shorter = (x, y) if len(x) > len(y) else (y, x)
            for prefix in tb.NEGATIVE_PREFIXES:
                stem = longer[len(prefix) :]
                if longer.startswith(prefix) and len(stem) >= 4 and _same_stem(stem, shorter):
                    return 1.0
    return 0.0


_STEMS = ["locked", "active", "abled", "attivato", "attivata", "legal", "valid", "tipico"]
_WORDS = st.one_of(
    st.sampled_from(_STEMS),
    st.builds(lambda p, s: p + s, st.sampled_from(tb.NEGATIVE_PREFIXES), st.sampled_from(_STEMS)),
    st.text(alphabet="adeilmnorstu", min_size=1, max_size=9),
)


@settings(max_examples=400, deadline=None)
@given(st.sets(_WORDS, max_size=35), st.sets(_WORDS, max_size=35))
def test_the_prefix_feature_answers_as_its_pairwise_definition(only_a, only_b):
    assert _affix_opposite(only_a, only_b) == _affix_opposite_pairwise(only_a, only_b)


def test_the_prefix_feature_sees_a_negated_word_on_either_side():
    assert _affix_opposite({"unlocked"}, {"locked"}) == 1.0
    assert _affix_opposite({"locked"}, {"unlocked"}) == 1.0
    assert _affix_opposite({"locked"}, {"loaded"}) == 0.0


def test_a_statement_is_read_once_and_its_reading_shared():
    text = "The bridge opened on 3 May 2021 and carries 40,000 cars a day."
    first, again = read(text), read(text)
    assert again is first
    assert [v.kind for v in first.values] == [v.kind for v in read(text + " ").values]


def test_a_check_asks_the_entity_table_once_per_text(
    monkeypatch, django_capture_on_commit_callbacks
):
    """Against five stored facts of one subject, the new fact's names are looked up
    once, not five times; the verdicts are those of a check that asks every time."""
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [])
    dora = entity_store(name="Dora Lind", type="person")[0]
    stored = [
        "Dora Lind was born in 1961.",
        "Dora Lind lives in Tromsø.",
        "Dora Lind speaks three languages.",
        "Dora Lind wrote two novels.",
        "Dora Lind studied chemistry.",
    ]
    for text in stored:
        fact_store(text=text, subject=dora)
    with django_capture_on_commit_callbacks(execute=False):
        new = fact_store(text="Dora Lind was born in 1958.", subject=dora).fact

    asked: list[str] = []
    real = signals.entity_mentions

    def counting(text: str):
        asked.append(text)
        return real(text)

    monkeypatch.setattr(services, "entity_mentions", counting)
    result = fact_check(fact_id=new.pk)
    assert result.checked == 5
    assert asked.count(new.text) == 1
    assert len(result.contradictions) == 1
