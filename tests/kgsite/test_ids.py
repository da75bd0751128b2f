"""Ids are opaque, URL-safe and usable on a command line: an id that began with "-" was
read as an option (`find_duplicates -5O9i7Sw_OxF` answered "unrecognized arguments")."""

from __future__ import annotations

import re

from kgsite.models import short_id


def test_no_id_starts_with_a_dash() -> None:
    ids = [short_id() for _ in range(5000)]  # one in 64 would, before
    assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{11}", i) for i in ids)
    assert len(set(ids)) == len(ids)
