from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from entities.models import Alias, Entity, Fact
from entities.services import alias_add, entity_store

pytestmark = pytest.mark.django_db
SAMPLE = Path(__file__).parent.parent.parent / "data" / "sample" / "tech_entity_kb.tsv"


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_entity_get_json_is_the_api_payload(api):
    pg, _ = entity_store(name="PostgreSQL", type="database")
    alias_add(entity=pg, alias="postgres")
    printed = json.loads(run("entity_get", "POSTGRES", "--json"))
    assert printed == api.get("/api/v1/entities/lookup", {"name": "POSTGRES"}).json()
    assert printed["entity"]["id"] == pg.id


def test_entity_get_human_output_and_none():
    entity_store(name="PostgreSQL", type="database")
    assert "PostgreSQL [database]" in run("entity_get", "postgresql")
    assert run("entity_get", "Oracle").startswith("no entity")


def test_entity_get_empty_name_fails_with_one_line():
    with pytest.raises(CommandError, match="must not be empty"):
        run("entity_get", "   ")


def test_load_gazetteer_is_idempotent():
    first = run("load_gazetteer", str(SAMPLE))
    counts = (Entity.objects.count(), Alias.objects.count())
    second = run("load_gazetteer", str(SAMPLE))
    assert (Entity.objects.count(), Alias.objects.count()) == counts
    assert counts[0] > 50 and counts[1] > 20
    assert "0 entities created, 0 aliases created" in second and first != second
    k8s = Entity.objects.get(aliases__alias_norm="k8s")
    assert (k8s.canonical_name, k8s.type) == ("kubernetes", "cloud")


def test_load_gazetteer_missing_file_and_bad_rows(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        run("load_gazetteer", str(tmp_path / "missing.tsv"))
    bad = tmp_path / "bad.tsv"
    bad.write_text("surface_form\tcanonical_id\tentity_type\nonly-one-column\n")
    with pytest.raises(CommandError, match="bad.tsv:2"):
        run("load_gazetteer", str(bad))
    assert Entity.objects.count() == 0


def test_seed_demo_creates_a_curator_and_sample_data():
    out = run("seed_demo")
    assert "password 'curator-demo'" in out
    assert Fact.objects.count() >= 5
    again = run("seed_demo")
    assert "0 sample facts stored" in again
    from django.contrib.auth.models import User

    assert User.objects.get(username="curator").has_perm("entities.curate")
    from books.models import Book, Mention

    assert Book.objects.count() == 2  # re-running skipped the unchanged books
    blinded = Mention.objects.filter(entity__name_norm="blinded")
    assert blinded.filter(mention_type="defines").count() == 1
    assert blinded.filter(mention_type="references").exists()  # spells mention it
