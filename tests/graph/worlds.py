"""A graph spread over global memory and two projects, for the scope tests.

Every fact of project beta carries the marker ``Zorblat`` in its text, and beta alone
states the relation ``zorblats``: a reader of project alpha (or of global memory) must
never meet either, nor a beta fact id, nor a weight that counts beta's facts.
"""

from __future__ import annotations

from entities.graph import kge
from entities.graph.edges import edges_rebuild
from entities.graph.services import kge_train
from entities.models import Entity
from entities.scopes import ScopeFilter
from entities.services import entity_create, fact_store
from integrity.detection.classifier import CONTRADICTION, Verdict
from integrity.services import contradiction_store

MARKER = "Zorblat"
BETA_RELATION = "zorblats"
# The relation it is stored as (a lemma), which the marker check also catches.
STORED_RELATION = "zorblat"
TRAIN = {"dim": 16, "epochs": 40, "seed": 3, "eval_every": 10}


def _entity(name: str, entity_type: str) -> Entity:
    return entity_create(name=name, type=entity_type, actor=None)


def _state(subject, predicate, obj, scope, note=""):
    text = f"{subject.canonical_name} {predicate} {obj.canonical_name}{note}"
    return fact_store(
        text=text, subject=subject, predicate=predicate, object_entity=obj, scope=scope
    ).fact


def scoped_world(*, train: bool = True) -> dict:
    cities = [_entity(n, "place") for n in ("Tarnholm", "Ulmvik", "Wexford Reach")]
    companies = [_entity(n, "organisation") for n in ("Ostravel", "Pellucine", "Vexmoor")]
    people = {
        scope: [_entity(f"{prefix} {i}", "person") for i in range(n)]
        for scope, prefix, n in (("", "Quillon", 6), ("alpha", "Ardent", 4), ("beta", "Bramble", 4))
    }
    facts: dict[str, list] = {"": [], "alpha": [], "beta": []}
    for company, city in zip(companies, cities, strict=True):
        facts[""].append(_state(company, "is located in", city, ""))
    for i, person in enumerate(people[""]):
        facts[""].append(_state(person, "works for", companies[i % 3], ""))
    for i, person in enumerate(people["alpha"]):
        facts["alpha"].append(_state(person, "works for", companies[i % 2], "alpha"))
        facts["alpha"].append(_state(person, "is a member of", companies[2], "alpha"))
    note = f" ({MARKER} record)"
    for i, person in enumerate(people["beta"]):
        facts["beta"].append(_state(person, "works for", companies[(i + 1) % 3], "beta", note))
        facts["beta"].append(_state(person, "lives in", cities[i % 3], "beta", note))
    # Beta's view of alpha's people and global people: its own edges between them.
    shared = people["alpha"][0]
    facts["beta"].append(_state(shared, "works for", companies[0], "beta", note))
    facts["beta"].append(_state(people[""][0], BETA_RELATION, companies[1], "beta", note))
    facts["beta"].append(_state(shared, BETA_RELATION, companies[2], "beta", note))
    edges_rebuild()
    models = {}
    if train:
        models["global"] = kge_train(config=TRAIN)
        models["alpha"] = kge_train(config=TRAIN, scopes=ScopeFilter(scope="alpha"))
        models["all"] = kge_train(config=TRAIN, scopes=ScopeFilter(all_scopes=True))
    return {
        "cities": cities,
        "companies": companies,
        "people": people,
        "facts": facts,
        "shared": shared,
        "models": models,
        "beta_ids": {f.pk for f in facts["beta"]},
    }


ID_LISTS = ("fact_ids", "facts", "supporting_facts", "contradicting_facts", "found_in_memories")


def fact_ids_in(body) -> set[int]:
    """Every fact id an answer names: id lists (edge fact ids, supports, memories), rows
    of a ``facts`` or ``results`` list, and path steps of type fact."""
    found: set[int] = set()
    stack = [(body, "")]
    while stack:
        node, key = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "fact" and isinstance(node.get("id"), int):
                found.add(node["id"])
            if key in ("facts", "results", "fact_texts") and isinstance(node.get("id"), int):
                found.add(node["id"])
            stack.extend((v, k) for k, v in node.items())
        elif isinstance(node, list):
            for v in node:
                if isinstance(v, int) and not isinstance(v, bool) and key in ID_LISTS:
                    found.add(v)
                stack.append((v, key))
    return found


def scoped_world_with_contradiction() -> dict:
    """``scoped_world`` plus a contradiction between two of beta's facts: a notification
    that only beta's readers may see."""
    kge.model_forget()
    built = scoped_world()
    beta = built["facts"]["beta"]
    contradiction_store(
        fact_a=beta[0], fact_b=beta[2], verdict=Verdict(CONTRADICTION, "value", 0.99, "x")
    )
    return built
