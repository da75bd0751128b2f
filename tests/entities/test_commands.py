from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from entities.models import Alias, Entity, Fact
from entities.services import alias_add, entity_store
from tests.commands import command_fails

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


def test_entity_get_finds_an_entity_by_its_imported_id_in_words_too():
    """The --json payload had it (match external_id); the words said "no entity"."""
    from entities.models import ExternalEntityId

    mill = entity_store(name="Quarry Dell Mill", type="place")[0]
    ExternalEntityId.objects.create(store="old-memory", external_id="place-17", entity=mill)
    assert json.loads(run("entity_get", "place-17", "--json"))["match"] == "external_id"
    said = run("entity_get", "place-17")
    assert said.startswith(f"Quarry Dell Mill [place] id={mill.pk} (via external_id)"), said


def test_a_blank_type_is_no_filter_as_an_empty_one(api):
    """``--type "   "`` (a script's empty variable, quoted) looked among untyped
    entities only and said "no entity" for a stored one."""
    pg = entity_store(name="PostgreSQL", type="software")[0]
    printed = json.loads(run("entity_get", "PostgreSQL", "--type", "   ", "--json"))
    assert printed["entity"]["id"] == pg.id
    answer = api.get("/api/v1/entities/lookup", {"name": "PostgreSQL", "type": "  "}).json()
    assert answer["entity"]["id"] == pg.id


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
    assert out.startswith("Sample data loaded:") and "8 facts, 2 books" in out
    assert Fact.objects.count() >= 5
    from django.contrib.auth.models import User

    assert User.objects.get(username="curator").has_perm("entities.curate")
    from books.models import Mention

    blinded = Mention.objects.filter(entity__name_norm="blinded")
    assert blinded.filter(mention_type="defines").count() == 1
    assert blinded.filter(mention_type="references").exists()  # spells mention it


def _seeded_state() -> dict:
    from books.models import Book, IngestJob

    return {
        "entities": Entity.objects.count(),
        "aliases": Alias.objects.count(),
        "facts": list(Fact.objects.order_by("id").values_list("id", "confirmations", "confidence")),
        "books": list(Book.objects.order_by("id").values_list("id", "content_hash")),
        "jobs": IngestJob.objects.count(),
    }


def test_seed_demo_a_second_run_adds_nothing():
    """``make run`` seeds on every start: no more jobs, books, facts or confirmations."""
    run("seed_demo")
    first = _seeded_state()
    again = run("seed_demo")
    assert _seeded_state() == first
    assert again.splitlines() == [
        "Sample data already loaded: nothing added.",
        "Demo curator 'curator' already exists (password unchanged)",
    ]


def test_seed_demo_completes_a_partial_seed_and_keeps_retractions():
    run("seed_demo", "--no-books")
    from books.models import Book

    assert Book.objects.count() == 0
    retracted = Fact.objects.order_by("id").first()
    Fact.objects.filter(pk=retracted.pk).update(status=Fact.Status.RETRACTED)
    facts = Fact.objects.count()
    out = run("seed_demo")
    assert Book.objects.count() == 2 and "2 books" in out and "0 facts" in out
    assert Fact.objects.count() == facts  # the retracted sample fact is not stored again
    assert Fact.objects.get(pk=retracted.pk).status == Fact.Status.RETRACTED


def test_load_gazetteer_problems_are_one_readable_line(tmp_path):
    with pytest.raises(CommandError, match="is a directory"):
        run("load_gazetteer", str(tmp_path))
    latin1 = tmp_path / "latin1.tsv"
    latin1.write_bytes("Müller\tm1\tperson\nStraße\ts1\tplace\n".encode("latin-1"))
    with pytest.raises(CommandError) as info:
        run("load_gazetteer", str(latin1))
    message = str(info.value)
    assert "latin1.tsv:1: not UTF-8" in message and "\n" not in message
    late = tmp_path / "late.tsv"
    late.write_bytes(b"ok\tk1\tthing\nalso ok\tk2\tthing\nbad \xff\tk3\tthing\n")
    with pytest.raises(CommandError, match=r"late\.tsv:3: not UTF-8"):
        run("load_gazetteer", str(late))
    assert Entity.objects.count() == 0


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("good\tg\tthing\n\tk\tthing\n", r"bad\.tsv:2: surface_form must not be empty"),
        ("good\tg\tthing\nname\t\tthing\n", r"bad\.tsv:2: canonical_id is empty"),
        ("good\tg\tthing\nbell\x07\tk\tthing\n", r"bad\.tsv:2: surface_form contains control"),
        ("good\tg\tthing\nzero\u200bwidth\tk\tthing\n", r"bad\.tsv:2: .*U\+200B"),
        ("Go\tgo\tlang\nGO\tgame\tlang\n", r"bad\.tsv:2: 'GO' already names 'go' \(line 1\)"),
    ],
)
def test_load_gazetteer_names_the_bad_line_and_writes_nothing(tmp_path, rows, message):
    bad = tmp_path / "bad.tsv"
    bad.write_text(rows, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        run("load_gazetteer", str(bad))
    assert Entity.objects.count() == 0


@pytest.mark.parametrize(
    "content", ["", "\n\n", "surface_form\tcanonical_id\tentity_type\n", "# names\n"]
)
def test_load_gazetteer_of_a_file_without_rows_fails_saying_so(tmp_path, content):
    """An empty export (or the wrong file) is a mistake to report, not "0 created"."""
    empty = tmp_path / "names.tsv"
    empty.write_text(content, encoding="utf-8")
    message = command_fails("load_gazetteer", str(empty))
    assert "names.tsv: no rows to load" in message


def test_load_gazetteer_accepts_a_bom_and_quotes(tmp_path):
    file = tmp_path / "quotes.tsv"
    file.write_text('\ufeffThe "Boss"\tb1\tperson\nBruce\tb1\tperson\n', encoding="utf-8")
    run("load_gazetteer", str(file))
    entity = Entity.objects.get()
    assert entity.canonical_name == 'The "Boss"'
    assert list(entity.aliases.values_list("alias", flat=True)) == ["Bruce"]


@pytest.mark.django_db(transaction=True)
def test_load_gazetteer_queues_one_index_job_for_the_whole_file(monkeypatch):
    queued = []
    monkeypatch.setattr(
        "django_q.tasks.async_task", lambda func, *args, **kw: queued.append((func, args))
    )
    out = run("load_gazetteer", str(SAMPLE))
    assert "entities created" in out
    entity_jobs = [args for func, args in queued if args and args[0] == "entities"]
    assert len(entity_jobs) == 1
    assert set(entity_jobs[0][1]) == set(Entity.objects.values_list("pk", flat=True))
