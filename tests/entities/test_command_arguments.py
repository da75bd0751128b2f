"""The entities' management commands given wrong arguments: one readable line, a
non-zero exit, nothing written; and what they print when all is well."""

from __future__ import annotations

import sqlite3
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command, get_commands, load_command_class

from entities import services
from entities.graph.models import KGEModel
from entities.models import Alias, DuplicateSuggestion, Entity, Fact
from tests.commands import command_fails

pytestmark = pytest.mark.django_db


def counts() -> tuple[int, ...]:
    return tuple(
        m.objects.count() for m in (Entity, Alias, Fact, User, KGEModel, DuplicateSuggestion)
    )


def fails(*args: str) -> str:
    before = counts()
    message = command_fails(*args)
    assert counts() == before, "a failed command wrote to the database"
    return message


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("train_kge", "--no-progress", "--dim", "1"), "--dim must be between 8 and 512"),
        (("train_kge", "--no-progress", "--dim", "4"), "--dim must be between 8 and 512"),
        (("train_kge", "--no-progress", "--dim", "100000"), "--dim must be between 8 and 512"),
        (("train_kge", "--no-progress", "--epochs", "0"), "--epochs must be between 1 and 2000"),
        (("train_kge", "--no-progress", "--epochs", "-3"), "--epochs must be between 1 and 2000"),
        (("train_kge", "--no-progress", "--dim", "abc"), "invalid int value: 'abc'"),
        (("train_kge", "--no-progress", "--seed", "-1"), "--seed must be between 0 and"),
        (("train_kge", "--no-progress", "--scope", "a", "--all-scopes"), "not allowed with"),
        (("mcp_serve", "--user", "nobody"), "--user: no user 'nobody'"),
        (("mcp_serve", "--http", "--port", "-1"), "--port must be between 1 and 65535"),
        (("mcp_serve", "--http", "--port", "70000"), "--port must be between 1 and 65535"),
        (("mcp_serve", "--scope", "x" * 200), "scope"),
        (("seed_demo", "--username", "", "--no-books"), "--username ''"),
        (("seed_demo", "--username", "two words", "--no-books"), "--username 'two words'"),
        (("seed_demo", "--password", " ", "--no-books"), "--password must not be empty"),
        (("entity_get", "Redis", "--type", "Tech\x01"), "control characters"),
        (("entity_get", "Redis", "--scope", "x" * 200), "scope"),
        (("find_duplicates", ""), "no entity with id ''"),
        (("find_duplicates", "--frobnicate"), "unrecognized arguments: --frobnicate"),
    ],
    ids=lambda value: "-".join(value[:2]) if isinstance(value, tuple) else None,
)
def test_wrong_arguments_are_one_line_and_write_nothing(vector_dir, args, says):
    assert says in fails(*args)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["mcp_serve", "--user", "nobody"], "CommandError: --user: no user 'nobody'"),
        (["train_kge", "--no-progress", "--epochs", "0"], "CommandError: --epochs must be"),
        (["seed_demo", "--username", ""], "CommandError: --username ''"),
    ],
)
def test_the_command_line_exits_non_zero_with_that_line(vector_dir, capsys, argv, says):
    command = load_command_class(get_commands()[argv[0]], argv[0])
    with pytest.raises(SystemExit) as caught:
        command.run_from_argv(["manage.py", *argv])
    assert caught.value.code not in (0, None)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(says), lines


# --- what they print when all is well -------------------------------------------------------------


def test_entity_get_prints_the_entity_or_no_entity_with_suggestions(vector_dir):
    redis, _ = services.entity_store(name="Redis", type="technology")
    services.alias_add(entity=redis, alias="Remote Dictionary Server")
    services.fact_store(text="Redis keeps sessions", entities=[redis])
    assert run("entity_get", "remote dictionary server").splitlines() == [
        f"Redis [technology] id={redis.pk} (via alias)",
        "aliases: Remote Dictionary Server",
        "facts: 1",
    ]
    assert run("entity_get", "REDIS", "--type", "Technology").startswith("Redis [technology]")
    missing = run("entity_get", "Rediss").splitlines()
    assert missing[0] == "no entity"
    assert missing[1:] == [] or missing[1].startswith("did you mean: Redis")
    assert run("entity_get", "Nothing Like It") == "no entity\n"


def test_entity_get_lists_every_type_of_an_ambiguous_name(vector_dir):
    services.entity_store(name="Mercury", type="planet")
    services.entity_store(name="Mercury", type="element")
    line = run("entity_get", "mercury").strip()
    assert line.startswith("ambiguous: ")
    assert "[element]" in line and "[planet]" in line


def test_entity_get_keeps_another_projects_facts_out(vector_dir):
    kafka, _ = services.entity_store(name="Kafka", type="technology")
    services.fact_store(text="Kafka keeps alpha events", entities=[kafka], scope="alpha")
    services.fact_store(text="Kafka keeps beta events", entities=[kafka], scope="beta")
    assert "facts: 0" in run("entity_get", "Kafka")
    assert "facts: 1" in run("entity_get", "Kafka", "--scope", "alpha")
    assert "facts: 2" in run("entity_get", "Kafka", "--all-scopes")


def test_a_second_seed_with_another_user_adds_only_the_user(vector_dir):
    run("seed_demo", "--no-books")
    before = counts()
    out = run("seed_demo", "--no-books", "--username", "second", "--password", "pw-2")
    assert "Sample data already loaded: nothing added." in out
    assert "Demo curator: username 'second', password 'pw-2'" in out
    assert User.objects.get(username="second").check_password("pw-2")
    assert counts()[3] == before[3] + 1 and counts()[:3] == before[:3]


def test_find_duplicates_reports_the_pair_once(vector_dir):
    a, _ = services.entity_store(name="Marguerite Okonkwo", type="person")
    b, _ = services.entity_store(name="Marguerite Okonkwo-Eze", type="person")
    first = run("find_duplicates").strip()
    assert first.startswith("duplicate scan ") and "pairs found" in first
    again = run("find_duplicates", a.pk, b.pk).strip()
    assert ", 0 new," in again
    assert DuplicateSuggestion.objects.count() == int(first.split(": ")[1].split(" ")[0])


def test_rebuild_commands_say_how_many_rows_they_wrote(vector_dir):
    for name in ("Redis", "Django"):
        services.entity_store(name=name, type="technology")
    services.fact_store(text="Django caches pages in Redis")
    assert run("rebuild_fulltext") == "full-text index rebuilt: 1 facts\n"
    rows = int(run("rebuild_name_index").split()[0])
    assert rows >= 2
    assert run("rebuild_name_index") == f"{rows} name index rows\n"  # idempotent


def test_import_entity_kg_refuses_a_database_of_another_shape(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    assert "not an entity store" in fails("import_entity_kg", str(path))
    assert "is not a file" in fails("import_entity_kg", str(tmp_path))
