"""The entries of one indented list are things of one kind: an entry only the type
model typed takes the type most of its list's entries have. Hanging tags (a manual
page's "FLAG   Does this", with the description on the tag's line) are read as the
list's entries."""

from __future__ import annotations

from books.extraction.candidates import book_term_rows
from books.extraction.decide import Decision, TermRow, _lists_agree
from books.extraction.layout import list_lines

from .test_scoring import chunks_of

FLAGS = """\
Terminal flags
==============

The local modes are set in the mode word.

       KPALV  When the line is idle, send a probe to the peer and drop the
              line when none comes back.

       NOWAIT Return at once when no byte is waiting.

       SLOWSTART
              Raise the rate step by step after a reset.

       The  probe  is  sent  every  minute.
"""


def test_hanging_tags_are_entries_of_one_list():
    entries = {bare.split()[0]: depth for bare, _at, depth, _d in list_lines(FLAGS)}
    # A tag followed by two blanks, one blank where the description starts in the same
    # column as another tag's, and a tag over its indented description.
    assert {k: entries.get(k) for k in ("KPALV", "NOWAIT", "SLOWSTART")} == dict.fromkeys(
        ("KPALV", "NOWAIT", "SLOWSTART"), 7
    )
    rows = {r.display: r for r in book_term_rows(chunks_of(FLAGS + FLAGS))}
    assert rows["KPALV"].lists and rows["KPALV"].lists == rows["NOWAIT"].lists


def test_a_word_then_one_blank_is_no_hanging_tag_alone():
    # One blank after the first word is prose unless another tag's description starts
    # in the same column.
    assert not list(list_lines("Intro line.\n\n       NOWAIT Return at once.\n"))
    assert not list(list_lines("Intro line.\n\nthe probe is sent\nevery minute.\n"))


def _row(name: str, lists) -> TermRow:
    return TermRow(key=name.lower(), display=name, aliases=(), features=[], lists=lists)


def test_an_entry_the_model_typed_takes_its_lists_type():
    one = (("Options", 7),)
    rows = [_row(n, one) for n in ("alpha", "beta", "gamma", "key_file", "DELTA")]
    decisions = [Decision(r.display, "option", 2, (), None) for r in rows[:3]]
    decisions.append(Decision("key_file", "format", 2, (), None))  # the model's guess
    decisions.append(Decision("DELTA", "class", 2, (), None, "rules: identifier"))
    _lists_agree(rows, decisions)
    assert (decisions[3].type, decisions[3].typed_by) == ("option", "list")
    assert decisions[4].type == "class"  # a rule's type stays


def test_a_short_or_split_list_types_nothing():
    two = (("Options", 7),)
    rows = [_row("alpha", two), _row("key_file", two)]
    decisions = [
        Decision("alpha", "option", 2, (), None),
        Decision("key_file", "format", 2, (), None),
    ]
    _lists_agree(rows, decisions)
    assert decisions[1].type == "format"
    rows = [_row(n, two) for n in ("a1", "b1", "c1", "d1")]
    types = ["option", "option", "format", "format"]
    decisions = [Decision(r.display, t, 2, (), None) for r, t in zip(rows, types, strict=True)]
    _lists_agree(rows, decisions)
    assert [d.type for d in decisions] == types  # no majority: each keeps its own


def test_the_scorers_decisions_type_a_list_as_one():
    import numpy as np

    from books.extraction.decide import rows_decide
    from books.extraction.scoring import Linear, Scorer

    def linear(coef, intercept, classes=()):
        one = np.ones(1)
        return Linear(np.zeros(1), one, np.asarray(coef), np.asarray(intercept), classes)

    scorer = Scorer(
        entity=linear([[0.0]], [5.0]),  # every term kept
        type=linear([[-5.0], [5.0]], [0.0, 0.0], ("format", "option")),
        define=linear([[0.0]], [0.0]),
        info={},
    )
    listed = (("Options", 7),)
    rows = [
        TermRow(key=n, display=n, aliases=(), features=[x], lists=listed)
        for n, x in (("alpha_key", 1.0), ("beta_key", 1.0), ("gamma_key", 1.0), ("key_file", -1.0))
    ]
    decisions = {d.display: d for d in rows_decide(rows, scorer)}
    assert (decisions["key_file"].type, decisions["key_file"].typed_by) == ("option", "list")
