"""Test settings: the same database engines as production, fake-but-honest fast paths."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .base import *  # noqa: F403
from .base import DATABASES, Q_CLUSTER, REST_FRAMEWORK

SECRET_KEY = "test-secret"
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

_TMP = Path(tempfile.mkdtemp(prefix="kgsite-test-"))
KGSITE_VECTOR_DIR = _TMP / "vectors"

# A deterministic hashing embedder keeps unit tests fast; tests marked "slow" load the
# real bundled model explicitly.
KGSITE_EMBEDDER = "kgsite.vectors.embedder.HashingEmbedder"
# Recall's multilingual source is off (its weights load in seconds); recall's quality
# tests switch it on.
KGSITE_RECALL_CROSSLINGUAL = ""
# The pair model's head without an encoder, as deployed by default (the multilingual
# weights load in seconds); KGSITE_TEST_PAIR_ENCODER=use runs the suite with the use head.
KGSITE_PAIR_ENCODER = env("KGSITE_TEST_PAIR_ENCODER", "none")  # noqa: F405

# Entity detection sees each test's entities at once (no cross-test gazetteer cache).
KGSITE_GAZETTEER_RECHECK_SECONDS = 0

# Jobs run inline in tests.
Q_CLUSTER = {**Q_CLUSTER, "sync": True}

REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file database (not :memory:) so threads in race tests share it.
    DATABASES["default"]["NAME"] = str(_TMP / "test.sqlite3")
    DATABASES["default"]["TEST"] = {"NAME": str(_TMP / "test-db.sqlite3")}
