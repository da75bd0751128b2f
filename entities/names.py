"""What a name and a type are: the checks every entry point (API, admin, commands, books,
search filters) applies before it reads or writes the entity graph."""

from __future__ import annotations

from django.conf import settings

from kgsite.errors import InvalidInput
from kgsite.text import MAX_NAME_LENGTH, clean_display, has_control_chars, invisible_char, type_tag

MAX_TYPE_LENGTH = 64


def _refuse_hidden_characters(value: str, field: str) -> None:
    if has_control_chars(value):
        raise InvalidInput(f"{field} contains control characters", field=field)
    invisible = invisible_char(value)
    if invisible:
        raise InvalidInput(
            f"{field} contains an invisible formatting character ({invisible})", field=field
        )


def validate_name(value: object, *, field: str = "name") -> str:
    """Reject empty, over-long and control-character names with a clear error."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string", field=field)
    _refuse_hidden_characters(value, field)
    display = clean_display(value)
    if not display:
        raise InvalidInput(f"{field} must not be empty", field=field)
    if len(display) > MAX_NAME_LENGTH:
        raise InvalidInput(f"{field} is longer than {MAX_NAME_LENGTH} characters", field=field)
    return display


def normalize_type(value: str | None) -> str:
    """Types are case-free tags: "ProgrammingLanguage" becomes "programming_language"."""
    if not value:
        return ""
    if not isinstance(value, str):
        raise InvalidInput("type must be a string", field="type")
    _refuse_hidden_characters(value, "type")
    result = type_tag(value)
    if result and not any(c.isalnum() for c in result):
        # "_" or "!!!" is no type a reader could tell apart from another.
        raise InvalidInput("type must contain a letter or a digit", field="type")
    if len(result) > MAX_TYPE_LENGTH:
        raise InvalidInput(f"type is longer than {MAX_TYPE_LENGTH} characters", field="type")
    return result


def validate_description(value: object) -> str:
    """An entity's description: text (newlines and tabs are text) within
    ``KGSITE_MAX_DESCRIPTION_CHARS``, with no control characters."""
    if not isinstance(value, str):
        raise InvalidInput("description must be a string", field="description")
    if has_control_chars(value):
        raise InvalidInput("description contains control characters", field="description")
    limit = settings.KGSITE_MAX_DESCRIPTION_CHARS
    if len(value) > limit:
        raise InvalidInput(f"description is longer than {limit} characters", field="description")
    return value
