"""Name normalisation and entity lookup as rules over generated names (Hypothesis).

A curator types a name however their keyboard, platform or paste source wrote it. The
rules ``test_lookup.py`` shows by example, stated for every name:

* ``normalize`` is idempotent, and blind to NFC/NFD, case and runs of whitespace;
* a stored name is found again through any of those spellings, as the same entity, and
  storing it again in another spelling never makes a second entity;
* an alias is found the same way; once removed (in any spelling) it names nothing;
* a name nobody stored is "none": no entity, no candidate, and nothing written.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, assume, given, seed, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from entities.models import Alias, Entity
from entities.selectors import entity_lookup
from entities.services import alias_add, alias_remove, entity_store
from kgsite.errors import InvalidInput, NotFound
from kgsite.text import clean_display, normalize

PURE = settings(max_examples=150, deadline=None, derandomize=True)
DB = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

# Letters with and without marks, in scripts with case, plus spaces: names people write.
# Without the Turkish dotted capital İ: its default lower case is "i" plus a combining dot,
# which normalize keeps (see the expected failure at the end).
LETTERS = (
    "abcdefghijklmnopqrstuvwxyz"
    "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝßàáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ"
    "ĀāĂăĄąĆćČčĎďĒēĘęĚěĞğĪīıŁłŃńŇňŌōŐőŒœŘřŚśŞşŠšŤťŪūŮůŰűŽž"
    "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩαβγδεζηθικλμνξοπρσςτυφχψωάέήίόύώ"
    "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя"
)
words = st.text(alphabet=LETTERS, min_size=2, max_size=10)
names = st.lists(words, min_size=1, max_size=3).map(" ".join)
SPACES = st.sampled_from([" ", "  ", "\t", "\u00a0", " \n "])


def spellings(name: str, gap: str) -> list[str]:
    """The same name as other sources write it."""
    return [
        unicodedata.normalize("NFD", name),
        unicodedata.normalize("NFC", name).upper(),
        name.lower(),
        f"{gap}{name.replace(' ', gap)}{gap}",
    ]


# --- normalize ------------------------------------------------------------------------


@seed(2441)
@PURE
@given(text=st.text(max_size=40))
def test_normalizing_twice_changes_nothing(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


@seed(2442)
@PURE
@given(text=st.text(max_size=40))
def test_composed_and_decomposed_text_normalize_alike(text: str) -> None:
    nfc, nfd = (unicodedata.normalize(form, text) for form in ("NFC", "NFD"))
    assert normalize(nfc) == normalize(nfd) == normalize(text)


@seed(2443)
@PURE
@given(name=names)
def test_case_does_not_matter_for_names(name: str) -> None:
    assert normalize(name.upper()) == normalize(name.lower()) == normalize(name)


@seed(2444)
@PURE
@given(parts=st.lists(words, min_size=1, max_size=4), gap=SPACES)
def test_whitespace_runs_are_one_space(parts: list[str], gap: str) -> None:
    assert normalize(gap + gap.join(parts) + gap) == normalize(" ".join(parts))


@seed(2445)
@PURE
@given(name=names)
def test_display_form_keeps_case_and_marks(name: str) -> None:
    display = clean_display(unicodedata.normalize("NFD", f"  {name} "))
    assert display == unicodedata.normalize("NFC", name)


@pytest.mark.parametrize(("a", "b"), [("São Paulo", "Sao Paulo"), ("Łódź", "Lodz"), ("é", "e")])
def test_accents_still_tell_names_apart(a: str, b: str) -> None:
    assert normalize(a) != normalize(b)


# --- lookup ---------------------------------------------------------------------------


class LookupRules(TestCase):
    @seed(2446)
    @DB
    @given(name=names, gap=SPACES, kind=st.sampled_from(["person", "place", ""]))
    def test_a_stored_name_is_found_in_any_spelling(self, name, gap, kind) -> None:
        entity, created = entity_store(name=name, type=kind)
        assert created
        for spelling in spellings(name, gap):
            found = entity_lookup(name=spelling)
            assert (found.match, found.entity.id) == ("canonical", entity.id), spelling
            again, created = entity_store(name=spelling, type=kind)
            assert (again.id, created) == (entity.id, False), spelling
        assert Entity.objects.count() == 1
        # The display form is the one first stored, whatever spellings came after.
        entity.refresh_from_db()
        assert entity.canonical_name == clean_display(name)

    @seed(2447)
    @DB
    @given(name=names, alias=names, gap=SPACES)
    def test_an_alias_is_found_in_any_spelling_until_removed(self, name, alias, gap) -> None:
        assume(normalize(name) != normalize(alias))
        entity, _ = entity_store(name=name, type="person")
        alias_add(entity=entity, alias=alias)
        forms = spellings(alias, gap)
        for spelling in forms:
            found = entity_lookup(name=spelling)
            assert (found.match, found.entity.id) == ("alias", entity.id), spelling
            row, created = alias_add(entity=entity, alias=spelling)
            assert not created
        assert Alias.objects.count() == 1
        assert entity_lookup(name=name).as_dict()["aliases"] == [clean_display(alias)]
        alias_remove(entity=entity, alias=forms[1])  # removed in another spelling
        gone = entity_lookup(name=alias)
        assert (gone.match, gone.entity) == ("none", None)
        with pytest.raises(NotFound) as info:
            alias_remove(entity=entity, alias=alias)
        assert info.value.field == "alias"

    @seed(2448)
    @DB
    @given(stored=names, asked=names)
    def test_a_name_nobody_stored_is_none_and_writes_nothing(self, stored, asked) -> None:
        assume(normalize(stored) != normalize(asked))
        entity_store(name=stored, type="place")
        before = (Entity.objects.count(), Alias.objects.count())
        result = entity_lookup(name=asked).as_dict()
        assert result["match"] == "none"
        assert result["entity"] is None and result["candidates"] == []
        assert all(s["canonical_name"] == clean_display(stored) for s in result["suggestions"])
        assert (Entity.objects.count(), Alias.objects.count()) == before

    @seed(2449)
    @DB
    @given(name=names, hidden=st.sampled_from(["\u200b", "\u202e", "\ufeff", "\x00", "\x07"]))
    def test_a_hidden_character_is_refused_not_stored(self, name, hidden) -> None:
        cut = len(name) // 2
        with pytest.raises(InvalidInput) as info:
            entity_store(name=name[:cut] + hidden + name[cut:], type="person")
        assert info.value.field == "name"
        assert not Entity.objects.exists()


def test_the_default_lower_case_of_a_dotted_capital_i_is_the_same_name() -> None:
    assert normalize("İzmir".lower()) == normalize("İzmir")


@pytest.mark.django_db
def test_a_name_typed_through_a_default_lower_finds_the_dotted_capital_entity() -> None:
    # A browser's or a script's lower() of "İzmir" keeps the dot as U+0307.
    stored, _ = entity_store(name="İzmir", type="place")
    found = entity_lookup(name="İzmir".lower()).as_dict()
    assert found["match"] != "none"
    assert found["entity"]["id"] == stored.id
