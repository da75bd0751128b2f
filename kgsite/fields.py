"""Three rules for every DRF serializer field of every app, set once at start-up.

- A text field takes a string only. DRF's ``CharField`` turns numbers into text, so
  ``{"text": -1}`` was stored as "-1" and ``1e999`` as "inf": a client's type error
  became data. Now it is a 400 naming the field ("Not a valid string.").
- A choice error names the allowed values and never repeats the input. DRF's message
  echoed the value whole: a 1 MB invalid ``kind`` made a 1 MB error, and a lone surrogate
  made the answer unencodable (a 500).
- A number field takes a number, or a string of ASCII digits. Python's ``int`` and
  ``float`` also read ``"1_0"`` as 10 and Arabic-Indic digits as digits, and DRF's
  ``FloatField`` read ``true`` and ``false`` as 1.0 and 0.0: ``{"confidence": false}``
  stored a fact at confidence 0 and ``{"minScore": true}`` found nothing.

DRF has no setting for any of them, and the project's serializers declare
``serializers.CharField``, ``serializers.ChoiceField`` and the number fields in every
app; patching the methods here (``install``, from ``KgsiteConfig.ready``) covers all of
them, present and future, and their subclasses (``EmailField``, ``RegexField``,
``MultipleChoiceField``...).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

from rest_framework import fields
from rest_framework.exceptions import ValidationError

# Allowed values listed in a choice error at most (a longer list ends with "...").
MAX_LISTED_CHOICES = 30


def allowed_values(choices: Iterable[Any]) -> str:
    """``a, b, c`` for an error message: the first ``MAX_LISTED_CHOICES`` choices."""
    values = [str(choice) for choice in choices]
    shown = ", ".join(values[:MAX_LISTED_CHOICES])
    return f"{shown}, ..." if len(values) > MAX_LISTED_CHOICES else shown


def _char_to_internal_value(self, data):
    """``CharField``: strings only (DRF also took numbers and turned them into text)."""
    if not isinstance(data, str):
        self.fail("invalid")
    return data.strip() if self.trim_whitespace else data


def _choice_to_internal_value(self, data):
    """``ChoiceField``: the value, or an error naming the allowed values (not the input)."""
    if data == "" and self.allow_blank:
        return ""
    if isinstance(data, Enum) and str(data) != str(data.value):
        data = data.value
    if isinstance(data, str | int) and not isinstance(data, bool):
        key = str(data)
        if key in self.choice_strings_to_values:
            return self.choice_strings_to_values[key]
    raise ValidationError(
        f"not an allowed value; expected one of: {allowed_values(self.choice_strings_to_values)}",
        code="invalid_choice",
    )


_DRF_INTEGER = fields.IntegerField.to_internal_value
_DRF_FLOAT = fields.FloatField.to_internal_value
_DRF_DECIMAL = fields.DecimalField.to_internal_value


def _numeric(original):
    """A number field's check: booleans and strings other than plain ASCII numbers
    ("1_0", "١٠") are invalid; the rest is DRF's."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or (
            isinstance(data, str) and (not data.isascii() or "_" in data)
        ):
            self.fail("invalid")
        return original(self, data)

    to_internal_value.__doc__ = _numeric.__doc__
    return to_internal_value


def install() -> None:
    """Apply the rules to DRF's field classes (idempotent)."""
    fields.CharField.to_internal_value = _char_to_internal_value
    fields.ChoiceField.to_internal_value = _choice_to_internal_value
    fields.IntegerField.to_internal_value = _numeric(_DRF_INTEGER)
    fields.FloatField.to_internal_value = _numeric(_DRF_FLOAT)
    fields.DecimalField.to_internal_value = _numeric(_DRF_DECIMAL)
