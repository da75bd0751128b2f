"""The one way a timestamp is written in an answer, REST or MCP.

DRF's ``DateTimeField`` writes ISO 8601 in the current time zone, UTC as "Z"
("2026-01-02T03:04:05.123456Z"); hand-made dicts wrote ``isoformat()``'s "+00:00", so
the same episode or notification came back in two spellings depending on the route.
Every answer built outside a serializer writes its timestamps through ``timestamp``.
"""

from __future__ import annotations

from datetime import datetime

from rest_framework.fields import DateTimeField

_FIELD = DateTimeField()


def timestamp(value: datetime | None) -> str | None:
    """``value`` as the REST API's serializers write it (None stays None)."""
    return None if value is None else _FIELD.to_representation(value)
