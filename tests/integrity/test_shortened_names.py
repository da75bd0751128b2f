"""Issue 28, round 11: a name written shortened on one side ("Prom" for "Prometheus",
"CH" for "ClickHouse", "St" for "Street") is the same name, so the duplicate guard
no longer refuses the restatement for a "new name". A name that is no shortening of the
other side's, or whose long form the short side also says, still stops a duplicate.

Every statement is invented for the test.
"""

from __future__ import annotations

import pytest

from integrity.detection.aliases import shortened_in
from integrity.detection.guard import duplicate_blockers


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        (
            "Alerts are evaluated in Prometheus every night.",
            "Every night alerts are evaluated in Prom.",
        ),
        ("Page views are counted in ClickHouse.", "Page views are counted in CH."),
        ("The clinic is on Gorton Street.", "The clinic is on Gorton St."),
        ("Metrics sit in Prom.", "Metrics sit in Prometheus."),
    ],
)
def test_a_shortened_name_does_not_block_a_duplicate(existing, new):
    assert duplicate_blockers(existing, new) == []


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        (
            "Alerts are evaluated in Prometheus every night.",
            "Alerts are evaluated in Grafana every night.",
        ),
        ("Page views are counted in MariaDB.", "Page views are counted in CH."),
        ("Metrics sit in Prom.", "Metrics sit in Prom and in Prometheus."),
        # one letter more is another name, not a shortened one
        ("Nadia Petrova signed it.", "Nadia Petrov signed it."),
    ],
)
def test_another_name_still_blocks_a_duplicate(existing, new):
    assert duplicate_blockers(existing, new) != []


def test_the_shapes_of_a_shortened_name():
    assert shortened_in("CH", "kept in ClickHouse") == "ClickHouse"
    assert shortened_in("Prom", "kept in Prometheus") == "Prometheus"
    assert shortened_in("Ch", "kept in ClickHouse") is None  # letters apart: capitals only
    assert shortened_in("CH", "kept in clickhouse") is None  # the long form is a name
    assert shortened_in("Ma", "Ma lives here") is None  # no longer form
