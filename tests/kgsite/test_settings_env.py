"""Settings read from the environment: a value that is no number or no yes/no stops the
site with one line naming the variable, instead of a bare ``ValueError`` (which named
nothing) or, for a yes/no, silently meaning "no"."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from entities.recall.options import BOUNDS, TRIGGERS
from kgsite.settings.base import env_bool, env_float, env_int
from kgsite.settings.environ import env_choice, env_rate

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("read", "value", "expected"),
    [
        (env_int, "12", 12),
        (env_int, " 7 ", 7),
        (env_int, "-3", -3),
        (env_float, "0.25", 0.25),
        (env_float, "3", 3.0),
        (env_bool, "1", True),
        (env_bool, "Yes", True),
        (env_bool, " on ", True),
        (env_bool, "TRUE", True),
        (env_bool, "0", False),
        (env_bool, "off", False),
        (env_bool, "No", False),
        (env_bool, "", False),
    ],
)
def test_a_value_in_the_environment_is_read(monkeypatch, read, value, expected):
    monkeypatch.setenv("KGSITE_PROBE", value)
    assert read("KGSITE_PROBE", {env_int: 99, env_float: 9.5, env_bool: not expected}[read]) == (
        expected
    )


@pytest.mark.parametrize(
    ("read", "default"), [(env_int, 99), (env_float, 9.5), (env_bool, True), (env_bool, False)]
)
def test_an_unset_variable_is_the_default(monkeypatch, read, default):
    monkeypatch.delenv("KGSITE_PROBE", raising=False)
    assert read("KGSITE_PROBE", default) == default


@pytest.mark.parametrize(
    ("read", "value", "kind"),
    [
        (env_int, "lots", "a whole number"),
        (env_int, "1.5", "a whole number"),
        (env_int, "", "a whole number"),
        (env_int, "2 000", "a whole number"),
        (env_float, "fast", "a number"),
        (env_float, "0,5", "a number"),
        (env_float, "nan", "a finite number"),
        (env_float, "-inf", "a finite number"),
        (env_float, "Infinity", "a finite number"),
        (env_bool, "ture", "one of 1, true"),
        (env_bool, "enabled", "one of 1, true"),
        (env_bool, "2", "one of 1, true"),
    ],
)
def test_a_misread_value_is_one_line_naming_the_variable(monkeypatch, read, value, kind):
    monkeypatch.setenv("KGSITE_PROBE", value)
    with pytest.raises(ImproperlyConfigured) as caught:
        read("KGSITE_PROBE", 1)
    message = str(caught.value)
    assert message == f"KGSITE_PROBE must be {kind}" + message.split(kind, 1)[1]
    assert message.endswith(f"not {value!r}") and "\n" not in message


@pytest.mark.parametrize(
    ("variable", "value", "line"),
    [
        (
            "KGSITE_CHUNK_MAX_CHARS",
            "lots",
            "ImproperlyConfigured: KGSITE_CHUNK_MAX_CHARS must be a whole number, not 'lots'",
        ),
        (
            "KGSITE_LOGIN_COOLOFF_MINUTES",
            "inf",
            "ImproperlyConfigured: KGSITE_LOGIN_COOLOFF_MINUTES must be a finite number, not 'inf'",
        ),
        (
            "KGSITE_CHUNK_MAX_CHARS",
            "0",
            "ImproperlyConfigured: KGSITE_CHUNK_MAX_CHARS must be at least 1, not '0'",
        ),
        (
            "KGSITE_JOB_LEASE_SECONDS",
            "-30",
            "ImproperlyConfigured: KGSITE_JOB_LEASE_SECONDS must be at least 1, not '-30'",
        ),
        (
            "KGSITE_PROXY_COUNT",
            "-1",
            "ImproperlyConfigured: KGSITE_PROXY_COUNT must be at least 0, not '-1'",
        ),
        (
            "KGSITE_DUPLICATE_SIMILARITY",
            "90",
            "ImproperlyConfigured: KGSITE_DUPLICATE_SIMILARITY must be between 0 and 1, not '90'",
        ),
        (
            "KGSITE_Q_WORKERS",
            "0",
            "ImproperlyConfigured: KGSITE_Q_WORKERS must be at least 1, not '0'",
        ),
        (
            "KGSITE_TOKEN_FAILURE_WINDOW_SECONDS",
            "0",
            "ImproperlyConfigured: KGSITE_TOKEN_FAILURE_WINDOW_SECONDS must be at least 1, not '0'",
        ),
        (
            "KGSITE_PAIR_ENCODER",
            "mini-lm",
            "ImproperlyConfigured: KGSITE_PAIR_ENCODER must be one of none, use, minilm, "
            "not 'mini-lm'",
        ),
        (
            "KGSITE_RECALL_DISABLED",
            "session_start, pre-check",
            "ImproperlyConfigured: KGSITE_RECALL_DISABLED must be a comma list of "
            "session_start, pre_check, unknown, finding, domain, query, uncertainty, "
            "not 'pre-check'",
        ),
        (  # a lockout that has ended before it starts: no lockout at all
            "KGSITE_LOGIN_COOLOFF_MINUTES",
            "-15",
            "ImproperlyConfigured: KGSITE_LOGIN_COOLOFF_MINUTES must be at least 0.1, not '-15'",
        ),
        (  # every extraction and judgement call timed out at once
            "KGSITE_LLM_TIMEOUT",
            "0",
            "ImproperlyConfigured: KGSITE_LLM_TIMEOUT must be at least 0.001, not '0'",
        ),
        (
            "KGSITE_DB_BUSY_TIMEOUT",
            "-1",
            "ImproperlyConfigured: KGSITE_DB_BUSY_TIMEOUT must be at least 0.001, not '-1'",
        ),
        (
            "KGSITE_LOG_LEVEL",
            "verbose",
            "ImproperlyConfigured: KGSITE_LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, "
            "CRITICAL, not 'verbose'",
        ),
        (
            "KGSITE_THROTTLE_ANON",
            "60/fortnight",
            "ImproperlyConfigured: KGSITE_THROTTLE_ANON must be a rate such as 60/min (per s, "
            "min, hour or day), not '60/fortnight'",
        ),
        (
            "KGSITE_THROTTLE_SEARCH",
            "lots",
            "ImproperlyConfigured: KGSITE_THROTTLE_SEARCH must be a rate such as 60/min (per s, "
            "min, hour or day), not 'lots'",
        ),
        (
            "KGSITE_EXTRACTOR",
            "spacy",
            "ImproperlyConfigured: KGSITE_EXTRACTOR must be one of offline, llm, not 'spacy'",
        ),
        (
            "KGSITE_VECTOR_BACKEND",
            "faiss",
            "ImproperlyConfigured: KGSITE_VECTOR_BACKEND must be one of hnswlib, pgvector, "
            "not 'faiss'",
        ),
        (
            "KGSITE_RECALL_DOMAINS",
            '["auth", "api"]',
            "ImproperlyConfigured: KGSITE_RECALL_DOMAINS must be a JSON object of word lists "
            '({"auth": ["login"]}), not \'["auth", "api"]\'',
        ),
        (
            "KGSITE_RECALL_DOMAINS",
            "{auth: [login]}",
            "ImproperlyConfigured: KGSITE_RECALL_DOMAINS must be a JSON object of word lists "
            '({"auth": ["login"]}), not \'{auth: [login]}\'',
        ),
        (
            "KGSITE_PUBLIC_READ",
            "yess",
            "ImproperlyConfigured: KGSITE_PUBLIC_READ must be one of 1, true, yes, on, 0, "
            "false, no, off, not 'yess'",
        ),
    ],
)
def test_manage_py_stops_with_the_one_line_and_a_non_zero_exit(variable, value, line):
    assert _check({variable: value}) == [line]


def test_pgvector_without_postgresql_is_one_line_saying_what_to_set(tmp_path):
    lines = _check(
        {"KGSITE_VECTOR_BACKEND": "pgvector", "DATABASE_URL": f"sqlite:///{tmp_path}/kg.db"}
    )
    assert len(lines) == 1 and lines[0].startswith("ImproperlyConfigured: KGSITE_VECTOR_BACKEND")
    assert "DATABASE_URL=postgres://" in lines[0]


@pytest.mark.parametrize("secret", [None, "", "   "])
def test_production_without_a_secret_key_stops_with_one_line_saying_what_to_set(tmp_path, secret):
    variables = {"KGSITE_DATA_DIR": str(tmp_path)}
    if secret is not None:
        variables["DJANGO_SECRET_KEY"] = secret
    done = _run(
        variables,
        "manage.py",
        "check",
        settings_module="kgsite.settings.production",
        drop=() if secret is not None else ("DJANGO_SECRET_KEY",),
    )
    lines = [text for text in done.stderr.splitlines() if text.strip()]
    assert done.returncode != 0
    assert lines == [
        "ImproperlyConfigured: DJANGO_SECRET_KEY must be set: "
        "a long random string that signs sessions"
    ]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("", "''"),
        ("kgsite.sqlite3", "'kgsite.sqlite3'"),
        ("postgres://kg:hunter2@db:fivefour/kg", "'postgres://kg:***@db:fivefour/kg'"),
    ],
)
def test_a_database_url_that_is_no_url_is_one_line_without_its_password(url, shown):
    lines = _check({"DATABASE_URL": url})
    assert len(lines) == 1
    assert lines[0].startswith("ImproperlyConfigured: DATABASE_URL must be a database URL")
    assert lines[0].endswith(f"not {shown}") and "hunter2" not in lines[0]


@pytest.mark.parametrize(
    ("model_dir", "expected"),
    [
        ("", "kgsite.vectors.onnx.OnnxEmbedder"),
        ("some/other/model", "kgsite.vectors.embedder.SentenceTransformerEmbedder"),
    ],
)
def test_the_bundled_model_runs_on_onnx_by_default_and_another_on_sentence_transformers(
    model_dir, expected
):
    done = _run(
        {"KGSITE_EMBEDDING_MODEL_DIR": model_dir},
        "-c",
        "from django.conf import settings; print(settings.KGSITE_EMBEDDER)",
        settings_module="kgsite.settings.dev",
        drop=("KGSITE_EMBEDDER",),
    )
    assert done.stdout.strip() == expected


@pytest.mark.parametrize(("value", "expected"), [(" PGVector ", "pgvector"), ("", "hnswlib")])
def test_a_choice_is_read_in_any_case_and_blank_is_the_default(monkeypatch, value, expected):
    monkeypatch.setenv("KGSITE_PROBE", value)
    assert env_choice("KGSITE_PROBE", "hnswlib", ("hnswlib", "pgvector")) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [(" 60 / Min ", "60/min"), ("5/s", "5/s"), ("100/day", "100/day")]
)
def test_a_throttle_rate_is_read_with_spaces_and_any_case(monkeypatch, value, expected):
    """ "60 / min" made every throttled request a 500 (DRF read the period " min")."""
    monkeypatch.setenv("KGSITE_PROBE", value)
    assert env_rate("KGSITE_PROBE", "1/s") == expected


def test_a_log_level_in_lower_case_is_taken():
    """ "debug" stopped the site with "ValueError: Unable to configure root logger"."""
    done = _run(
        {"KGSITE_LOG_LEVEL": " debug "},
        "-c",
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.LOGGING['root']['level'])",
        settings_module="kgsite.settings.dev",
    )
    assert done.stdout.strip() == "DEBUG", done.stderr


def test_allowed_hosts_written_with_spaces_after_the_commas_are_the_hosts():
    """ "kg.example.org, localhost" kept " localhost", which no Host header matches: every
    request to localhost answered 400 Bad Request."""
    done = _run(
        {"DJANGO_ALLOWED_HOSTS": " kg.example.org, localhost ,,"},
        "-c",
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.ALLOWED_HOSTS)",
        settings_module="kgsite.settings.dev",
    )
    assert done.stdout.strip() == "['kg.example.org', 'localhost']", done.stderr


def _check(variables: dict[str, str]) -> list[str]:
    """``manage.py check`` with these variables: its exit must fail; its non-blank
    lines on standard error."""
    done = _run(variables, "manage.py", "check")
    assert done.returncode != 0
    return [text for text in done.stderr.splitlines() if text.strip()]


def _run(
    variables: dict[str, str],
    *args: str,
    settings_module: str = "kgsite.settings.test",
    drop: tuple[str, ...] = (),
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(variables, DJANGO_SETTINGS_MODULE=settings_module)
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_blank_redis_url_means_no_redis():
    """A REDIS_URL of spaces was taken as the broker's address: every job failed."""
    done = _run(
        {"REDIS_URL": "  "},
        "-c",
        "from django.conf import settings; print('redis' in settings.Q_CLUSTER)",
        settings_module="kgsite.settings.dev",
    )
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("read", "value", "kind"),
    [
        (env_float, "80", "between 0 and 1"),
        (env_float, "-0.1", "between 0 and 1"),
        (env_int, "2", "between 0 and 1"),
    ],
)
def test_a_value_outside_its_range_is_one_line_naming_the_range(monkeypatch, read, value, kind):
    """A cosine threshold of 80 (meant as a percentage) started the site, which then
    matched nothing, silently."""
    monkeypatch.setenv("KGSITE_PROBE", value)
    with pytest.raises(ImproperlyConfigured) as caught:
        read("KGSITE_PROBE", 0, low=0, high=1)
    assert str(caught.value) == f"KGSITE_PROBE must be {kind}, not {value!r}"


