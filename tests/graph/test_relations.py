from __future__ import annotations

import pytest

from entities.graph.relations import predicate_resolve


@pytest.mark.parametrize(
    ("predicate", "relation", "flipped"),
    [
        ("depends on", "depends_on", False),
        ("Depends-On", "depends_on", False),
        ("dependsOn", "depends_on", False),
        ("is a dependency of", "depends_on", True),
        ("is required by", "depends_on", True),
        ("is part of", "part_of", False),
        ("contains", "part_of", True),
        ("includes", "part_of", True),
        ("works for", "works_at", False),
        ("employs", "works_at", True),
        ("was written by", "created_by", False),
        ("authored", "created_by", True),
        ("is replaced by", "replaced_by", False),
        ("supersedes", "replaced_by", True),
        ("similar to", "similar_to", False),
    ],
)
def test_synonyms_and_inverses_fold_onto_one_relation(predicate, relation, flipped):
    resolved = predicate_resolve(predicate)
    assert (resolved.name, resolved.flipped) == (relation, flipped)


def test_an_unknown_predicate_becomes_its_own_relation_never_dropped():
    resolved = predicate_resolve("Mentors")
    assert resolved.name == "mentor"
    assert resolved.spec is None
    assert predicate_resolve("is mentored by").name == "mentored_by"


def test_an_empty_predicate_is_no_relation():
    assert predicate_resolve("  ") is None


def test_a_long_predicate_is_cut_to_a_name_that_resolves_to_itself():
    stored = predicate_resolve("ink " * 40).name  # the cut falls right after a word
    assert len(stored) <= 128 and not stored.endswith("_")
    assert predicate_resolve(stored).name == stored
