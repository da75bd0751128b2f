"""A small synthetic company graph, stored through the services (edges come from facts)."""

from __future__ import annotations

import pytest

from entities.graph import kge
from entities.models import Entity
from entities.services import entity_create, fact_store


def make_entity(name: str, entity_type: str) -> Entity:
    return entity_create(name=name, type=entity_type, actor=None)


def state(subject: Entity, predicate: str, obj: Entity, *, text: str = "", **extra):
    """A fact stating the triple; ``text`` tells apart facts stating the same one."""
    text = text or f"{subject.canonical_name} {predicate.replace('_', ' ')} {obj.canonical_name}"
    return fact_store(
        text=text, subject=subject, predicate=predicate, object_entity=obj, **extra
    ).fact


@pytest.fixture(autouse=True)
def _fresh_model(vector_dir):
    """No model loaded from another test; a fresh vector directory."""
    kge.model_forget()
    yield
    kge.model_forget()
