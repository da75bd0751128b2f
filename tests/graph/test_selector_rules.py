"""The graph's reads without a trained model (names, relations, the entity graph, what
memory says for and against a triple) and the training set-up's arithmetic."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from entities.graph import kge
from entities.graph import services as graph_services
from entities.graph.edges import edges_rebuild
from entities.graph.models import KGEModel, Relation
from entities.graph.selectors import (
    _stored_verdict,
    entity_graph,
    entity_resolve,
    kge_infer_relation,
    kge_related,
    kge_validate,
    relation_resolve,
)
from entities.graph.services import (
    MIN_TRIPLES,
    calibrate,
    graph_triples,
    kge_index,
    kge_start,
    kge_train,
    kge_train_task,
    split_triples,
)
from entities.models import ExternalEntityId, Fact
from entities.scopes import ScopeFilter
from entities.services import alias_add, entity_store, fact_link
from kgsite.errors import Conflict, InvalidInput, NotFound

from .conftest import make_entity
from .conftest import state as _state


def state(subject, predicate, obj, note="", **extra):
    """A triple fact; ``note`` makes its text differ from another saying the same."""
    fact = _state(subject, predicate, obj, **extra)
    if note:
        Fact.objects.filter(pk=fact.pk).update(
            text=fact.text + note, text_norm=fact.text_norm + note
        )
    return fact


# --- names and relations --------------------------------------------------------------------


@pytest.mark.django_db
def test_an_entity_is_found_by_id_name_alias_or_imported_id():
    ada = make_entity("Ada Quint", "person")
    alias_add(entity=ada, alias="AQ")
    ExternalEntityId.objects.create(store="old.db", external_id="p-9", entity=ada)
    for value in (ada.pk, "ada quint", "  ADA QUINT ", "aq", "p-9"):
        assert entity_resolve(value, field="subject") == ada, value
    assert entity_resolve("Nobody Here", field="subject") is None
    with pytest.raises(InvalidInput) as info:
        entity_resolve("  ", field="subject")
    assert info.value.field == "subject"


@pytest.mark.django_db
def test_a_name_of_entities_of_two_types_is_a_conflict_listing_the_canonical_first():
    person = make_entity("Mercer", "person")
    town = make_entity("Mercer Falls", "place")
    alias_add(entity=town, alias="Mercer")
    with pytest.raises(Conflict) as info:
        entity_resolve("mercer", field="head")
    assert [c["id"] for c in info.value.extra["candidates"]] == [person.pk, town.pk]


@pytest.mark.django_db
def test_a_relation_made_symmetric_by_a_curator_is_read_both_ways():
    Relation.objects.create(name="rival_of", symmetric=True)
    assert relation_resolve("is a rival of", field="predicate").symmetric
    ref = relation_resolve("is used by", field="predicate")
    assert (ref.name, ref.flipped, ref.symmetric) == ("uses", True, False)
    for bad in ("", "   ", 7, "--"):
        with pytest.raises(InvalidInput):
            relation_resolve(bad, field="predicate")


@pytest.mark.parametrize(
    ("label", "supporting", "contradicting", "verdict"),
    [
        ("valid", [1], [], "valid"),
        ("valid", [], [2], "contradicted"),
        ("unlikely", [], [2], "contradicted"),
        ("valid", [1], [2], "uncertain"),
        ("unlikely", [1], [2], "unlikely"),
        ("uncertain", [], [], "uncertain"),
    ],
)
def test_memory_overrules_the_models_label(label, supporting, contradicting, verdict):
    assert _stored_verdict(label, supporting, contradicting) == verdict


# --- for and against, without a model -------------------------------------------------------


@pytest.fixture
def stated(db):
    app, lib, other = (
        make_entity("Ledgerly", "software"),
        make_entity("Quillpack", "library"),
        make_entity("Inkstone", "library"),
    )
    facts = {
        "for": state(app, "uses", lib),
        "alpha_for": state(app, "uses", lib, scope="alpha", note=" in alpha"),
        "against": state(lib, "is used by", app, note=" (retracted)"),
        "against_beta": state(app, "uses", lib, scope="beta", note=" (beta, retracted)"),
        "elsewhere": state(app, "uses", other),
    }
    Fact.objects.filter(pk__in=[facts["against"].pk, facts["against_beta"].pk]).update(
        status="retracted"
    )
    edges_rebuild()
    return {"app": app, "lib": lib, "facts": facts}


@pytest.mark.parametrize(
    ("reader", "supporting", "contradicting"),
    [
        (ScopeFilter(), ["for"], ["against"]),
        (ScopeFilter(scope="alpha"), ["for", "alpha_for"], ["against"]),
        (ScopeFilter(scope="beta"), ["for"], ["against", "against_beta"]),
    ],
)
def test_validate_without_a_model_still_lists_the_readers_facts_for_and_against(
    stated, reader, supporting, contradicting
):
    facts = stated["facts"]
    answer = kge_validate(subject="Ledgerly", predicate="uses", obj="quillpack", scopes=reader)
    assert (answer["known"], answer["reason"]) == (False, "no trained model")
    assert answer["supporting_facts"] == sorted(facts[k].pk for k in supporting)
    assert answer["contradicting_facts"] == sorted(facts[k].pk for k in contradicting)
    # Asked the other way round, the same facts answer.
    inverse = kge_validate(
        subject="Quillpack", predicate="is used by", obj="Ledgerly", scopes=reader
    )
    assert inverse["inverse"] is True
    assert inverse["supporting_facts"] == answer["supporting_facts"]


def test_answers_without_a_model_say_so_and_bad_parameters_are_refused(stated):
    assert kge_infer_relation(head="Ledgerly", tail="Quillpack", top_k=3)["reason"] == (
        "no trained model"
    )
    assert kge_related(entity="Ledgerly", relation="uses")["reason"] == "no trained model"
    assert kge_related(entity="Nobody", relation="uses")["reason"] == "unknown entity"
    with pytest.raises(InvalidInput) as info:
        kge_infer_relation(head="Ledgerly", tail="Quillpack", top_k=0, top_k_field="k")
    assert info.value.field == "k"
    with pytest.raises(InvalidInput) as info:
        kge_related(entity="Ledgerly", relation="uses", direction="sideways")
    assert info.value.field == "direction"


# --- the entity graph -----------------------------------------------------------------------


@pytest.fixture
def star(db):
    """Hub uses three libraries (weights 1, 0.5, 0.25); one library is written in a
    language; a retracted fact links the hub to a fourth library."""
    hub = make_entity("Hubbard", "software")
    libs = [make_entity(n, "library") for n in ("Alder", "Birch", "Cedar", "Dogwood")]
    lang = make_entity("Ferrule", "language")
    for lib, confidence in zip(libs[:3], (1.0, 0.5, 0.25), strict=True):
        state(hub, "uses", lib, confidence=confidence)
    state(libs[0], "is written in", lang)
    gone = state(hub, "uses", libs[3])
    Fact.objects.filter(pk=gone.pk).update(status="retracted")
    mention, _ = entity_store(name="Hubbard", type="software")
    fact_link(fact=gone, entity=mention)
    edges_rebuild()
    return {"hub": hub, "libs": libs, "lang": lang}


def labels(graph: dict) -> list[str]:
    return [n["label"] for n in graph["nodes"]]


def test_the_graph_walks_breadth_first_strongest_first_without_retracted_facts(star):
    graph = entity_graph(entity_id=star["hub"].pk, depth=2)
    assert labels(graph) == ["Hubbard", "Alder", "Birch", "Cedar", "Ferrule"]
    assert [n["depth"] for n in graph["nodes"]] == [0, 1, 1, 1, 2]
    assert [e["weight"] for e in graph["edges"]] == [1.0, 1.0, 0.5, 0.25]
    # Importance is the weight of a node's edges over the heaviest node's.
    importance = {n["label"]: n["importance"] for n in graph["nodes"]}
    assert importance == {
        "Alder": 1.0,
        "Hubbard": 0.875,
        "Ferrule": 0.5,
        "Birch": 0.25,
        "Cedar": 0.125,
    }
    hub = graph["nodes"][0]
    # Three active facts; the retracted one still counts among the facts naming it.
    assert (hub["fact_count"], hub["mention_count"]) == (3, 4)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"depth": 1}, ["Hubbard", "Alder", "Birch", "Cedar"]),
        ({"depth": 2, "max_nodes": 2}, ["Hubbard", "Alder"]),
        ({"depth": 2, "min_weight": 0.5}, ["Hubbard", "Alder", "Birch", "Ferrule"]),
        ({"depth": 2, "types": ["language"]}, ["Hubbard"]),
        ({"depth": 2, "types": ["library"]}, ["Hubbard", "Alder", "Birch", "Cedar"]),
    ],
)
def test_the_graph_honours_depth_size_weight_and_types(star, kwargs, expected):
    assert labels(entity_graph(entity_id=star["hub"].pk, **kwargs)) == expected


def test_a_type_filter_finds_a_light_neighbour_behind_many_heavy_ones(db):
    """The walk read the heaviest max_nodes x 20 edges, then kept the asked types: a
    company's town, behind forty heavier edges to its staff, was not in its graph of
    places."""
    hub = make_entity("Kestrel Works", "organisation")
    town = make_entity("Tarnby", "place")
    state(hub, "is located in", town, confidence=0.5)
    for i in range(41):
        state(make_entity(f"Worker {i}", "person"), "works for", hub)
    edges_rebuild()
    graph = entity_graph(entity_id=hub.pk, types=["place"], max_nodes=2)
    assert labels(graph) == ["Kestrel Works", "Tarnby"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"depth": 0}, "depth"), ({"depth": 4}, "depth"), ({"max_nodes": 0}, "max_nodes")],
)
def test_out_of_range_graph_requests_name_the_field(star, kwargs, field):
    with pytest.raises(InvalidInput) as info:
        entity_graph(entity_id=star["hub"].pk, **kwargs)
    assert info.value.field == field


def test_the_graph_of_an_unknown_entity_is_not_found(db):
    with pytest.raises(NotFound):
        entity_graph(entity_id="nobody000000")


# --- the training set-up --------------------------------------------------------------------


def test_triples_list_symmetric_edges_both_ways_and_keep_to_the_view(db):
    a, b, c = (make_entity(n, "software") for n in ("Arvo", "Brisk", "Cindle"))
    state(a, "competes with", b)
    state(a, "uses", c, scope="alpha")
    edges_rebuild()
    glob = graph_triples()
    assert len(glob.triples) == 3  # the symmetric edge twice, alpha's fact too
    only_global = graph_triples(ScopeFilter())
    assert only_global.relation_names == ["alternative_to"]
    assert sorted(map(tuple, only_global.triples.tolist())) == [(0, 0, 1), (1, 0, 0)]
    assert only_global.entity_ids == [a.pk, b.pk]  # in name order


def test_a_relation_with_one_tail_per_head_is_functional(db):
    people = [make_entity(f"Person {i}", "person") for i in range(4)]
    towns = [make_entity(n, "place") for n in ("Arlen", "Brom")]
    for i, p in enumerate(people):
        state(p, "was born in", towns[i % 2])
        state(p, "lives in", towns[0])
    state(people[0], "lives in", towns[1])
    edges_rebuild()
    assert graph_triples().functional == {"born_in": True, "located_in": False}


# Graph triples as edges give them: no entity related to itself, no triple twice.
triples = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 2), st.integers(0, 6)).filter(
        lambda row: row[0] != row[2]
    ),
    min_size=2,
    max_size=40,
    unique=True,
).map(lambda rows: np.asarray(rows, dtype=np.int64))
NO_FIXTURE_CHECK = [HealthCheck.function_scoped_fixture]


@given(triples, st.sampled_from([0.1, 0.3]), st.integers(0, 5))
@settings(max_examples=50, deadline=None, suppress_health_check=NO_FIXTURE_CHECK)
def test_held_out_triples_are_a_part_whose_entities_stay_in_training(rows, fraction, seed):
    train, valid = split_triples(rows, fraction, seed)
    assert len(train) + len(valid) == len(rows)
    assert sorted(map(tuple, np.vstack([train, valid]).tolist())) == sorted(
        map(tuple, rows.tolist())
    )
    known = set(train[:, 0]) | set(train[:, 2])
    for h, _r, t in valid:
        assert h in known and t in known


@given(
    st.lists(st.floats(-3, 0), min_size=5, max_size=30),
    st.lists(st.floats(-9, -4), min_size=5, max_size=30),
)
@settings(max_examples=40, deadline=None, suppress_health_check=NO_FIXTURE_CHECK)
def test_calibration_separates_true_triples_from_corruptions(pos, neg):
    cut = calibrate(np.array(pos), np.array(neg))
    assert cut["accuracy"] == 1.0  # the two sets do not overlap
    assert min(neg) < cut["valid"] <= max(pos) + 1e-9 or cut["a"] <= 0
    assert cut["unlikely"] <= cut["valid"]


def test_too_few_triples_fail_the_run_with_the_reason_and_nothing_answers(db):
    a, b = make_entity("Arvo", "software"), make_entity("Brisk", "library")
    state(a, "uses", b)
    edges_rebuild()
    run = kge_train(config={"dim": 8, "epochs": 5})
    assert (run.status, run.good) == ("failed", False)
    assert f"at least {MIN_TRIPLES}" in run.error and run.triple_count == 1
    assert kge_validate(subject="Arvo", predicate="uses", obj="Brisk")["reason"] == (
        "no trained model"
    )


def test_a_queued_run_no_longer_training_is_not_trained_again(db):
    row = kge_start(config={"dim": 8})
    KGEModel.objects.filter(pk=row.pk).update(status="failed", error="stopped")
    assert kge_train_task(row.pk) == row.pk
    row.refresh_from_db()
    assert (row.status, row.error) == ("failed", "stopped")
    kge_index(model_id=10**9)  # a model deleted meanwhile: nothing to index, no error


# --- with a small trained model ---------------------------------------------------------------


def test_a_trained_model_answers_within_memorys_verdicts(db, vector_dir):
    """Six people each born in one town (a functional relation), working at three firms
    that compete with each other (symmetric)."""
    towns = [make_entity(n, "place") for n in ("Arlen", "Brom", "Cask")]
    firms = [make_entity(n, "organisation") for n in ("Delve", "Eskar", "Fenn")]
    people = [make_entity(f"Person {i}", "person") for i in range(6)]
    born = {}
    for i, person in enumerate(people):
        born[i] = state(person, "was born in", towns[i % 3])
        state(person, "works for", firms[i % 3])
    state(firms[0], "competes with", firms[1])
    state(firms[1], "competes with", firms[2])
    edges_rebuild()
    run = kge_train(config={"dim": 16, "epochs": 60, "seed": 1, "eval_every": 10})
    assert run.good and run.metrics["functional"]["born_in"] is True

    # Born elsewhere: the stored birthplace speaks against it, whatever the model says.
    wrong = kge_validate(subject="Person 0", predicate="born in", obj="Brom")
    assert wrong["known"] is True and wrong["contradicting_facts"] == [born[0].pk]
    assert wrong["validation"] == "contradicted"
    right = kge_validate(subject="Person 0", predicate="born in", obj="Arlen")
    assert (right["supporting_facts"], right["contradicting_facts"]) == ([born[0].pk], [])

    # A symmetric relation scores the same whichever way it is asked.
    ab = kge_validate(subject="Delve", predicate="competes with", obj="Eskar")
    ba = kge_validate(subject="Eskar", predicate="is an alternative to", obj="Delve")
    assert ab["transe_score"] == ba["transe_score"] and ab["supporting_facts"]

    # Related entities keep to the type asked and to the minimum confidence.
    related = kge_related(
        entity="Person 0", relation="born in", entity_type="place", top_k=3, min_score=0.2
    )
    assert related["known"] is True and related["results"]
    assert {r["type"] for r in related["results"]} == {"place"}
    assert all(r["confidence"] >= 0.2 for r in related["results"])


def test_a_failed_run_is_recorded_and_the_last_good_model_keeps_answering(
    db, vector_dir, monkeypatch
):
    people = [make_entity(f"Person {i}", "person") for i in range(6)]
    towns = [make_entity(n, "place") for n in ("Arlen", "Brom")]
    for i, person in enumerate(people):
        state(person, "was born in", towns[i % 2])
        state(person, "knows", people[(i + 1) % 6])
    edges_rebuild()
    good = kge_train(config={"dim": 8, "epochs": 20, "seed": 2, "eval_every": 10})
    assert kge.model_current().id == good.pk

    def broken(*args, **kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(graph_services, "train_transe", broken)
    with pytest.raises(RuntimeError):
        kge_train(config={"dim": 8, "epochs": 20})
    failed = KGEModel.objects.exclude(pk=good.pk).get()
    assert (failed.status, failed.good) == ("failed", False)
    assert "RuntimeError: out of memory" in failed.error
    assert kge.model_current().id == good.pk
    assert kge_validate(subject="Person 0", predicate="born in", obj="Arlen")["model"] == good.pk
