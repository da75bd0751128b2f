"""Local development: the embedded default (SQLite in WAL, ORM broker).

DEBUG is off unless asked for (``DJANGO_DEBUG=1 make run``): Django's debug page shows
settings and local variables to whoever triggers an error. The API answers its JSON
error shape either way (``kgsite.middleware``).
"""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = env_bool("DJANGO_DEBUG", False)
