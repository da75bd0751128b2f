"""export_graph / import_graph keep what curators and agents built beyond the entity,
fact and book rows: confirmations (with the statements they swallowed), merges with
their undo and the redirects of merged-away ids, dismissed duplicate pairs, imported
memories' ids, agents' episodes, and the graph's edges. An export that dropped them
would bring back dismissed pairs, break old ids and lose the evidence undo needs."""

from __future__ import annotations

import importlib
import io

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import User
from django.core.management import call_command

from entities.graph.models import Edge, Relation
from entities.models import (
    DuplicateSuggestion,
    Entity,
    EntityMerge,
    EntityRedirect,
    ExternalEntityId,
    ExternalFactLink,
    Fact,
    FactConfirmation,
)
from entities.recall.models import Episode
from entities.recall.services import episode_store
from entities.selectors import entity_redirect_target
from entities.services import entity_merge, entity_store, fact_store
from kgsite.graph_io import graph_models

pytestmark = pytest.mark.django_db(transaction=True)
seed_relations = importlib.import_module(
    "entities.migrations.0011_graph_relations_edges_kge_models"
).seed_relations

HISTORY = [
    FactConfirmation,
    EntityMerge,
    EntityRedirect,
    DuplicateSuggestion,
    ExternalEntityId,
    ExternalFactLink,
    Episode,
]


@pytest.fixture
def built(curator, settings, tmp_path):
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    ada, _ = entity_store(name="Ada Lovelace", type="person")
    engine, _ = entity_store(name="Analytical Engine", type="machine")
    fact = fact_store(
        text="Ada Lovelace wrote about the Analytical Engine.",
        subject=ada,
        predicate="wrote about",
        object_entity=engine,
        actor=curator,
    ).fact
    fact_store(text="ada lovelace wrote about the analytical engine", source="notes")
    twin, _ = entity_store(name="Augusta Ada King", type="person")
    entity_merge(survivor=ada, duplicates=[twin], actor=curator)
    other, _ = entity_store(name="Charles Babbage", type="person")
    DuplicateSuggestion.objects.create(
        pair_key="|".join(sorted([ada.pk, other.pk])),
        entity_a=ada,
        entity_b=other,
        score=0.4,
        status="dismissed",
    )
    ExternalEntityId.objects.create(store="old-memory", external_id="e-7", entity=ada)
    ExternalFactLink.objects.create(store="old-memory", external_id="f-9", entity=ada, fact=fact)
    episode = episode_store(narrative="Read the notes on the Engine", scope="")
    return {"ada": ada, "twin_id": twin.pk, "fact": fact, "episode": episode}


def _counts() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in [*HISTORY, Edge]}


def test_every_table_of_history_is_exported(built):
    labels = {m._meta.label for m in graph_models()}
    assert {m._meta.label for m in HISTORY} <= labels


def test_history_survives_the_round_trip(built, tmp_path):
    before = _counts()
    assert all(before.values()), before
    episode_entities = sorted(built["episode"].entities.values_list("pk", flat=True))
    path = tmp_path / "graph.jsonl"
    call_command("export_graph", str(path), verbosity=0, stdout=io.StringIO())
    for model in [*reversed(graph_models()), *HISTORY, Edge]:  # a new, empty database
        model.objects.all().delete()
    User.objects.all().delete()

    call_command("import_graph", str(path), verbosity=0, stdout=io.StringIO())
    assert _counts() == before
    # the merged-away id still finds the survivor; a dismissed pair stays dismissed
    assert entity_redirect_target(entity_id=built["twin_id"]) == built["ada"].pk
    assert DuplicateSuggestion.objects.get().status == "dismissed"
    confirmation = FactConfirmation.objects.get()
    assert confirmation.fact_id == built["fact"].pk and confirmation.source == "notes"
    assert not EntityMerge.objects.get().undone_at
    episode = Episode.objects.get()
    assert sorted(episode.entities.values_list("pk", flat=True)) == episode_entities
    assert Fact.objects.filter(pk=built["fact"].pk, status="active").exists()
    assert Entity.objects.filter(pk=built["ada"].pk).exists()


def test_new_history_rows_after_an_import_get_new_ids(built, tmp_path):
    """PostgreSQL's sequences are moved past the imported ids for these tables too."""
    path = tmp_path / "graph.jsonl"
    call_command("export_graph", str(path), verbosity=0, stdout=io.StringIO())
    old = {m: max(m.objects.values_list("pk", flat=True)) for m in (EntityMerge, Episode)}
    for model in [*reversed(graph_models()), *HISTORY, Edge]:
        model.objects.all().delete()
    User.objects.all().delete()
    call_command("import_graph", str(path), verbosity=0, stdout=io.StringIO())

    first, _ = entity_store(name="Mary Somerville", type="person")
    second, _ = entity_store(name="Mary Fairfax", type="person")
    merge = entity_merge(survivor=first, duplicates=[second], actor=None).merge
    episode = episode_store(narrative="Compared two biographies", scope="")
    assert merge.pk > old[EntityMerge] and episode.pk > old[Episode]


def test_a_freshly_migrated_database_with_its_seeded_relations_takes_an_import(built, tmp_path):
    """Migrations seed the relation vocabulary: those rows do not make a new database
    "not empty", and the imported facts' edges are rebuilt onto them."""
    path = tmp_path / "graph.jsonl"
    call_command("export_graph", str(path), verbosity=0, stdout=io.StringIO())
    edges = sorted(Edge.objects.values_list("head_id", "relation__name", "tail_id"))
    for model in [*reversed(graph_models()), *HISTORY, Edge]:
        model.objects.all().delete()
    User.objects.all().delete()
    seed_relations(django_apps, None)  # what migrate leaves in a new database
    assert Relation.objects.exists()

    call_command("import_graph", str(path), verbosity=0, stdout=io.StringIO())
    assert sorted(Edge.objects.values_list("head_id", "relation__name", "tail_id")) == edges


def test_rebuild_edges_gives_the_same_edges_and_says_from_how_many_facts(built):
    edges = sorted(Edge.objects.values_list("head_id", "relation__name", "tail_id", "weight"))
    out = io.StringIO()
    call_command("rebuild_edges", stdout=out)
    assert out.getvalue().strip() == "edges rebuilt from 1 facts"
    assert sorted(Edge.objects.values_list("head_id", "relation__name", "tail_id", "weight")) == (
        edges
    )
