"""Benchmark settings: production-like (DEBUG off, real embedder) but jobs inline, no throttle.

The database and data directory come from the environment, set per run by
``benchmarks._django.setup`` so every benchmark gets its own scratch database.
"""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import ALLOWED_HOSTS, Q_CLUSTER, REST_FRAMEWORK, env
from .environ import env_log_level

# DEBUG off: Django would otherwise keep every SQL query in memory and skew timings.
DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY", "bench-secret")
# The DRF/Django test client sends "testserver" as its host.
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "testserver"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Jobs run inline, so a benchmark times the whole pipeline without a worker process.
Q_CLUSTER = {**Q_CLUSTER, "sync": True}

# Benchmarks time the query path, not authentication: reads open as for a public base.
KGSITE_PUBLIC_READ = True

# A benchmark fires thousands of requests a minute from one client.
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_log_level("KGSITE_LOG_LEVEL", "WARNING")},
}
