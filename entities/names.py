"""What a name and a type are: the checks every entry point (API, admin, commands, books,
search filters) applies before it reads or writes the entity graph."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext_noop

from kgsite.errors import InvalidInput
from kgsite.text import MAX_NAME_LENGTH, clean_display, has_control_chars, invisible_char, type_tag

MAX_TYPE_LENGTH = 64


def _refuse_hidden_characters(value: str, field: str) -> None:
    if has_control_chars(value):
        raise InvalidInput(
            gettext_noop("%(field)s contains control characters"),
            params={"field": field},
            field=field,
        )
    refuse_invisible(value, field)


def refuse_invisible(value: str, field: str) -> None:
    """A zero-width space, joiner or bidi mark is refused: the text looks like another."""
    invisible = invisible_char(value)
    if invisible:
        raise InvalidInput(
            gettext_noop("%(field)s contains an invisible formatting character (%(char)s)"),
            params={"field": field, "char": invisible},
            field=field,
        )


def validate_name(value: object, *, field: str = "name") -> str:
    """Reject empty, over-long and control-character names with a clear error."""
    if not isinstance(value, str):
        raise InvalidInput(
            gettext_noop("%(field)s must be a string"), params={"field": field}, field=field
        )
    _refuse_hidden_characters(value, field)
    display = clean_display(value)
    if not display:
        raise InvalidInput(
            gettext_noop("%(field)s must not be empty"), params={"field": field}, field=field
        )
    if len(display) > MAX_NAME_LENGTH:
        raise InvalidInput(
            gettext_noop("%(field)s is longer than %(n)s characters"),
            params={"field": field, "n": MAX_NAME_LENGTH},
            field=field,
        )
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
        raise InvalidInput(gettext_noop("type must contain a letter or a digit"), field="type")
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
