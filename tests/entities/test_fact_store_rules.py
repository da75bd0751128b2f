"""Storing a fact as rules over generated statements (Hypothesis).

An agent or a curator stores what it learnt; the same statement stored again, however it
is spelled, confirms the fact already there instead of adding a twin:

* any spelling of a stored statement (NFD, case, spacing) confirms the one fact and
  counts the confirmation;
* a project's memory is its own: the same text in another scope or of another kind is a
  fact of its own, and confirming it touches nothing else;
* bad input names its field and writes nothing.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from entities.models import Fact
from entities.services import fact_store
from kgsite.errors import InvalidInput

RULES = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
WORDS = ("the", "crane", "lifts", "forty", "tonnes", "at", "pier", "nine", "São", "Tomé", "ÉTÉ")
statements = st.lists(st.sampled_from(WORDS), min_size=3, max_size=10).map(
    lambda ws: " ".join(ws).capitalize() + "."
)
spelling = st.sampled_from(["nfd", "upper", "spaced"])


def respelled(text: str, how: str) -> str:
    if how == "nfd":
        return unicodedata.normalize("NFD", text)
    if how == "upper":
        return text.upper()
    return "  " + text.replace(" ", " \t ") + " \n"


class FactStoreRules(TestCase):
    @seed(2491)
    @RULES
    @given(text=statements, how=spelling)
    def test_any_spelling_confirms_the_one_fact(self, text, how) -> None:
        first = fact_store(text=text)
        again = fact_store(text=respelled(text, how))
        assert (first.action, again.action) == ("created", "confirmed")
        assert again.fact.pk == first.fact.pk
        fact = Fact.objects.get()
        assert fact.confirmations == 2
        assert fact.text == unicodedata.normalize("NFC", text)  # the first spelling stays

    @seed(2492)
    @RULES
    @given(text=statements, how=spelling)
    def test_another_scope_or_kind_is_a_fact_of_its_own(self, text, how) -> None:
        shared = fact_store(text=text).fact
        alpha = fact_store(text=respelled(text, how), scope="alpha")
        decision = fact_store(text=text, kind="decision")
        assert alpha.action == decision.action == "created"
        assert len({shared.pk, alpha.fact.pk, decision.fact.pk}) == 3
        again = fact_store(text=text, scope="alpha")
        assert (again.action, again.fact.pk) == ("confirmed", alpha.fact.pk)
        counts = dict(Fact.objects.values_list("pk", "confirmations"))
        assert counts == {shared.pk: 1, alpha.fact.pk: 2, decision.fact.pk: 1}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"text": "   "}, "text"),
        ({"text": "The crane\x00 lifts."}, "text"),
        ({"text": "x" * 10_001}, "text"),
        ({"text": 42}, "text"),
        ({"text": "The crane lifts.", "confidence": 1.5}, "confidence"),
        ({"text": "The crane lifts.", "confidence": float("nan")}, "confidence"),
        ({"text": "The crane lifts.", "kind": "rumour"}, "kind"),
    ],
)
def test_bad_input_names_its_field_and_writes_nothing(kwargs, field) -> None:
    with pytest.raises(InvalidInput) as info:
        fact_store(**kwargs)
    assert info.value.field == field
    assert not Fact.objects.exists()
