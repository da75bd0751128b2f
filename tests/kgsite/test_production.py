"""The production profile passes Django's deployment checks as shipped."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _production_env(tmp_path) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kgsite.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "kgsite.example.org",
        "KGSITE_DATA_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    for local_override in ("KGSITE_SSL_REDIRECT", "DJANGO_DEBUG", "KGSITE_HSTS_SECONDS"):
        env.pop(local_override, None)
    return env


def test_check_deploy_is_clean_with_the_production_settings(tmp_path):
    env = _production_env(tmp_path)
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    assert "no issues" in done.stdout


def test_collectstatic_succeeds_with_the_production_storage(tmp_path):
    """`make prod` collects static files through WhiteNoise's manifest storage, which
    refuses a file that points at a missing one (a vendored script's source map did)."""
    done = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT, env=_production_env(tmp_path), capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    manifest = tmp_path / "staticfiles" / "staticfiles.json"
    assert "vendor/vis-network/vis-network.min.js" in manifest.read_text()


def test_the_production_profile_sends_a_content_security_policy(tmp_path):
    """Every page of the production profile carries the policy: scripts and styles from
    the site itself or nonced, nothing inline, no plugins, no framing."""
    script = (
        "import django; django.setup()\n"
        "from django.conf import settings\n"
        "from django.test import Client\n"
        "# No collectstatic here: plain static storage instead of the manifest.\n"
        "settings.STORAGES = {**settings.STORAGES, 'staticfiles': {'BACKEND':\n"
        "    'django.contrib.staticfiles.storage.StaticFilesStorage'}}\n"
        "for path in ('/accounts/login/', '/', '/api/v1/entities/'):\n"
        "    r = Client().get(path, secure=True, HTTP_HOST='kgsite.example.org')\n"
        "    print(path, r.status_code, r.headers.get('Content-Security-Policy', 'MISSING'))\n"
    )
    env = _production_env(tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 3
    for line in lines:
        assert "MISSING" not in line, line
        assert "default-src 'self'" in line and "script-src 'self'" in line
        assert "object-src 'none'" in line and "frame-ancestors 'none'" in line
        assert "unsafe-inline" not in line and "unsafe-eval" not in line
