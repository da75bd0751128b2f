"""Local development: the embedded default (SQLite in WAL, ORM broker) with DEBUG on."""

from __future__ import annotations

from .base import *  # noqa: F403

DEBUG = True
