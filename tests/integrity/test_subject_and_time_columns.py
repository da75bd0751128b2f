"""Issue 28, round 11: two columns of the pair model. ``span_early``: the few words
one statement adds (all that differs) sit early, where the subject is named ("X is
left-handed" / "X's brother is left-handed"): another subject, not a detail added.
``time_apart``: each statement is anchored at a time the other does not name and they
differ otherwise too: a change over time, not a conflict.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.features import FEATURE_NAMES, pair_features

EARLY = FEATURE_NAMES.index("span_early")
TIME = FEATURE_NAMES.index("time_apart")


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Tarek is left-handed.", "Tarek's brother is left-handed."),
        ("The server runs out of disk at night.", "The backup server runs out of disk at night."),
    ],
)
def test_an_early_difference_names_another_subject(existing, new):
    assert pair_features(existing, new)[EARLY] > 0.5


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Tarek lives in Oslo.", "Tarek lives in Bergen."),
        ("The library opens at 9:00.", "The library opens at 9:00 on Sundays too."),
        ("The test server runs out of disk.", "The live server runs out of disk."),
    ],
)
def test_a_late_or_added_detail_is_no_other_subject(existing, new):
    assert pair_features(existing, new)[EARLY] < 0.5


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("In 2019 the choir had 12 members.", "Since 2022 the choir has had 30 members."),
        ("Tarek lived in Oslo in 2010.", "Tarek does not live in Oslo now."),
        ("Until 2021 the shop sold 40 kinds of tea.", "The shop now sells 55 kinds of tea."),
    ],
)
def test_two_states_at_two_times_are_apart_in_time(existing, new):
    assert pair_features(existing, new)[TIME] == 1.0


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Tarek was born in 1984.", "Tarek was born in 1986."),
        ("The choir has 12 members.", "The choir has 30 members."),
    ],
)
def test_a_changed_date_or_value_alone_is_not_apart_in_time(existing, new):
    assert pair_features(existing, new)[TIME] == 0.0
