"""Abbreviations aligned by their shape, as rules over generated names (Hypothesis).

Before two statements are compared, a name written as an initialism ("FDA"), a
camel-case initialism ("TS" of "TypeScript") or a numeronym ("k8s") in one is written
out as the other statement writes it, and a name the entity table knows under two
spellings takes the stored statement's spelling. For any invented name:

* its initials find it, filler words ("of", "and") skipped, and aligning the two
  statements makes them the same text;
* its numeronym finds it, and a word of another length or other end letters does not;
* an acronym already in the other statement, or one whose letters spell nothing there,
  is left alone.
"""

from __future__ import annotations

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from integrity.detection.aliases import align, initialism_in, numeronym_in

RULES = settings(max_examples=80, deadline=None, derandomize=True)
# Function words the reader skips inside a written-out name, in the six languages.
FILLERS = {"of", "the", "and", "for", "per", "para", "pour", "und", "der", "des", "del"}
plain_words = st.text(alphabet="bcdfghklmnprstvz" + "aiou", min_size=3, max_size=9).filter(
    lambda w: w not in FILLERS
)
names = st.lists(plain_words.map(str.capitalize), min_size=2, max_size=5)


@seed(2461)
@RULES
@given(words=names)
def test_the_initials_of_a_name_find_it(words: list[str]) -> None:
    name = " ".join(words)
    acronym = "".join(w[0] for w in words).upper()
    assert initialism_in(acronym, f"yesterday we met {name} at noon.") == name


@seed(2462)
@RULES
@given(words=names, filler=st.sampled_from(["of", "and", "for the"]))
def test_filler_words_inside_a_name_are_skipped(words: list[str], filler: str) -> None:
    name = " ".join([words[0], filler, *words[1:]])
    acronym = "".join(w[0] for w in words).upper()
    assert initialism_in(acronym, f"the report of {name} came in.") == name


@seed(2463)
@RULES
@given(words=names)
def test_a_camel_case_word_is_found_by_its_humps(words: list[str]) -> None:
    word = "".join(words)
    acronym = "".join(w[0] for w in words).upper()
    assert initialism_in(acronym, f"it is written in {word} now.") == word


@seed(2464)
@RULES
@given(words=names)
def test_aligning_an_initialism_writes_it_out(words: list[str]) -> None:
    name = " ".join(words)
    acronym = "".join(w[0] for w in words).upper()
    stored, new = f"so {name} approved the plan.", f"so {acronym} approved the plan."
    assert align(stored, new) == (stored, stored)


@seed(2465)
@RULES
@given(word=plain_words.filter(lambda w: len(w) >= 4))
def test_a_numeronym_finds_its_word_and_only_its_word(word: str) -> None:
    short = f"{word[0]}{len(word) - 2}{word[-1]}"
    # The other words are two letters long: none can be another reading of the numeronym.
    assert numeronym_in(short, f"it is on {word} by now") == word
    assert numeronym_in(short, f"it is on {word}x by now") is None
    assert numeronym_in(f"{word[0]}{len(word) - 2}q", f"it is on {word} by now") is None
    stored, new = f"It is on {word}.", f"It is on {short}."
    assert align(stored, new) == (stored, stored)


@pytest.mark.parametrize(
    ("acronym", "other"),
    [
        ("FDA", "The FDA approved the drug."),  # already written the same way
        ("FDA", "The agency approved the drug."),  # spells nothing there
        ("FDA", "the food and drug administration"),  # a name starts with a capital
    ],
)
def test_an_acronym_is_left_alone_when_nothing_spells_it(acronym: str, other: str) -> None:
    new = f"The {acronym} approved the drug."
    assert align(other, new)[1] == new


def test_a_known_entity_takes_the_stored_spelling() -> None:
    def mentions(text: str) -> list[tuple[int, int, str]]:
        found = []
        for name in ("Postgres", "PostgreSQL"):
            start = text.find(name)
            if start >= 0 and not any(s <= start < e for s, e, _key in found):
                found.append((start, start + len(name), "database-1"))
        return found

    stored, new = "Invoices live in PostgreSQL.", "Invoices live in Postgres."
    assert align(stored, new, mentions) == (stored, stored)
    assert align(stored, new) == (stored, new)
