"""Request parsers that answer 400, never 500, for hostile JSON."""

from __future__ import annotations

import math
from typing import Any

from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser as DRFJSONParser


def _has_lone_surrogate(text: str) -> bool:
    """True when ``text`` holds a UTF-16 surrogate (``"\\ud800"`` in JSON): not a
    character, and unencodable, so no answer or database row can carry it."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# A location in the document: None for the top, else (parent location, key). Linked,
# not a tuple per value: a wide list deep in a nested document stays linear in memory.
_Where = tuple | None


def _path(where: _Where) -> str | None:
    parts: list[str] = []
    while where is not None:
        where, key = where
        parts.append(key)
    return ".".join(reversed(parts)) or None


def _refuse(where: _Where, message: str) -> None:
    field = _path(where)
    raise ValidationError({field: [message]} if field else [message])


def check_values(data: Any) -> None:
    """A 400 naming the field (``kind``, ``items.0.text``) for a string with a lone
    surrogate (key or value) or a number that is not finite (``1e999`` reads as
    infinity). Iterative, one pass: the document may be nested as deep as the parser
    allowed and megabytes long."""
    stack: list[tuple[_Where, Any]] = [(None, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            if _has_lone_surrogate(value):
                _refuse(where, "not valid Unicode (a lone surrogate, \\ud800-\\udfff)")
        elif isinstance(value, float):
            if not math.isfinite(value):
                _refuse(where, "a number out of range (not finite)")
        elif isinstance(value, dict):
            for key, item in value.items():
                if _has_lone_surrogate(key):
                    _refuse(where, "a key is not valid Unicode (a lone surrogate)")
                stack.append(((where, key), item))
        elif isinstance(value, list):
            stack.extend(((where, str(index)), item) for index, item in enumerate(value))


class JSONParser(DRFJSONParser):
    """DRF's parser, plus a 400 for a document nested deeper than Python recurses
    (``[[[[...]]]]`` 100,000 deep raised RecursionError, a 500), and a 400 naming the
    field for lone surrogates and infinite numbers (``check_values``): every JSON
    endpoint gets these checks before any serializer or view sees the data."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the document is nested too deeply") from None
        check_values(data)
        return data