def _settings_read(monkeypatch, variable: str, value: str) -> None:
    """The shared settings module read afresh with ``variable`` set to ``value``."""
    monkeypatch.setenv(variable, value)
    runpy.run_path(str(ROOT / "kgsite" / "settings" / "base.py"))


def test_each_recall_default_is_held_to_the_bounds_a_request_may_ask_for(monkeypatch):
    """KGSITE_RECALL_MAX_FACTS=0 or 500 started the site; a request may ask only 1 to 20,
    so the default was one no client could set."""
    for setting, low, high in BOUNDS.values():
        integer = isinstance(high, int)
        for edge in (low, high):
            _settings_read(monkeypatch, setting, str(edge))
        for outside in (low - 1, high + 1) if integer else (low - 0.01, high + 0.01):
            with pytest.raises(ImproperlyConfigured) as caught:
                _settings_read(monkeypatch, setting, str(outside))
            assert str(caught.value).startswith(f"{setting} must be between {low} and {high}")
        monkeypatch.delenv(setting)


def test_the_triggers_settings_may_switch_off_are_recalls_triggers(monkeypatch):
    from kgsite.settings.base import RECALL_TRIGGERS

    assert set(RECALL_TRIGGERS) == set(TRIGGERS)
    _settings_read(monkeypatch, "KGSITE_RECALL_DISABLED", " Pre_Check ,domain")


