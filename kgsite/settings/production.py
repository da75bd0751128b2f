"""Production: gunicorn, PostgreSQL, the Redis broker, several qcluster workers.

Secrets and hosts come from the environment. ``manage.py check --deploy`` is clean with
the defaults here (HTTPS assumed: a TLS-terminating proxy in front of gunicorn that sets
``X-Forwarded-Proto``). A local trial over plain HTTP on loopback sets
``KGSITE_SSL_REDIRECT=0`` (``make prod`` does), which check --deploy then reports.
"""

from __future__ import annotations

import os

from .base import *  # noqa: F403
from .base import DATABASES, MIDDLEWARE, REDIS_URL, env_bool, env_int
from .environ import env_log_level, env_required

DEBUG = False
SECRET_KEY = env_required("DJANGO_SECRET_KEY", "a long random string that signs sessions")

# --- HTTPS -------------------------------------------------------------------------------
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("KGSITE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = SECURE_SSL_REDIRECT
CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT
SECURE_HSTS_SECONDS = env_int("KGSITE_HSTS_SECONDS", 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env_bool("KGSITE_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# --- Static files: collected by `manage.py collectstatic`, served by WhiteNoise ----------
_security = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware")
MIDDLEWARE = [
    *MIDDLEWARE[: _security + 1],
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[_security + 1 :],
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- Database: PostgreSQL expected; connections kept (gunicorn threads reuse them) ------
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

# --- Cache: shared by every gunicorn worker, so throttles count per user, not per process -
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("KGSITE_CACHE_PREFIX", "kgsite"),
        }
    }

# --- Workers below the web: on a shared machine requests get the CPU first ------------
KGSITE_WORKER_NICE = env_int("KGSITE_WORKER_NICE", 10)

# --- Web processes load the encoder and the models before their first request -----------
KGSITE_WARM_START = env_bool("KGSITE_WARM_START", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_log_level("KGSITE_LOG_LEVEL", "WARNING")},
}
