"""Issue 28, round 14: a pair's feature row is the same number for number whatever
Python's hash seed. The rarity of the words only one side has was summed over a set, in
the seed's order: float sums differ in the last bit with the order, and the model file,
rounded to eight digits, could differ from one training run to the next.

Every statement is invented for the test.
"""

from __future__ import annotations

import os
import subprocess
import sys

_SCRIPT = (
    "from integrity.detection.features import FEATURE_NAMES, pair_features\n"
    "row = pair_features('The harbour is quiet.',"
    " 'The keeper polishes brass lavender.')\n"
    "print(row[FEATURE_NAMES.index('rare_only_b')].hex())\n"
)


def test_the_rarity_column_does_not_depend_on_the_hash_seed():
    seen = set()
    for seed in range(12):
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        out = subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        seen.add(out.stdout.strip())
    assert len(seen) == 1, seen
