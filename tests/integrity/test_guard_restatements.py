"""The duplicate guard lets a restatement through when it only looks different: a
capitalised first word that is an ordinary word, a "not" in a clause the new statement
leaves out, an amount that sizes a noun ("over a 5-minute window"). A statement that
differs by one name, number or negation stays apart."""

from __future__ import annotations

import pytest

from integrity.detection.guard import duplicate_blockers

# --- a capitalised first word that is an ordinary word --------------------------------------


def test_an_ordinary_first_word_the_stored_text_writes_in_lower_case_is_no_name():
    stored = "Since release 2.1 the ledger keeps each refund in whole cents."
    assert duplicate_blockers(stored, "Refunds are kept in whole cents.") == []


def test_a_hyphenated_first_word_written_apart_in_lower_case_is_no_name():
    stored = "Whoever is on call for the Billing team gets a page when disk usage passes 90%."
    assert duplicate_blockers(stored, "On-call gets a page when disk usage passes 90%.") == []


def test_a_determiner_opening_the_sentence_is_no_name():
    stored = "Since release 2.1 the ledger service keeps a copy of all refunds for Finance."
    assert duplicate_blockers(stored, "Each refund is copied by the ledger service.") == []


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("Since release 2.1 Alice reviews each refund.", "Bob reviews each refund."),
        ("Since release 2.1 the ledger keeps each refund.", "Grace keeps each refund."),
        # a word that begins like the name is no form of it
        (
            "Since release 2.1 Anna approves each market report.",
            "Mark approves each market report.",
        ),
    ],
)
def test_a_name_in_first_position_still_blocks(stored, new):
    assert duplicate_blockers(stored, new)


# --- a negation in a clause the new statement leaves out ------------------------------------


def test_a_negated_clause_the_new_statement_leaves_out_does_not_block():
    stored = "The export runs nightly on the replica. Archived tenants are not included."
    assert duplicate_blockers(stored, "The export runs every night on the replica.") == []


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        # the new statement says the negated clause the other way round
        (
            "The export runs nightly on the replica. Archived tenants are not included.",
            "The export runs nightly on the replica and includes archived tenants.",
        ),
        # a "not" the new statement adds in a clause of its own
        (
            "The export runs nightly on the replica.",
            "The export runs nightly on the replica. Archived tenants are not included.",
        ),
        # one clause, one negation
        ("The door of the server room is locked.", "The door of the server room is not locked."),
        # across languages the clauses cannot be compared word by word
        (
            "The export runs nightly on the replica. Archived tenants are not included.",
            "L'esportazione gira ogni notte sulla replica.",
        ),
    ],
)
def test_a_negation_the_other_statement_says_otherwise_still_blocks(stored, new):
    assert "negation" in duplicate_blockers(stored, new)


# --- an amount that sizes a noun -------------------------------------------------------------


def test_over_a_span_that_an_amount_sizes_is_no_lower_bound():
    stored = "Scale out when CPU stays above 80% over a 5-minute window."
    assert duplicate_blockers(stored, "Scale out when CPU stays above 80% for five minutes.") == []
    assert duplicate_blockers(stored, "Scale out when CPU stays above 80% for 5 minutes.") == []


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        (
            "Scale out when CPU stays above 80% over a 5-minute window.",
            "Scale out when CPU stays above 80% for 15 minutes.",
        ),
        (
            "Scale out when CPU stays above 80% over a 5-minute window.",
            "Scale out when CPU stays above 90% for five minutes.",
        ),
        # a bound before an amount that is no adjective stays a bound
        ("Jobs that run over 5 minutes are killed.", "Jobs that run 5 seconds are killed."),
    ],
)
def test_another_amount_still_blocks(stored, new):
    assert duplicate_blockers(stored, new)