def test_the_pair_encoders_settings_accept_are_the_pair_models(monkeypatch):
    from integrity.signals import ENCODERS
    from kgsite.settings.base import PAIR_ENCODERS

    assert set(PAIR_ENCODERS) == {"none", *ENCODERS}
    _settings_read(monkeypatch, "KGSITE_PAIR_ENCODER", " MiniLM ")


def test_a_blank_data_folder_is_the_default_not_the_working_directory(tmp_path):
    """KGSITE_DATA_DIR= (set but blank) put the database in whatever folder each process
    started in: the web server and the worker wrote two databases."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-c", _PRINT_DIRS],
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
            "KGSITE_DATA_DIR": " ",
            "KGSITE_VECTOR_DIR": "",
            "KGSITE_ONNX_DIR": "",
            "DJANGO_SETTINGS_MODULE": "kgsite.settings.dev",
        },
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    data, vectors, onnx, database = done.stdout.splitlines()[-1].split()
    assert data == str(ROOT / "var") and database.startswith(data)
    assert (vectors, onnx) == (str(ROOT / "var" / "vectors"), str(ROOT / "var" / "onnx"))
    assert list(tmp_path.iterdir()) == []


_PRINT_DIRS = (
    "from django.conf import settings as s; "
    "print(s.DATA_DIR, s.KGSITE_VECTOR_DIR, s.KGSITE_ONNX_DIR, s.DATABASES['default']['NAME'])"
)


@pytest.mark.parametrize("hosts", ["", " ", ", ,"])
def test_blank_allowed_hosts_are_the_default_hosts(monkeypatch, hosts):
    """DJANGO_ALLOWED_HOSTS set but blank (an empty line in a compose file) allowed no
    host: every request answered 400."""
    monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", hosts)
    read = runpy.run_path(str(ROOT / "kgsite" / "settings" / "base.py"))
    assert read["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost"]


def test_a_longer_job_timeout_moves_the_queues_retry_past_it():
    """KGSITE_Q_TIMEOUT raised for long books (as the books guide says) left the retry at
    3700 s: django-q2 warned at every start and handed a task still running after an hour
    to a second worker."""
    done = _run(
        {"KGSITE_Q_TIMEOUT": "7200"},
        "-c",
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.Q_CLUSTER['retry'] > settings.Q_CLUSTER['timeout'] == 7200)",
        settings_module="kgsite.settings.dev",
    )
    assert done.stdout.strip() == "True", done.stderr
    assert "misconfigured" not in done.stderr


def test_a_retry_within_the_timeout_stops_the_site_with_one_line():
    assert _check({"KGSITE_Q_TIMEOUT": "600", "KGSITE_Q_RETRY": "300"}) == [
        "ImproperlyConfigured: KGSITE_Q_RETRY must be above KGSITE_Q_TIMEOUT (600), not '300'"
    ]
