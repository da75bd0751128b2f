"""Issue 28, round 14: an amount equal to the other side's plus a percentage either
statement names ("£400 before tax" / "£460 with 15 % tax") is that amount with the rate
added, not a changed value: it falls within (``amount_within``) and is no value put in
place of another (``number_swap``). Not when the two statements already share an
amount: then the rate relates two amounts of one side, and the other side's differing
total is a changed value.

Every statement is invented for the test.
"""

from __future__ import annotations

from integrity.detection.features import FEATURE_NAMES, pair_features


def _columns(stored: str, new: str) -> tuple[float, float]:
    row = pair_features(stored, new)
    return row[FEATURE_NAMES.index("amount_within")], row[FEATURE_NAMES.index("number_swap")]


def test_an_amount_with_a_named_rate_added_is_within():
    assert _columns(
        "The boiler repair costs £400 before tax.",
        "With 15% tax, the boiler repair comes to £460.",
    ) == (1.0, 0.0)
    assert _columns("Il corso costa 200 € più IVA.", "Con l'IVA al 10%, il corso costa 220 €.") == (
        1.0,
        0.0,
    )


def test_a_different_total_beside_a_shared_amount_is_still_a_changed_value():
    assert _columns(
        "The repair is £400 net, 15% tax, £460 in total.",
        "The repair is £400 net and £480 with 15% tax.",
    ) == (0.0, 1.0)
